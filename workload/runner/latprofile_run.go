package runner

import (
	"fmt"
	"math"
	"syscall"
	"time"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// The latency target's depth search and max_latency while a job runs.

// latTarget is a job's depth search under latency_target. It lives on the
// worker's goroutine; nothing in it allocates.
type latTarget struct {
	target  int64   // ns
	window  int64   // ns
	pct     float64 // percent of I/Os that must meet target
	run     bool    // latency_run
	ceiling int     // the job's iodepth

	qd, low, high int   // depth in use, last passing, last failing
	stable        int   // successive passes one below high
	cycleStart    int64 // ns: start of the window being measured
	ios, failed   int64 // completed I/Os, and late ones, in the window
	endRun        bool  // the depth is found: measuring one final window
	quiesce       bool  // waiting for in-flight I/O before a new window
	reset         bool  // after the quiesce, restart the measured part
	done          bool  // the final window passed: the job ends
}

func newLatTarget(j *workload.Job) *latTarget {
	if j.LatencyTarget <= 0 {
		return nil
	}
	return &latTarget{target: int64(j.LatencyTarget), window: int64(j.LatencyWindow),
		pct: j.TargetPercentile(), run: j.LatencyRun, ceiling: j.IODepth}
}

// init starts the search over at depth 1 (the job's start, the end of
// ramp_time), unless the final window is under way.
func (l *latTarget) init(now int64) {
	if l.endRun {
		return
	}
	l.qd, l.low, l.high = 1, 1, l.ceiling
	l.stable = 0
	l.newCycle(now)
}

func (l *latTarget) newCycle(now int64) {
	l.cycleStart = now
	l.ios, l.failed = 0, 0
}

// late records an I/O over the target. It reports true when the job must
// fail: the depth is 1 already and every I/O must meet the target.
func (l *latTarget) late() bool {
	if l.pct == 100 {
		return l.down()
	}
	l.failed++
	return false
}

// down lowers the depth halfway towards the last passing one and waits
// for the I/O in flight before the next window; false at depth 1.
func (l *latTarget) down() bool {
	if l.qd == 1 {
		return true
	}
	l.high = l.qd
	if l.qd == l.low {
		l.low--
	}
	l.qd = (l.qd + l.low) / 2
	l.stable = 0
	l.quiesce = true
	return false
}

// up raises the depth after a passing window: doubling until a depth has
// failed, then bisecting towards it. A depth that stops changing is the
// answer: a final window measures it (with the statistics reset), and a
// pass after that ends the job.
func (l *latTarget) up() {
	prev := l.qd
	l.low = l.qd
	if l.qd+1 == l.high {
		// Bisection cannot rise past high-1: probe one higher now and
		// then, so the depth found is not stuck below a high that failed
		// once by chance.
		if l.stable++; l.stable >= 3 {
			l.high++
			l.stable = 0
		}
	}
	if l.high != l.ceiling {
		l.qd = (l.qd + l.high) / 2
	} else {
		l.qd *= 2
	}
	l.qd = min(l.qd, l.ceiling)
	if !l.run && l.qd == prev {
		if l.endRun {
			l.done = true
		} else {
			l.endRun, l.reset, l.quiesce = true, true, true
		}
	}
}

// check closes the window once it has lasted latency_window: up when
// enough of its I/Os met the target, down otherwise. A window with no
// completed I/O fails, as fio's 0/0 success rate does.
func (l *latTarget) check(now int64) {
	if l.quiesce || (now-l.cycleStart)/1000 < l.window/1000 { // fio compares whole µs
		return
	}
	ok := l.ios > 0 && float64(l.ios-l.failed)/float64(l.ios)*100 >= l.pct
	if ok {
		l.up()
		if !l.quiesce {
			l.newCycle(now)
		}
		return
	}
	// At depth 1 a failing window changes nothing, and the window keeps
	// running (fio starts no new cycle there either).
	l.down()
}

// fillable reports how many more units the search allows in flight.
func (l *latTarget) room(inFlight int) int {
	if l.quiesce || l.done {
		return 0
	}
	return l.qd - inFlight
}

// latencyCheck applies max_latency and latency_target to a unit that
// completed at t, before its statistics are taken.
func (w *worker) latencyCheck(u *engines.Unit, t int64) {
	if u.Res < 0 {
		return // failed I/Os are not timed against the limits
	}
	d := dirOf(u.Op)
	lat := t - u.Start
	if l := w.lat; l != nil {
		l.ios++
	}
	if m := int64(w.job.MaxLatency[d]); m > 0 && lat > m {
		w.latencyFail(u, lat, m)
		return
	}
	if l := w.lat; l != nil && lat > l.target && l.late() {
		w.latencyFail(u, lat, l.target)
	}
}

// latencyFail ends the job with fio's "max latency exceeded"; a later
// failure keeps the first one's report. The I/O itself succeeded, so it
// is counted as usual and not as a failed I/O (as in fio).
func (w *worker) latencyFail(u *engines.Unit, lat, limit int64) {
	if w.res.Err == nil {
		w.res.Err = &LatencyError{Lat: time.Duration(lat), Max: time.Duration(limit),
			File: w.job.Filename, Op: u.Op.String(), Offset: u.Offset, Len: len(u.Buf)}
	}
	w.ended = true
}

// latRoom is how many more units the depth search lets the job put in
// flight (no limit without latency_target).
func (w *worker) latRoom() int {
	if w.lat == nil {
		return math.MaxInt
	}
	return w.lat.room(w.infl + len(w.staged))
}

// latStep advances the depth search after a round of completions at now:
// ends a quiesce once nothing is in flight and starts the next window,
// closes a window that has run its time, and ends the job once the final
// window passed. It reports true when the measured part restarts at now
// (the depth is found): the caller takes its rusage and wall clock anew.
func (w *worker) latStep(now int64) bool {
	l := w.lat
	if l.quiesce {
		if w.infl > 0 || len(w.staged) > 0 {
			return false
		}
		l.quiesce = false
		restart := l.reset
		if restart {
			l.reset = false
			w.restartMeasure(now)
		}
		l.newCycle(now)
		return restart
	}
	if now >= w.measureStart { // not in ramp_time
		l.check(now)
	}
	if l.done && !w.ended {
		// The runtime ends here, as when a runtime runs out: the I/Os
		// still in flight are counted but their drain is not timed (fio's
		// runtime and iops likewise).
		w.ended = true
		if w.deadline == 0 || now < w.deadline {
			w.deadline = now
		}
	}
	return false
}

// restartMeasure drops what was measured so far and starts the measured
// part (and the runtime, as fio restarts its clock) at now: what fio does
// when the depth search settles, so the results are those of the depth
// found. Per-I/O errors and verify counts are kept.
func (w *worker) restartMeasure(now int64) {
	r := w.res
	for d := range workload.NumDirs {
		resetDirStats(&r.Dirs[d])
		for i := range r.Prios[d] {
			r.Prios[d][i].Clat.Reset()
			r.Prios[d][i].Lat.Reset()
		}
		w.clatPrev[d].Reset()
		w.tickIOs[d], w.tickBytes[d] = 0, 0
		w.sliceIOs[d], w.sliceBytes[d] = 0, 0
		w.pub.ios[d].Store(0)
		w.pub.bytes[d].Store(0)
	}
	resetDirStats(&r.Sync)
	r.Depths = workload.DepthStats{}
	r.Seconds = r.Seconds[:0]
	r.Slices = r.Slices[:0]
	w.measureStart = now
	if w.job.Runtime > 0 {
		w.deadline = now + int64(w.job.Runtime)
	}
	w.nextTick = now + int64(time.Second)
	w.nextSlice = now + int64(workload.SliceInterval)
}

func resetDirStats(s *workload.DirStats) {
	s.IOs, s.Bytes, s.ShortIOs, s.Errors = 0, 0, 0, 0
	s.Slat.Reset()
	s.Clat.Reset()
	s.Lat.Reset()
}

// LatencyError is the failure of an I/O whose latency exceeded
// max_latency (or, at depth 1 with latency_percentile=100, the
// latency_target): fio's "max latency exceeded", errno ETIMEDOUT.
type LatencyError struct {
	Lat, Max time.Duration
	File     string
	Op       string
	Offset   int64
	Len      int
}

func (e *LatencyError) Error() string {
	return fmt.Sprintf("latency of %d nsec exceeds specified max (%d nsec): %s %s %d %d",
		int64(e.Lat), int64(e.Max), e.File, e.Op, e.Offset, e.Len)
}

// Unwrap makes errors.Is(err, syscall.ETIMEDOUT) hold, and the job's
// error number in fio's JSON 110.
func (e *LatencyError) Unwrap() error { return syscall.ETIMEDOUT }

// noMaxLatency is MaxLatency unset.
var noMaxLatency [workload.NumDirs]time.Duration
