package runner

import (
	"stortest.dev/workload"

	"time"

	"golang.org/x/sys/unix"
)

// rampRun is what a job clone did in ramp_time, kept aside: fio counts
// I/Os, bytes and queue depths from the job's start, records no latency
// before the ramp ends, and drops the counts when it does. A job that ends
// before its ramp does (a small size-bound job) therefore reports its
// whole run in fio 3.33: its I/Os, bytes and depths, its runtime and CPU
// from its start, and no latency samples. The measured part never reads
// these counts; only such a job's result takes them (endInRamp).
type rampRun struct {
	start  int64     // ns: the clone's start
	wall   time.Time // wall clock at the start
	ru     unix.Rusage
	dirs   [workload.NumDirs]struct{ ios, bytes, short uint64 }
	depths workload.DepthStats
}

// begin records the clone's start, for a job with a ramp.
func (r *rampRun) begin(start int64) {
	r.start, r.wall = start, time.Now()
	_ = unix.Getrusage(unix.RUSAGE_THREAD, &r.ru)
}

// done counts a completion in ramp_time of want bytes that moved res
// (negative: an error, counted elsewhere).
func (r *rampRun) done(d workload.Dir, res int64, want int) {
	c := &r.dirs[d]
	c.ios++
	if res > 0 {
		c.bytes += uint64(res)
		if int(res) < want {
			c.short++
		}
	}
}

// depthsAt returns the depth counters a submission or reap at t goes to:
// the result's once the ramp is over, else the ramp's.
func (w *worker) depthsAt(t int64) *workload.DepthStats {
	if t >= w.measureStart {
		return &w.res.Depths
	}
	return &w.ramp.depths
}

// endInRamp gives the result of a clone that ends inside ramp_time (never
// measured) what it did since its start, as fio reports such a job, up to
// its last completion end. With ru nil (the result is finished on another
// thread) the CPU figures stay zero.
func (w *worker) endInRamp(end int64, ru bool) {
	r := &w.ramp
	if w.job.RampTime == 0 || r.start == 0 || end <= r.start {
		return
	}
	for d := range workload.NumDirs {
		s, c := &w.res.Dirs[d], &r.dirs[d]
		s.IOs, s.Bytes, s.ShortIOs = c.ios, c.bytes, c.short
	}
	w.res.Depths = r.depths
	w.res.Runtime = time.Duration(end - r.start)
	w.res.Start = r.wall
	if ru {
		w.setCPU(&r.ru)
	}
}
