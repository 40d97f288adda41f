package workload

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Flow is fio's flow control: the jobs of a run with the same flow ID
// and a weight share a count of the I/Os they have issued, and a job
// whose share of that count exceeds its share of the flows' weights is
// held back until the others catch up. Jobs with weights 1, 5 and 10 thus
// issue I/Os in the ratio 1:5:10, whatever their engines and block sizes
// (the count is of I/Os, not bytes), at the pace of the slowest in
// proportion (a rate-limited job holds the others to their multiple of
// its rate). The count is cumulative from each job's start: a job that
// starts later (stonewall, startdelay) runs unhindered until its share is
// made up, and a job that finishes takes its weight and its I/Os out of
// the count, so that the rest keep their own ratio, as fio's do.
// Read-back (verify) I/Os are not counted.
type Flow struct {
	// Weight is fio's flow: 1 to 1000; 0 (the default) leaves the job
	// out of flow control.
	Weight int `json:"weight,omitempty"`
	// ID is fio's flow_id: the jobs with the same ID (default 0) share a
	// count.
	ID int64 `json:"id,omitempty"`
	// Sleep is fio's flow_sleep (whole microseconds in a job file): how
	// long a held-back job sleeps, once its I/Os in flight have
	// completed, before it checks again. 0 (the default) checks again at
	// once, yielding the CPU in between.
	Sleep time.Duration `json:"sleep_ns,omitempty"`
}

// maxFlowWeight is fio 3.33's bound on flow=.
const maxFlowWeight = 1000

// maxFlowValue bounds flow_id and flow_sleep: fio keeps them in 32-bit
// unsigned ints.
const maxFlowValue = 1<<32 - 1

// String is the job-file text of the flow options not at their default.
func (f *Flow) String() string {
	var b strings.Builder
	if f.Weight != 0 {
		b.WriteString("flow=" + strconv.Itoa(f.Weight) + "\n")
	}
	if f.ID != 0 {
		b.WriteString("flow_id=" + strconv.FormatInt(f.ID, 10) + "\n")
	}
	if f.Sleep != 0 {
		b.WriteString("flow_sleep=" + strconv.FormatInt(int64(f.Sleep/time.Microsecond), 10) + "\n")
	}
	return b.String()
}

// validate checks the flow options: the fio option at fault and why, or "".
func (f *Flow) validate() (option, reason string) {
	switch {
	case f.Weight < 0 || f.Weight > maxFlowWeight:
		return "flow", fmt.Sprintf("%d is not in [0, %d]", f.Weight, maxFlowWeight)
	case f.ID < 0 || f.ID > maxFlowValue:
		return "flow_id", fmt.Sprintf("%d is not in [0, %d]", f.ID, int64(maxFlowValue))
	case f.Sleep < 0 || f.Sleep > maxFlowValue*time.Microsecond:
		return "flow_sleep", fmt.Sprintf("%v is not in [0, %v]", f.Sleep, maxFlowValue*time.Microsecond)
	case f.Sleep%time.Microsecond != 0:
		return "flow_sleep", fmt.Sprintf("%v is not a whole number of microseconds", f.Sleep)
	}
	return "", ""
}

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
func (g flowGroups) member(f Flow) *flowMember {
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

// maxFlowPause bounds one pause, so that a long flow_sleep still sees the
// runtime end and cancellation (the job checks again and pauses on).
const maxFlowPause = int64(100 * time.Millisecond)

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
