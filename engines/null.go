package engines

import "time"

// null moves no data: every unit completes with Res = len(Buf). At depth 1 it
// completes inside Queue; at depth > 1 it behaves like an async engine (as fio's
// null does): Queue stages, Commit makes the staged units complete, GetEvents
// returns them. It measures the runner's own overhead.
type null struct {
	depth  int
	queued []*Unit // staged since the last Commit
	done   []*Unit // committed, not yet reaped
	events []*Unit // the last GetEvents batch
	closed bool
}

var _ Engine = (*null)(nil)

func newNull(cfg Config) (Engine, error) {
	d := cfg.depth()
	return &null{
		depth:  d,
		queued: make([]*Unit, 0, d),
		done:   make([]*Unit, 0, d),
		events: make([]*Unit, d),
	}, nil
}

func (e *null) Name() string { return "null" }

func (e *null) Flags() Flags {
	if e.depth == 1 {
		return FlagSync | FlagNoIO | FlagNoAlign
	}
	return FlagHasCommit | FlagNoIO | FlagNoAlign
}

func (e *null) result(u *Unit) {
	switch u.Op {
	case OpFsync, OpFdatasync:
		u.Res = 0
	default:
		u.Res = int64(len(u.Buf))
	}
}

func (e *null) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	if e.depth == 1 {
		e.result(u)
		return Completed, nil
	}
	if len(e.queued)+len(e.done) >= e.depth {
		return Busy, nil
	}
	e.queued = append(e.queued, u)
	return Queued, nil
}

func (e *null) Commit() error {
	if e.closed {
		return ErrClosed
	}
	for _, u := range e.queued {
		e.result(u)
	}
	e.done = append(e.done, e.queued...)
	clear(e.queued)
	e.queued = e.queued[:0]
	return nil
}

// GetEvents never waits: every committed unit is already complete, so min only
// matters in that it can never exceed what is there.
func (e *null) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	if max <= 0 || max > len(e.events) {
		max = len(e.events)
	}
	n := copy(e.events[:max], e.done)
	e.done = dropFront(e.done, n)
	return n, nil
}

func (e *null) Event(i int) *Unit { return e.events[i] }

func (e *null) Explain(u *Unit) error { return explain(u, explainCtx{engine: "null"}) }

func (e *null) Close() error {
	e.closed = true
	return nil
}
