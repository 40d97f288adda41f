package stortest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/regress"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// A run too short for its baseline's verdict measures on: a 2 s run at
// 4000 IOPS has too few I/Os for p99.99 (36887 at 95%), so it extends by
// the seconds that supply them. Without the option it stays at 2 s.
//
// Only p99.99 is compared: on a loaded machine the CPU-bound latencies of
// a memory-backed loop device shift between the baseline and the rerun
// (under stress-ng on both CPUs a 2 s rerun's mean clat came out a
// regression), and a regression ends the extension, which is right but
// not what this test is about. p99.99 is inconclusive on 2 s whatever
// the load: it lacks the I/Os.
func TestExtendWhileInconclusive(t *testing.T) {
	testenv.RequireRoot(t)
	scratch, err := runner.NewScratch(runner.ScratchOptions{Dir: "/dev/shm", Size: 64 << 20, Loop: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scratch.Close()) })
	dir := t.TempDir()
	job := workload.Job{Name: "extend", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Direct: true, Runtime: 11 * time.Second, TimeBased: true, RateIOPS: [3]int{4000}}
	only := Tolerances("*.iops=off,*.bw=off,*.clat.mean=off,*.clat.p50=off,*.clat.p99=off,*.clat.p99.9=off")
	f := newFake(t)
	t.Setenv(EnvUpdate, "1")
	f.run(func(tb testing.TB) {
		res := Run(tb, Device(tb, scratch.Path), job)
		require.True(t, CheckBaseline(tb, res, BaselineDir(dir), only))
	})
	t.Setenv(EnvUpdate, "0")

	job.Runtime = 2 * time.Second
	var plain, extended *Result
	f.run(func(tb testing.TB) {
		plain = Run(tb, Device(tb, scratch.Path), job)
		CheckBaseline(tb, plain, BaselineDir(dir), only)
	})
	require.NotNil(t, plain)
	assert.InDelta(t, 2, plain.Jobs[0].Runtime.Seconds(), 0.2)
	logs := len(f.logs)
	f.run(func(tb testing.TB) {
		extended = Run(tb, Device(tb, scratch.Path), job, ExtendWhileInconclusive(20*time.Second, BaselineDir(dir), only))
		CheckBaseline(tb, extended, BaselineDir(dir), only)
	})
	require.NotNil(t, extended)
	f.finish()
	ext := strings.Join(f.logs[logs:], "\n")
	assert.Contains(t, ext, "extend: inconclusive after ")
	assert.NotContains(t, ext, "extending the run:", "the continuation ran")
	rt := extended.Jobs[0].Runtime
	// At least until p99.99 has its I/Os (9.2 s at 4000 IOPS); on a
	// loaded machine the spread between seconds may keep it going to the
	// limit.
	assert.Greater(t, rt, 9*time.Second, "extended until p99.99 has its I/Os:\n%s", ext)
	assert.LessOrEqual(t, rt, 20*time.Second+500*time.Millisecond)
	assert.Contains(t, ext, "measuring")
	// The seconds continue on one time line (a zero-length interval at
	// the join is folded when the baseline is made).
	secs := extended.Jobs[0].Seconds
	for i := 1; i < len(secs); i++ {
		require.GreaterOrEqual(t, secs[i].T, secs[i-1].T)
	}
	t.Logf("extended run: %v, %d I/Os\n%s", rt, extended.Jobs[0].Dirs[workload.DirRead].IOs, ext)
}

// moreSeconds asks for the seconds that the findings short on this run's
// samples name, converting slices and I/Os, and nothing for findings
// that more of this run cannot settle.
func TestMoreSeconds(t *testing.T) {
	cur := &baselines.Baseline{SliceInterval: 100 * time.Millisecond,
		Dirs: []*baselines.Dir{{Name: "read", IOPS: 4000}}}
	finding := func(kind string, more, base, current uint64) regress.Finding {
		return regress.Finding{Metric: "read.x", Verdict: regress.Inconclusive, More: more,
			Samples: regress.Samples{Kind: kind, Base: base, Current: current}}
	}
	for _, tc := range []struct {
		name string
		f    []regress.Finding
		want time.Duration
	}{
		{"seconds", []regress.Finding{finding("seconds", 6, 11, 4)}, 6 * time.Second},
		{"slices", []regress.Finding{finding("slices", 25, 110, 20)}, 3 * time.Second},
		{"ios", []regress.Finding{finding("I/Os", 29000, 44000, 7887)}, 8 * time.Second},
		{"largest", []regress.Finding{finding("seconds", 2, 11, 4), finding("I/Os", 29000, 44000, 7887)}, 8 * time.Second},
		{"at-least-a-second", []regress.Finding{finding("I/Os", 10, 44000, 7887)}, time.Second},
		{"baseline-short", []regress.Finding{finding("seconds", 6, 4, 11)}, 0},
		{"runs", []regress.Finding{finding("seconds", 0, 11, 4)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, moreSeconds(regress.Report{Findings: tc.f}, cur))
		})
	}
}

// Repeats, while recording, runs the job n times and records a baseline
// of n runs; outside recording it runs once.
func TestRepeatsRecordsSeveralRuns(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	job := workload.Job{Name: "rep", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: 500 * time.Millisecond, TimeBased: true, RateIOPS: [3]int{2000}}
	f := newFake(t)
	t.Setenv(EnvUpdate, "1")
	f.run(func(tb testing.TB) {
		res := Run(tb, File(tb, 8<<20), job, Repeats(3))
		require.True(t, CheckBaseline(tb, res, BaselineDir(dir)))
	})
	b, err := baselines.Load(baselines.Path(dir, t.Name(), "rep"))
	require.NoError(t, err)
	require.Len(t, b.RunSummaries(), 3)
	for _, r := range b.RunSummaries() {
		assert.InDelta(t, 2000, r.Dirs[0].IOPS, 200)
	}
	assert.Contains(t, strings.Join(f.logs, "\n"), "rep: recording run 3 of 3")

	t.Setenv(EnvUpdate, "0")
	var res *Result
	start := time.Now()
	f.run(func(tb testing.TB) { res = Run(tb, File(tb, 8<<20), job, Repeats(3)) })
	f.finish()
	require.NotNil(t, res)
	assert.Less(t, time.Since(start), 1400*time.Millisecond, "one run when not recording")
}
