package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"stortest.dev/baselines"
	"stortest.dev/internal/durable"
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
	for _, j := range jobs {
		if n := j.Normalized(); r.target == "" {
			r.target, r.engine = n.Filename, n.Engine
		}
	}
	devices := jobDevices(fsys, jobs, true)
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

// jobDevices lists the block devices under the jobs' targets: each
// target's device (a loop device, or the one a file's file system is on)
// and, with disks, the whole devices under it, in order, once each.
func jobDevices(fsys iostat.FS, jobs []workload.Job, disks bool) []string {
	var devices []string
	for _, j := range jobs {
		n := j.Normalized()
		if n.Filename == "" {
			continue
		}
		res, err := fsys.Resolve(n.Filename)
		if err != nil {
			continue
		}
		ds := []string{res.Device}
		if disks {
			ds = append(ds, res.Disks...)
		}
		for _, d := range ds {
			if !slices.Contains(devices, d) {
				devices = append(devices, d)
			}
		}
	}
	return devices
}

// startDiskUtil reads the counters of the jobs' devices; the function it
// returns reads them again and gives fio's disk_util of the run between
// (nil when the jobs have no device, or /proc/diskstats cannot be read).
func startDiskUtil(jobs []workload.Job) func() []workload.DiskUtil {
	fsys := iostat.DefaultFS()
	devices := jobDevices(fsys, jobs, false)
	if len(devices) == 0 {
		return func() []workload.DiskUtil { return nil }
	}
	before, err := fsys.Snapshot(iostat.FromDiskstats, devices...)
	if err != nil {
		return func() []workload.DiskUtil { return nil }
	}
	return func() []workload.DiskUtil {
		after, err := fsys.Snapshot(iostat.FromDiskstats, devices...)
		if err != nil {
			return nil
		}
		d := iostat.NewDelta(before, after)
		var out []workload.DiskUtil
		for _, dd := range d.Disks {
			out = append(out, workload.DiskUtilOf(dd, d.Elapsed))
		}
		return out
	}
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
	// Whole or not at all: a full disk leaves no half page.
	if err := durable.WriteFile(r.path, 0o644, func(w io.Writer) error { return page.WriteRun(w, p) }); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
