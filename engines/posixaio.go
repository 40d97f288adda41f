package engines

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// posixAIO is fio's "posixaio" the way glibc implements POSIX AIO: user
// threads doing pread(2)/pwrite(2) on the caller's behalf. Queue hands the
// unit to a pool of min(Depth, MaxPosixAIOThreads) worker goroutines over a
// channel and returns Queued at once (fio's posixaio has no commit: the
// I/O is under way when aio_read returns); a worker performs it as psync
// does and sends it back; GetEvents takes what came back. Every unit in
// flight has a worker up to the pool's size, so the depth is honoured
// (glibc queues one file's requests on one thread; see doc.go).
//
// Nothing is allocated per I/O: units travel as pointers through buffered
// channels of capacity Depth, and each worker has its own trimmer.
type posixAIO struct {
	expl     explainCtx
	depth    int
	submit   chan *Unit // to the workers
	done     chan *Unit // back from them
	events   []*Unit    // reaped by the last GetEvents
	inflight int
	timer    *time.Timer
	wg       sync.WaitGroup
	closed   bool
}

// MaxPosixAIOThreads caps posixaio's worker threads per engine: glibc's
// default aio_init limit is 20; 64 lets the deepest queues fio users run
// with it still have a thread per I/O.
const MaxPosixAIOThreads = 64

// posixAIOStarted, when set (by tests, before the engine is created), is
// called on the worker's thread as it starts a unit.
var posixAIOStarted func(u *Unit)

var _ Engine = (*posixAIO)(nil)
var _ Threaded = (*posixAIO)(nil)

// Threaded is implemented by engines that perform I/O on threads of their
// own (posixaio). Their transfers block in the kernel holding a Go P, as
// the synchronous engines' do, so a caller that sizes GOMAXPROCS to its
// I/O threads counts these too.
type Threaded interface {
	Threads() int
}

func newPosixAIO(cfg Config) (Engine, error) {
	expl, err := newExplainCtx("posixaio", cfg)
	if err != nil {
		return nil, err
	}
	d := cfg.depth()
	e := &posixAIO{
		expl:   expl,
		depth:  d,
		submit: make(chan *Unit, d),
		done:   make(chan *Unit, d),
		events: make([]*Unit, 0, d),
		timer:  time.NewTimer(time.Hour),
	}
	e.timer.Stop()
	fds := filesOf(cfg)
	for range e.Threads() {
		e.wg.Add(1)
		go e.worker(fds)
	}
	return e, nil
}

func (e *posixAIO) Name() string { return "posixaio" }

// Flags: asynchronous, without a commit step (the issue time is taken
// once Queue has handed the unit over).
func (e *posixAIO) Flags() Flags { return 0 }

// Threads is the size of the worker pool.
func (e *posixAIO) Threads() int { return min(e.depth, MaxPosixAIOThreads) }

// worker performs units until the submit channel closes.
func (e *posixAIO) worker(fds files) {
	defer e.wg.Done()
	trim := newTrimmer(fds.fd)
	for u := range e.submit {
		fd := fds.of(u)
		if posixAIOStarted != nil {
			posixAIOStarted(u)
		}
		switch u.Op {
		case OpRead:
			u.Res = sysPread(fd, u.Buf, u.Offset)
		case OpWrite:
			u.Res = sysPwrite(fd, u.Buf, u.Offset)
		case OpFsync:
			u.Res = sysFsync(fd, false)
		case OpFdatasync:
			u.Res = sysFsync(fd, true)
		case OpTrim:
			u.Res = trim.trim(u.Offset, len(u.Buf))
		default:
			u.Res = -int64(unix.EINVAL)
		}
		e.done <- u
	}
}

func (e *posixAIO) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	if e.inflight >= e.depth {
		return Busy, nil
	}
	e.inflight++
	e.submit <- u // never blocks: at most depth units are out
	return Queued, nil
}

// Commit has nothing to do: Queue started the I/O.
func (e *posixAIO) Commit() error {
	if e.closed {
		return ErrClosed
	}
	return nil
}

func (e *posixAIO) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	e.events = e.events[:0]
	min, max = eventBounds(min, max, e.depth, e.inflight)
	armed := false // the timer runs only once a wait is needed
	for len(e.events) < min {
		select {
		case u := <-e.done:
			e.events = append(e.events, u)
			continue
		default:
		}
		if timeout <= 0 {
			e.events = append(e.events, <-e.done)
			continue
		}
		if !armed {
			e.timer.Reset(timeout)
			armed = true
		}
		select {
		case u := <-e.done:
			e.events = append(e.events, u)
		case <-e.timer.C:
			e.inflight -= len(e.events)
			return len(e.events), nil
		}
	}
	if armed {
		e.timer.Stop()
	}
	for len(e.events) < max {
		select {
		case u := <-e.done:
			e.events = append(e.events, u)
			continue
		default:
		}
		break
	}
	e.inflight -= len(e.events)
	return len(e.events), nil
}

func (e *posixAIO) Event(i int) *Unit { return e.events[i] }

func (e *posixAIO) Explain(u *Unit) error { return explain(u, e.expl) }

// Close stops the workers once they have finished what they hold; units
// still in flight complete into the buffers, unreaped.
func (e *posixAIO) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	close(e.submit)
	e.wg.Wait()
	return nil
}
