package runner

import (
	"math/bits"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/workload"
)

// Flow control between running jobs.

// flowGroup is what the members of one flow share: written by every
// member's goroutine, so atomics, alone on their cache line.
type flowGroup struct {
	_      [64]byte
	issued atomic.Int64 // I/Os issued by the members that are running
	weight atomic.Int64 // the weights of the members that are running
	_      [48]byte
}

// flowGroups are a run's flows by ID.
type flowGroups map[int64]*flowGroup

// member returns the flow state of one job clone, nil without flow control.
func (g flowGroups) member(f workload.Flow) *flowMember {
	if f.Weight == 0 {
		return nil
	}
	grp := g[f.ID]
	if grp == nil {
		grp = &flowGroup{}
		g[f.ID] = grp
	}
	return &flowMember{g: grp, weight: int64(f.Weight), sleep: int64(f.Sleep)}
}

// flowMember is one job clone's part in a flow, owned by its goroutine.
type flowMember struct {
	g      *flowGroup
	weight int64
	issued int64 // this member's I/Os in g.issued
	sleep  int64 // ns: flow_sleep; 0 yields the CPU instead
	// A held-back member with flow_sleep owes a sleep (owed) until its
	// I/Os in flight have completed, then sleeps until wakeAt (ns; 0
	// when not sleeping). It checks its share again only after both.
	owed   bool
	wakeAt int64
	joined bool
}

// join adds the member's weight to its flow: from now on the others are
// held to their share against it. It runs when the job starts.
func (m *flowMember) join() {
	m.g.weight.Add(m.weight)
	m.joined = true
}

// leave takes the member's weight and its I/Os out of the flow, so the
// members still running keep their ratio among themselves.
func (m *flowMember) leave() {
	if !m.joined {
		return
	}
	m.g.weight.Add(-m.weight)
	m.g.issued.Add(-m.issued)
	m.issued, m.joined = 0, false
}

// admit counts the member's next I/O at time now (ns) and reports true,
// unless the member owes or is in a flow_sleep, or its share of the
// flow's I/Os already exceeds its weight's share. The share is taken
// with the I/O about to be issued counted in the flow's total
// (issued/(total+1) > weight/weights holds it back): as fio 3.33's jobs,
// measured, a job issues about four I/Os per flow_sleep against another
// of the same weight, two against one of eight times its weight, where
// the exact share would allow one. No flow can hold all its members: the
// shares cannot all exceed the weights'. Two atomic loads, and an atomic
// add when admitted; no allocation.
func (m *flowMember) admit(now int64) bool {
	if m.owed {
		return false
	}
	if m.wakeAt != 0 {
		if now < m.wakeAt {
			return false
		}
		m.wakeAt = 0
	}
	total := uint64(m.g.issued.Load()) + 1
	weights := uint64(m.g.weight.Load())
	// issued*weights > total*weight, in 128 bits: no overflow whatever
	// the counts.
	h1, l1 := bits.Mul64(uint64(m.issued), weights)
	h2, l2 := bits.Mul64(total, uint64(m.weight))
	if h1 > h2 || h1 == h2 && l1 > l2 {
		m.owed = m.sleep > 0
		return false
	}
	m.issued++
	m.g.issued.Add(1)
	return true
}

// pause waits, at time now (ns), after admit held the member back and its
// I/Os in flight have completed, as fio's jobs let theirs complete before
// they sleep: without flow_sleep it gives the CPU to another runnable
// thread, so that the job ahead runs rather than the held one spinning
// out its time slice (with more jobs than CPUs, spinning holds every job
// to a few hundred I/Os a second, as fio's); with flow_sleep it starts
// (or goes on with) the sleep, which ends flow_sleep after it started.
// The thread itself sleeps: Go's timers wake a locked thread about a
// millisecond late, ten times fio's 100 µs sleeps.
func (m *flowMember) pause(now int64) {
	if m.sleep == 0 {
		unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		return
	}
	if m.owed {
		m.owed, m.wakeAt = false, now+m.sleep
	}
	if d := min(m.wakeAt-now, maxFlowPause); d > 0 {
		ts := unix.NsecToTimespec(d)
		_ = unix.Nanosleep(&ts, nil) // EINTR: the next admit pauses again
	}
}

// maxFlowPause bounds one pause, so that a long flow_sleep still sees the
// runtime end and cancellation (the job checks again and pauses on).
const maxFlowPause = int64(100 * time.Millisecond)
