package runner

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/clock"
	"stortest.dev/engines"
	"stortest.dev/workload"
)

// io_submit_mode=offload.
//
// The job's goroutine prepares each I/O when the rate limit lets it go
// (stamping its start time, fio's start_time), and hands the unit over a
// channel to one of IODepth submitter goroutines, each locked to an OS
// thread with an engine of its own on the job's file, as fio gives each
// thread of its offload pool a copy of the job's engine. A submitter
// stamps the issue time (before Queue for a synchronous engine, after
// Commit for an asynchronous one), waits for the I/O, stamps its
// completion and hands the unit back. The job's goroutine never waits for
// a completion while an I/O is due and a unit is free, so submission keeps
// its schedule however slow the device is; latencies are fio's: lat from
// the preparation, so it includes the hand-off, which is what fio 3.33
// measures (not the time the schedule wanted the I/O: once every unit is
// in flight, an I/O is prepared when one comes back).
//
// Nothing is allocated per I/O: units travel through buffered channels of
// pointers, and completion times and errors sit in per-unit slots.
type offload struct {
	submit chan *engines.Unit // to the submitters; capacity IODepth
	done   chan *engines.Unit // back to the job; capacity IODepth
	engs   []engines.Engine
	sync   bool // the engine is synchronous: no slat, as fio records none
	// serialize is serialize_overlap: an I/O overlapping one in flight
	// waits for it.
	serialize bool
	wg        sync.WaitGroup

	// Per unit (Unit.Index), written by the submitter that holds the
	// unit before it sends it back.
	doneAt []int64
	errs   []error
	// Per unit, the job goroutine's own: in flight, and the range, for
	// serialize_overlap.
	busy []bool
	span [][2]int64

	measureStart int64
	// CPU the submitter threads used from their first measured I/O.
	usr, sys, ctx atomic.Int64
	majf, minf    atomic.Int64 // page faults (getrusage ru_majflt, ru_minflt)
}

// startOffload creates the submitters' engines and starts them.
func (w *worker) startOffload() (*offload, error) {
	j := &w.job
	n := j.IODepth
	o := &offload{
		submit: make(chan *engines.Unit, n),
		done:   make(chan *engines.Unit, n),
		doneAt: make([]int64, n),
		errs:   make([]error, n),
		busy:   make([]bool, n),
		span:   make([][2]int64, n),
	}
	cfg := engineConfig(j, w.file, w.bufs.All(), w.src.size)
	cfg.More = w.more
	for k := range n {
		e, err := engines.New(j.Engine, cfg)
		if err == nil && w.opts.Faults != nil {
			f := *w.opts.Faults
			f.Seed += uint64(w.res.Clone) + uint64(k)<<32
			if fe, ferr := engines.WithFaults(e, n, f); ferr != nil {
				e.Close()
				err = ferr
			} else {
				e = fe
			}
		}
		if err != nil {
			o.closeEngines()
			return nil, fmt.Errorf("workload: job %s: offload submitter %d: %w", j.Name, k, err)
		}
		if a, ok := e.(engines.Abortable); ok {
			a.SetAbort(&w.abort)
		}
		o.engs = append(o.engs, e)
	}
	o.sync = o.engs[0].Flags()&engines.FlagSync != 0
	o.serialize = j.SerializeOverlap
	return o, nil
}

func (o *offload) closeEngines() {
	for _, e := range o.engs {
		e.Close()
	}
	o.engs = nil
}

// start runs the submitters; measureStart is when CPU accounting begins.
func (o *offload) start(measureStart int64) {
	o.measureStart = measureStart
	for _, e := range o.engs {
		o.wg.Add(1)
		go o.submitter(e)
	}
}

// stop ends the submitters (nothing may be in flight) and closes their
// engines.
func (o *offload) stop() {
	close(o.submit)
	o.wg.Wait()
	o.closeEngines()
}

// submitter performs the units it receives, one at a time.
func (o *offload) submitter(e engines.Engine) {
	defer o.wg.Done()
	// Locked for good: the thread ends with the goroutine, and with it
	// the io_uring ring registered with it (engines.Config.OneThread).
	runtime.LockOSThread()
	var ru0 unix.Rusage
	counting := false
	for u := range o.submit {
		if !counting && u.Start >= o.measureStart {
			counting = true
			_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru0)
		}
		o.errs[u.Index] = o.perform(e, u)
		o.doneAt[u.Index] = clock.Now()
		o.done <- u
	}
	if counting {
		var ru1 unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru1)
		o.usr.Add(unix.TimevalToNsec(ru1.Utime) - unix.TimevalToNsec(ru0.Utime))
		o.sys.Add(unix.TimevalToNsec(ru1.Stime) - unix.TimevalToNsec(ru0.Stime))
		o.ctx.Add(ru1.Nvcsw + ru1.Nivcsw - ru0.Nvcsw - ru0.Nivcsw)
		o.majf.Add(ru1.Majflt - ru0.Majflt)
		o.minf.Add(ru1.Minflt - ru0.Minflt)
	}
}

// perform does one I/O on e and stamps its issue time.
func (o *offload) perform(e engines.Engine, u *engines.Unit) error {
	if o.sync {
		u.Issue = clock.Now()
	}
	st, err := e.Queue(u)
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	switch st {
	case engines.Completed:
		if !o.sync {
			u.Issue = clock.Now()
		}
		return nil
	case engines.Busy:
		return fmt.Errorf("queue: engine %s busy with nothing in flight", e.Name())
	}
	if err := e.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	u.Issue = clock.Now()
	n, err := e.GetEvents(1, 1, 0)
	switch {
	case err != nil:
		return fmt.Errorf("getevents: %w", err)
	case n != 1 || e.Event(0) != u:
		return fmt.Errorf("getevents: %d completions, not the unit in flight", n)
	}
	return nil
}

// runOffload is run for io_submit_mode=offload: prepare and hand off what
// is due, then wait for a completion, the next due time or the next
// second, whichever comes first.
func (w *worker) runOffload(start int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if w.opts.OnStart != nil {
		w.opts.OnStart(w.res, unix.Gettid())
	}
	j := &w.job
	o, err := w.startOffload()
	if err != nil {
		w.fail(err)
		return
	}
	w.src.pacer.Start(start)
	w.src.settle()
	w.measureStart = start + int64(j.RampTime)
	if j.RampTime > 0 {
		w.ramp.begin(start)
	}
	if j.Runtime > 0 {
		w.deadline = w.measureStart + int64(j.Runtime)
		w.endBy.Store(w.deadline + int64(w.grace))
	}
	w.initGates() // the job's own engine does its syncs
	w.nextTick = w.measureStart + int64(time.Second)
	w.nextSlice = w.measureStart + int64(workload.SliceInterval)
	o.start(w.measureStart)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	now := start

	for {
		if !w.measuring && now >= w.measureStart {
			w.measuring = true
			_ = unix.Getrusage(unix.RUSAGE_THREAD, &w.ru0)
			w.res.Start = time.Now()
		}
		if !w.ended && (w.stop.Load() || (w.deadline != 0 && now >= w.deadline)) {
			w.ended = true
			w.endedAt = now
			if w.deadline != 0 {
				w.endedAt = min(now, w.deadline)
			}
		}
		var due int64 = -1 // ns until the rate lets the next I/O go; -1: not waiting on the rate
		needDone := false  // nothing more can go before a completion
		for !w.ended && len(w.free) > 0 {
			u := w.free[len(w.free)-1]
			sst, wait := w.src.next(u, now, w.infl == 0)
			if w.prio != nil && sst != srcDone {
				u.Prio = w.prio.pick(dirOf(u.Op), int64(len(u.Buf)))
			}
			if sst == srcDone {
				w.ended = true
				break
			}
			if sst == srcDrain {
				needDone = true
				break
			}
			if sst == srcWait {
				due = wait
				break
			}
			if o.overlaps(u) {
				w.src.unget(u)
				needDone = true
				break
			}
			w.free = w.free[:len(w.free)-1]
			if anySync(j) {
				if op, ok := w.syncState.due(j); ok {
					w.drainOffload(o, timer)
					if !w.stalled {
						w.syncOp(op) // nothing in flight: on the job's own engine
					}
					if w.stalled {
						w.free = append(w.free, u)
						break
					}
				}
				w.syncState.issued(u)
			}
			u.Start = clock.Now()
			now = u.Start
			// Each submitter has one I/O at a time: fio counts depth 1
			// and batches of one under offload.
			d := w.depthsAt(now)
			d.Level[workload.LevelBucket(1)]++
			d.Submit[1]++
			d.Complete[1]++
			o.busy[u.Index] = true
			o.span[u.Index] = [2]int64{u.Offset, u.Offset + int64(len(u.Buf))}
			w.infl++
			o.submit <- u
		}
		if w.stalled || (w.abort.Load() && w.infl > 0) {
			w.giveUpOffload(o)
			return
		}
		if w.ended && w.infl == 0 {
			break
		}
		// Wait for what lets the loop go on: a completion (every unit
		// out, a drain, an overlap, the end), or the rate's due time;
		// never past the next slice, so samples keep coming in a stall.
		limit := int64(workload.SliceInterval)
		if w.measuring {
			limit = min(limit, max(w.nextSlice-now, 0))
		}
		if due >= 0 {
			limit = min(limit, due)
		} else if !(needDone || w.ended || len(w.free) == 0) {
			limit = 0
		}
		if limit > 0 || w.infl > 0 {
			w.awaitOffload(o, timer, limit)
		}
		now = clock.Now()
		if w.measuring && now >= w.nextSlice {
			w.slice(now)
		}
		if w.measuring && now >= w.nextTick {
			w.tick(now)
		}
	}
	w.endSync()
	if w.stalled {
		w.giveUpOffload(o)
		return
	}
	w.finish(w.measuring, &w.ru0)
	o.stop()
	if w.measuring {
		w.res.UsrCPU += time.Duration(o.usr.Load())
		w.res.SysCPU += time.Duration(o.sys.Load())
		w.res.Ctx += uint64(o.ctx.Load())
		w.res.MajFlt += uint64(o.majf.Load())
		w.res.MinFlt += uint64(o.minf.Load())
	}
}

// awaitOffload accounts completions: it waits up to limit ns for one
// (not at all when limit <= 0), then takes every other one already back.
func (w *worker) awaitOffload(o *offload, timer *time.Timer, limit int64) {
	if limit > 0 {
		timer.Reset(time.Duration(limit))
		select {
		case u := <-o.done:
			timer.Stop()
			w.offloaded(o, u)
		case <-timer.C:
		}
	}
	for {
		select {
		case u := <-o.done:
			w.offloaded(o, u)
		default:
			return
		}
	}
}

// drainOffload waits until nothing is in flight, or until the run stops
// waiting (w.stalled).
func (w *worker) drainOffload(o *offload, timer *time.Timer) {
	for w.infl > 0 {
		if w.abort.Load() {
			w.stalled = true
			return
		}
		w.awaitOffload(o, timer, int64(reapPoll))
	}
}

// giveUpOffload ends an offload job whose outstanding I/O the run stopped
// waiting for: the result goes to the run, then the submitters finish
// what they hold (when the kernel lets them) and their engines, the
// buffers and the file are freed.
func (w *worker) giveUpOffload(o *offload) {
	holdGC() // the submitters may be blocked in the kernel
	defer releaseGC()
	w.handOver()
	close(o.submit)
	o.wg.Wait()
	o.closeEngines()
	w.closeIO()
}

// offloaded accounts a unit a submitter handed back.
func (w *worker) offloaded(o *offload, u *engines.Unit) {
	w.infl--
	o.busy[u.Index] = false
	if err := o.errs[u.Index]; err != nil {
		o.errs[u.Index] = nil
		if errors.Is(err, engines.ErrAborted) {
			w.stalled = true // never completed: the run stopped waiting
			return
		}
		w.free = append(w.free, u)
		w.fail(err)
		return
	}
	if !o.sync && u.Issue >= w.measureStart {
		d := dirOf(u.Op)
		slat := uint64(u.Issue - u.Start)
		w.res.Dirs[d].Slat.Add(slat)
		if w.logs != nil {
			w.logs.slat(u.Issue-w.measureStart, d, slat, uint64(len(u.Buf)), u.Offset, u.Prio)
		}
	}
	// Submitters finish out of order: the last completion is the latest.
	last := w.lastDone
	w.complete(u, o.doneAt[u.Index])
	w.lastDone = max(w.lastDone, last)
}

// overlaps reports whether serialize_overlap holds u back: its range
// overlaps an I/O in flight.
func (o *offload) overlaps(u *engines.Unit) bool {
	if !o.serialize {
		return false
	}
	lo, hi := u.Offset, u.Offset+int64(len(u.Buf))
	for i, b := range o.busy {
		if b && o.span[i][0] < hi && lo < o.span[i][1] {
			return true
		}
	}
	return false
}

// extraThreads is the number of I/O threads the workers start beside
// their own: offload submitters, and the pools of threaded engines
// (posixaio). Each blocks in the kernel holding a P, as the job threads do.
func extraThreads(workers []*worker) int {
	n := 0
	for _, w := range workers {
		pool := 0
		if th, ok := w.eng.(engines.Threaded); ok {
			pool = th.Threads()
		}
		if w.job.Offload {
			n += w.job.IODepth * (1 + pool) // each submitter has an engine
		} else {
			n += pool
		}
	}
	return n
}
