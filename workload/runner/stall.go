package runner

import (
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"stortest.dev/clock"
	"stortest.dev/engines"
	"stortest.dev/workload"
)

// Stalls: a device that stops answering.
//
// A job's I/O is bounded by its runtime and by cancellation: once the
// runtime has ended, or the run was cancelled (a signal), or exitall
// stopped the job, the runner waits Options.Grace (DefaultGrace) for the
// I/Os still outstanding, then stops waiting for them and returns the
// job's result with those I/Os listed (JobResult.Outstanding) and a
// StallError as the job's error: a hung device is a finding, not a hang
// of the harness.
//
// How the runner stops waiting depends on where the wait is:
//   - An asynchronous engine's completions are reaped with a timeout
//     (reapPoll), so the job's own goroutine sees that the run gave up
//     (the abort flag), lists the units still in flight, hands its result
//     over, and only then waits for the kernel to give the units back
//     before it closes the engine and frees the buffers the kernel may
//     still write into (io_destroy and io_uring's teardown wait for
//     them). That goroutine may wait for as long as the device stalls;
//     the run does not.
//   - WithFaults' injected delays are waits in this process, which the
//     abort flag ends (engines.Abortable).
//   - A synchronous engine's system call (pread on a hung device, a page
//     fault on a mapping of one, an fsync, io_submit of buffered I/O)
//     cannot be interrupted. The job's goroutine marks each such call
//     with its gate (one atomic store before, one compare-and-swap
//     after; engines that move no data are not marked), and once the
//     grace period has passed the run takes the job's result over from
//     the goroutine still in the kernel: the compare-and-swap decides
//     which of the two owns the result, so exactly one writes it. The
//     abandoned goroutine, when its call returns (if ever), closes the
//     engine, the buffers and the file and exits without touching the
//     result.
//
// The process can always end: but the kernel finishes the exit of a
// process with an I/O in flight only when the I/O ends (a thread in
// uninterruptible sleep, exit_aio, io_uring's cancellation), so a process
// over a hung device lingers, exited, until the device answers.

// reapPoll bounds each wait for completions, so that a job sees within
// it that the run gave up waiting.
const reapPoll = 100 * time.Millisecond

// watchTick is how often the run checks jobs whose I/O outlived their
// runtime or cancellation plus the grace period.
const watchTick = 50 * time.Millisecond

// takeoverAfter is how long after setting a job's abort flag the run
// waits for the job to hand its result over itself (its waits end within
// reapPoll or engines.AbortPoll) before taking it from a goroutine
// blocked in the kernel.
const takeoverAfter = 2 * reapPoll

// Gate values: what the job's goroutine is doing, for the run's takeover.
const (
	gateFree  int32 = 0  // not in a blocking call: the goroutine owns its state
	gateTaken int32 = -1 // the run took the result over; the goroutine must not touch it
	gateDone  int32 = -2 // the goroutine handed its result over
	// 1..IODepth: in Queue of the unit whose Index is gate-1.
	gateSync   int32 = 1 << 30 // in an fsync, fdatasync or sync_file_range of its own unit
	gateCommit int32 = 1<<30 + 1
)

// grace returns the grace period of opts.

// getEvents reaps as GetEvents does, but waits at most reapPoll at a
// time and gives up when the run stops waiting (the abort flag): then it
// sets w.stalled and returns 0.
func (w *worker) getEvents(min, max int) (int, error) {
	for {
		if w.abort.Load() {
			w.stalled = true
			return 0, nil
		}
		n, err := w.eng.GetEvents(min, max, reapPoll)
		if n > 0 || err != nil || min <= 0 {
			return n, err
		}
	}
}

// leaveGate ends a gated call begun with gate value v: false when the
// run has taken the result over meanwhile, and then it does not return
// (abandoned).
func (w *worker) leaveGate(v int32) {
	if !w.gate.CompareAndSwap(v, gateFree) {
		w.abandoned()
	}
}

// abandoned is the end of a job's goroutine whose result the run took
// over while it was in the kernel: it waits until the run has read what
// it needs, lets the kernel return what is still in flight, frees the
// engine, buffers and file, and exits the goroutine.
func (w *worker) abandoned() {
	<-w.takenDone
	w.drainAbandoned()
	w.closeIO()
	releaseGC()
	runtime.Goexit()
}

// drainAbandoned waits, without a limit, for the kernel to return every
// unit still in flight, so that the buffers they point into can be freed.
// Injected delays are dropped first: what is held back for them is done.
// Each wait is bounded, so that the goroutine passes a preemption point
// between them (a raw system call's wait holds a stop-the-world).
func (w *worker) drainAbandoned() {
	if a, ok := w.eng.(engines.Abortable); ok {
		a.DropDelays()
	}
	for w.infl > 0 {
		n, err := w.eng.GetEvents(1, w.job.IODepth, reapPoll)
		if err != nil {
			return // the engine failed: Close it as it is
		}
		w.infl -= n
	}
}

// The engines' transfers are raw system calls (engines/syscalls.go): a
// thread blocked in one in uninterruptible sleep, or in a page fault, on
// a device that does not answer holds any stop-the-world (a garbage
// collection, GOMAXPROCS) until the device answers, and the whole process
// with it: the run could not even give up on the job after its grace
// period. So the garbage collector is off (holdGC, releaseGC) while any
// job's goroutine runs, from its first I/O until it is back from the
// kernel, also after the run gave up on it, and the program can go on:
// report, clean up, run its next tests. The runner's own I/O path
// allocates nothing; what the program allocates meanwhile is collected
// once the jobs are back, or when the heap reaches a memory limit
// (GOMEMLIMIT, debug.SetMemoryLimit), which still starts a collection.
// An explicit runtime.GC still waits for a stalled device.
var gcHold struct {
	sync.Mutex
	n    int // jobs with threads possibly blocked in the kernel
	off  bool
	prev int
}

// holdGC turns the collector off for a job that may block in the kernel.
// SetGCPercent(-1) waits for a collection under way to end, which may
// wait for a blocked thread: it is called on a goroutine of its own.
func holdGC() {
	gcHold.Lock()
	gcHold.n++
	first := gcHold.n == 1
	gcHold.Unlock()
	if first {
		go func() {
			gcHold.Lock()
			defer gcHold.Unlock()
			if gcHold.n > 0 && !gcHold.off {
				gcHold.prev, gcHold.off = debug.SetGCPercent(-1), true
			}
		}()
	}
}

// holdGCNow is holdGC for the start of a run, before any job may block:
// it returns once no collection is under way, so that none begun earlier
// meets a stalled job.
func holdGCNow() {
	gcHold.Lock()
	defer gcHold.Unlock()
	gcHold.n++
	if !gcHold.off {
		gcHold.prev, gcHold.off = debug.SetGCPercent(-1), true
	}
}

// releaseGC undoes holdGC or holdGCNow once the job's threads are back.
func releaseGC() {
	gcHold.Lock()
	defer gcHold.Unlock()
	gcHold.n--
	if gcHold.n == 0 && gcHold.off {
		debug.SetGCPercent(gcHold.prev)
		gcHold.off = false
	}
}

// outstanding lists the job's units in flight at now (those neither free
// nor staged), and its own sync unit when gate says it is in a sync,
// oldest first.
func (w *worker) outstanding(now int64, gate int32) []workload.OutstandingIO {
	idle := make([]bool, len(w.units))
	for _, u := range w.free {
		idle[u.Index] = true
	}
	if gate != gateCommit {
		for _, u := range w.staged {
			idle[u.Index] = true // not submitted
		}
	}
	var out []workload.OutstandingIO
	add := func(u *engines.Unit, op string) {
		issued := u.Start // offload: Issue is the submitter's, which may still hold the unit
		if !w.job.Offload {
			issued = u.Issue
		}
		out = append(out, workload.OutstandingIO{Op: op, Offset: u.Offset, Len: len(u.Buf),
			Issued: time.Duration(issued - w.measureStart), Age: time.Duration(now - issued)})
	}
	for i := range w.units {
		if !idle[i] {
			add(&w.units[i], w.units[i].Op.String())
		}
	}
	if gate == gateSync {
		add(&w.syncUnit, workload.SyncName(w.syncUnit.Op))
	}
	slices.SortStableFunc(out, func(a, b workload.OutstandingIO) int { return int(b.Age - a.Age) })
	return out
}

// stallErr records the outstanding units in the result and makes them
// the job's error.
func (w *worker) stallErr(out []workload.OutstandingIO) {
	e := &workload.StallError{Outstanding: out, Grace: w.grace, Before: w.res.Err}
	if w.deadline != 0 && w.endAt >= w.deadline {
		e.Runtime = w.job.Runtime
	}
	w.res.Outstanding = out
	w.res.Err = e
}

// endTime is when the job ended for the runtime figure of a job given up
// on: its deadline, or when it was stopped, or now.
func (w *worker) endTime(now int64) int64 {
	switch {
	case w.endedAt != 0:
		return w.endedAt
	case w.deadline != 0 && now >= w.deadline:
		return w.deadline
	}
	return now
}

// giveUp ends a job whose outstanding I/O the run stopped waiting for, on
// the job's own goroutine: it records the units in flight, finishes the
// result and hands it over, then waits for the kernel to return the units
// before freeing what they use.
func (w *worker) giveUp() {
	_, threaded := w.eng.(engines.Threaded) // posixaio: its threads may be blocked in pread
	if threaded {
		holdGC()
		defer releaseGC()
	}
	w.handOver()
	w.drainAbandoned()
	w.closeIO()
}

// handOver finishes the result of a job given up on, on its own
// goroutine, and hands it over; the caller then frees what the units in
// flight use once the kernel returns them.
func (w *worker) handOver() {
	now := clock.Now()
	w.ended = true
	w.endAt = w.endTime(now)
	out := w.outstanding(now, w.stallGate)
	w.finish(w.measuring, &w.ru0)
	w.stallErr(out)
	w.detached = true
	w.handOff()
}

// takeOver finishes the result of a job whose goroutine is blocked in
// the kernel in the gated call gate, from the run's goroutine, once the
// gate's compare-and-swap gave it the result. CPU figures are left out
// (they are the blocked thread's own).
func (w *worker) takeOver(gate int32, now int64) {
	holdGC()
	w.ended = true
	w.endAt = w.endTime(now)
	w.detached, w.foreign = true, true
	out := w.outstanding(now, gate)
	w.finish(w.measuring, nil)
	w.stallErr(out)
	close(w.takenDone)
	w.handOff()
}

// watch is the run's side of stalls: called every watchTick until every
// job has handed its result over, it sets the abort flag of each job
// still running past its runtime or its stop plus the grace period, and
// takes over the result of a job that does not hand it over within
// takeoverAfter because its goroutine is blocked in the kernel.
func watch(workers []*worker, grace time.Duration, now int64) {
	for _, w := range workers {
		if w.watchDone || w.gate.Load() == gateDone {
			continue
		}
		due := w.endBy.Load()
		if w.stop.Load() {
			if w.stopSeen == 0 {
				w.stopSeen = now
			}
			if d := w.stopSeen + int64(grace); due == 0 || d < due {
				due = d
			}
		}
		if due == 0 || now < due {
			continue
		}
		if w.abortAt == 0 {
			w.abortAt = now
			w.abort.Store(true)
			continue
		}
		if now-w.abortAt < int64(takeoverAfter) {
			continue
		}
		if g := w.gate.Load(); g > 0 && w.gate.CompareAndSwap(g, gateTaken) {
			w.watchDone = true
			if w.endedAt == 0 && w.stopSeen != 0 && (w.deadline == 0 || w.stopSeen < w.deadline) {
				w.endedAt = w.stopSeen
			}
			w.takeOver(g, now)
		}
	}
}

// initGates decides which of the engine's calls are gated: those that
// may block in the kernel. Engines that move no data never block; an
// asynchronous engine's Queue only stages, and its completions are
// reaped with a timeout.
func (w *worker) initGates() {
	f := w.eng.Flags()
	w.gated = f&engines.FlagNoIO == 0
	w.gateQueue = w.gated && f&engines.FlagSync != 0
	w.gateCommit = w.gated && f&engines.FlagHasCommit != 0
	if a, ok := w.eng.(engines.Abortable); ok {
		a.SetAbort(&w.abort)
	}
}
