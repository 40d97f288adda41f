package runner

import (
	"context"
	"sync/atomic"
	"time"

	"stortest.dev/clock"
	"stortest.dev/workload"
)

// sequence holds the job clones of a run back as fio's stonewall,
// wait_for and startdelay say: a clone starts once every clone of the jobs
// it waits for has finished, then after its job's start delay. As fio
// starts jobs in order and stops at a stonewall until every job before it
// has finished, a job waits for every job before the last stonewall at or
// before it, and for the jobs its wait_for names.
type sequence struct {
	jobOf []int           // worker -> index of its job
	deps  [][]int         // job -> the jobs it waits for
	delay []time.Duration // job -> startdelay
	left  []atomic.Int32  // job -> clones still running
	done  []chan struct{} // job -> closed when its last clone finishes
}

func newSequence(jobs []workload.Job) *sequence {
	s := &sequence{
		deps:  make([][]int, len(jobs)),
		delay: make([]time.Duration, len(jobs)),
		left:  make([]atomic.Int32, len(jobs)),
		done:  make([]chan struct{}, len(jobs)),
	}
	wall := 0 // the last stonewall job so far: later jobs wait for those before it
	for i, j := range jobs {
		n := max(j.NumJobs, 1)
		for range n {
			s.jobOf = append(s.jobOf, i)
		}
		s.left[i].Store(int32(n))
		s.done[i] = make(chan struct{})
		s.delay[i] = j.StartDelay
		if j.Stonewall {
			wall = i
		}
		for k := range i {
			if k < wall || (j.WaitFor != "" && jobs[k].Name == j.WaitFor) {
				s.deps[i] = append(s.deps[i], k)
			}
		}
	}
	return s
}

// wait blocks worker w until it may start and returns its start time:
// start itself when it waits for nothing, else the time it was released.
// A cancelled ctx releases it at once (it then stops at its first check).
func (s *sequence) wait(ctx context.Context, w int, start int64) int64 {
	i := s.jobOf[w]
	if len(s.deps[i]) == 0 && s.delay[i] == 0 {
		return start
	}
	for _, k := range s.deps[i] {
		select {
		case <-s.done[k]:
		case <-ctx.Done():
			return clock.Now()
		}
	}
	if d := s.delay[i]; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return clock.Now()
}

// finished records that worker w has finished.
func (s *sequence) finished(w int) {
	i := s.jobOf[w]
	if s.left[i].Add(-1) == 0 {
		close(s.done[i])
	}
}
