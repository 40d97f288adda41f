package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"stortest.dev/baselines"
	"stortest.dev/iostat"
	"stortest.dev/report/page"
	"stortest.dev/workload"
)

// runReport writes the page of `stortest run --report FILE.html`: it
// samples iostat on the jobs' devices (and the CPUs) while they run.
type runReport struct {
	path    string
	target  string // the first job's file or device, for the fingerprint
	engine  string
	sampler *iostat.Sampler
	stderr  io.Writer
}

// startRunReport starts sampling for the page at path; nil when path is
// "". A device that cannot be sampled leaves the page without iostat,
// said on stderr.
func startRunReport(ctx context.Context, path string, jobs []workload.Job, stderr io.Writer) *runReport {
	if path == "" {
		return nil
	}
	r := &runReport{path: path, stderr: stderr}
	fsys := iostat.DefaultFS()
	var devices []string
	for _, j := range jobs {
		n := j.Normalized()
		if r.target == "" {
			r.target, r.engine = n.Filename, n.Engine
		}
		if n.Filename == "" {
			continue
		}
		res, err := fsys.Resolve(n.Filename)
		if err != nil {
			continue
		}
		for _, d := range append([]string{res.Device}, res.Disks...) {
			if !slices.Contains(devices, d) {
				devices = append(devices, d)
			}
		}
	}
	src := iostat.FromDiskstats
	if len(devices) == 0 {
		src = iostat.NoDevices // the CPUs' figures all the same
	}
	s, err := fsys.StartSampler(ctx, iostat.SamplerConfig{Source: src, Devices: devices})
	if err != nil {
		fmt.Fprintf(stderr, "stortest run: --report: no iostat: %v\n", err)
	}
	r.sampler = s
	return r
}

// finish stops the sampling and writes the page of res.
func (r *runReport) finish(res *workload.Result) error {
	if r == nil {
		return nil
	}
	var deltas []iostat.Delta
	if r.sampler != nil {
		snaps, err := r.sampler.Stop()
		if err != nil {
			fmt.Fprintf(r.stderr, "stortest run: --report: iostat: %v\n", err)
		}
		if len(snaps) >= 2 {
			deltas = iostat.Deltas(snaps)
		}
	}
	var fp baselines.Fingerprint
	if r.target != "" {
		var err error
		if fp, err = baselines.Probe(r.target, baselines.ProbeOptions{Engine: r.engine, Hostname: true}); err != nil {
			fmt.Fprintf(r.stderr, "stortest run: --report: fingerprint: %v\n", err)
		}
	}
	var names []string
	for _, j := range res.Jobs {
		if !slices.Contains(names, j.Name) {
			names = append(names, j.Name)
		}
	}
	p, err := page.NewRun("stortest run: "+strings.Join(names, ", "), res, fp)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	p.IOStat = deltas
	f, err := os.Create(r.path)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	bw := bufio.NewWriter(f)
	err = page.WriteRun(bw, p)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
