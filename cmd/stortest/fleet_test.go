package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/blkio"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency/histlog"
	"stortest.dev/workload/runner"
)

// Acceptance: the fleet flow, locally. Four "hosts", four `stortest run`
// processes at once on loop devices of their own (over /dev/shm, so the
// only slow device is the one made slow), each job held to 5000 read IOPS
// (a fleet of like devices, and little CPU for the two of this machine)
// and host-3's device throttled with cgroup v1 blkio to 400, each
// leaving its fio JSON and histogram log in a directory of its own, as a
// CI matrix job or a Kubernetes pod would. The merge step over those
// directories names host-3 as the slow host, both from the histogram
// logs (hist merge --summary) and from the results (baseline diff
// --fleet, the slowest first), and the fleet's p99 is the p99 of the
// four hosts' histograms summed, computed here from the logs themselves.
func TestFleetFlow(t *testing.T) {
	testenv.SkipShort(t, "runs four stortest processes")
	g := testenv.BlkioGroup(t, "stortest-fleet")
	bin := buildStortest(t)

	const hosts, slow = 4, 2 // host-3 is slow
	var devs []string
	for range hosts {
		s, err := runner.NewScratch(runner.ScratchOptions{Dir: "/dev/shm", Size: 64 << 20, Loop: true, DirectIO: true})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		devs = append(devs, s.Path)
	}
	devNum, err := blkio.DevNumber(devs[slow])
	require.NoError(t, err)
	require.NoError(t, g.SetReadIOPS(devNum, 400))

	fleet := t.TempDir()
	type proc struct {
		cmd    *exec.Cmd
		out    bytes.Buffer
		exited <-chan struct{}
	}
	var procs []*proc
	for i, dev := range devs {
		dir := filepath.Join(fleet, fmt.Sprintf("host-%d", i+1))
		require.NoError(t, os.Mkdir(dir, 0o755))
		args := []string{"run", "--progress=off", "--output-format=json+", "--output=" + filepath.Join(dir, "fio.json"),
			"--name=randread-4k", "--filename=" + dev, "--rw=randread", "--bs=4k", "--iodepth=8", "--rate_iops=5000", "--ioengine=libaio",
			"--direct=1", "--runtime=4s", "--time_based", "--write_hist_log=" + filepath.Join(dir, "randread"), "--log_hist_msec=1000"}
		p := &proc{}
		if i == slow {
			// A shell moves itself into the throttled group, then becomes
			// stortest: every thread it starts is throttled.
			p.cmd = g.Command(bin, args...)
		} else {
			p.cmd = exec.Command(bin, args...)
		}
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		exited, err := proctest.Start(t, p.cmd) // killed if the test stops before they end
		require.NoError(t, err)
		p.exited = exited
		procs = append(procs, p)
	}
	for _, p := range procs {
		<-p.exited // all of them, before a failure detaches the devices
	}
	for i, p := range procs {
		require.True(t, p.cmd.ProcessState.Success(), "host-%d: %s: %s", i+1, p.cmd.ProcessState, p.out.String())
	}
	hostDirs := make([]string, hosts)
	for i := range hostDirs {
		hostDirs[i] = filepath.Join(fleet, fmt.Sprintf("host-%d", i+1))
	}

	// The merge step, part 1: the histogram logs of every host.
	code, stdout, stderr := run(t, append([]string{"hist", "merge", "--summary", "--direction", "read", "--percentiles", "50,99", "--unit", "ns", "--format", "json"}, hostDirs...)...)
	require.Equal(t, 0, code, stderr)
	var sum struct {
		Hosts []struct {
			Host       string
			Logs       int
			Directions []struct {
				Samples     float64
				Percentiles map[string]float64
			}
		}
		Fleet struct {
			Directions []struct {
				Samples     float64
				Percentiles map[string]float64
			}
		}
		Slowest []struct {
			Host                 string
			Value                float64
			Ratio_to_median_host float64 `json:"ratio_to_median_host"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum), stdout)
	require.Len(t, sum.Hosts, hosts)
	require.Len(t, sum.Slowest, 1)
	assert.Equal(t, "host-3", sum.Slowest[0].Host, "the slow host: %s", stdout)
	for _, h := range sum.Hosts {
		t.Logf("%s: %d logs, %.0f reads, p50 %.0f ns, p99 %.0f ns", h.Host, h.Logs, h.Directions[0].Samples,
			h.Directions[0].Percentiles["50"], h.Directions[0].Percentiles["99"])
	}
	fleetP99 := sum.Fleet.Directions[0].Percentiles["99"]
	want, n := mergedP99(t, hostDirs)
	t.Logf("fleet: %.0f reads, p99 %.0f ns; the summed histograms' p99 %.0f ns of %d reads; slowest host %s at %.1fx the median host",
		sum.Fleet.Directions[0].Samples, fleetP99, want, n, sum.Slowest[0].Host, sum.Slowest[0].Ratio_to_median_host)
	assert.Equal(t, float64(n), sum.Fleet.Directions[0].Samples)
	assert.InDelta(t, want, fleetP99, 1e-6*want, "fleet p99 is the p99 of the merged histograms")
	var mean float64
	for _, h := range sum.Hosts {
		mean += h.Directions[0].Percentiles["99"] / hosts
	}
	assert.Greater(t, math.Abs(mean-fleetP99), 0.05*fleetP99, "the fleet p99 is not the hosts' average")

	// Part 2: the results, as baselines, each host against the others.
	bdir := filepath.Join(fleet, "baselines")
	for i, d := range hostDirs {
		code, _, stderr := run(t, "baseline", "import-fio", "--out", filepath.Join(bdir, fmt.Sprintf("host-%d", i+1)), filepath.Join(d, "fio.json"))
		require.Equal(t, 0, code, stderr)
	}
	code, stdout, stderr = run(t, "baseline", "diff", "--fleet", bdir)
	t.Logf("baseline diff --fleet:\n%s%s", stdout, stderr)
	assert.Equal(t, 1, code, "a slow host is a regression")
	// The slowest first; on a loaded 2-CPU machine another host can be
	// slower than its peers too, but never as slow as the throttled one.
	assert.Regexp(t, `slow host\(s\), against the other hosts: host-3 \(read (iops|bw|clat p\d+) `, stdout)
	m := strings.Index(stdout, "clat p50=")
	require.Positive(t, m, stdout)
}

// mergedP99 reads every histogram log of the hosts' directories, sums
// their read columns and returns the p99 of the sum as Merge defines a
// percentile (the rank interpolated inside its bucket), and the count.
func mergedP99(t *testing.T, dirs []string) (float64, uint64) {
	t.Helper()
	var sum []uint64
	var format histlog.Format
	for _, d := range dirs {
		logs, err := filepath.Glob(filepath.Join(d, "*_clat_hist.*.log"))
		require.NoError(t, err)
		require.NotEmpty(t, logs, d)
		for _, p := range logs {
			f, err := os.Open(p)
			require.NoError(t, err)
			r := histlog.NewReader(f, p, histlog.ReaderOptions{})
			for r.Scan() {
				rec := r.Record()
				if rec.Dir != histlog.Read {
					continue
				}
				if sum == nil {
					sum, format = make([]uint64, len(rec.Counts)), r.Format()
				}
				require.Len(t, rec.Counts, len(sum))
				for i, c := range rec.Counts {
					sum[i] += c
				}
			}
			require.NoError(t, r.Err())
			f.Close()
		}
	}
	var total uint64
	for _, c := range sum {
		total += c
	}
	rank := 0.99 * float64(total)
	var cum float64
	for i, c := range sum {
		if c == 0 {
			continue
		}
		if cum+float64(c) >= rank {
			lo, hi := format.Bounds(i)
			return float64(lo) + (rank-cum)/float64(c)*float64(hi-lo), total
		}
		cum += float64(c)
	}
	t.Fatal("no reads in the logs")
	return 0, 0
}
