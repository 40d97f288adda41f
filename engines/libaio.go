package engines

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// iocb is the kernel's struct iocb (linux/aio_abi.h), 64 bytes. Key and RWFlags
// swap places on big-endian machines; the engine leaves both zero, so their
// order never matters.
type iocb struct {
	Data      uint64 // returned in ioEvent.Data: the engine's slot number
	Key       uint32 // written by the kernel
	RWFlags   uint32 // RWF_* flags; unused
	Opcode    uint16 // iocbCmd*
	Reqprio   int16
	Fildes    uint32
	Buf       uint64 // buffer address
	Nbytes    uint64
	Offset    int64
	Reserved2 uint64
	Flags     uint32 // IOCB_FLAG_*; unused
	Resfd     uint32
}

// ioEvent is the kernel's struct io_event, 32 bytes.
type ioEvent struct {
	Data uint64 // iocb.Data
	Obj  uint64 // the iocb's address
	Res  int64  // bytes or -errno
	Res2 int64
}

const (
	iocbCmdPread  = 0
	iocbCmdPwrite = 1
	iocbCmdFsync  = 2
	iocbCmdFdsync = 3
	// iocbFlagIOPrio: aio_reqprio holds the I/O's ioprio
	// (IOCB_FLAG_IOPRIO, linux/aio_abi.h).
	iocbFlagIOPrio = 1 << 1
)

// libaio is fio's "libaio": Linux native AIO through raw io_setup, io_submit,
// io_getevents and io_destroy. It is only asynchronous with O_DIRECT on a file
// system or device that supports it; buffered I/O is performed inside
// io_submit, which then blocks (the submission latency shows it).
//
// Trim has no AIO command: it runs synchronously when nothing is in flight and
// is Busy otherwise, so it is never reordered with queued writes.
type libaio struct {
	fd    int
	fds   files  // fd and Config.More's
	cfg   Config // keeps cfg.File referenced
	ctx   uintptr
	depth int

	iocbs    []iocb    // one per slot; the kernel reads them during io_submit
	units    []*Unit   // slot -> unit, nil when the slot is free
	free     []int32   // free slots
	pending  []*iocb   // queued since the last Commit, in order
	events   []ioEvent // io_getevents output
	done     []*Unit   // completed, not yet handed out by GetEvents
	out      []*Unit   // the last GetEvents batch
	inflight int       // submitted, not yet reaped
	ts       unix.Timespec

	trim   trimmer
	expl   explainCtx
	closed bool
}

var _ Engine = (*libaio)(nil)

func newLibaio(cfg Config) (Engine, error) {
	d := cfg.depth()
	expl, err := newExplainCtx("libaio", cfg)
	if err != nil {
		return nil, err
	}
	e := &libaio{
		fd:      fdOf(cfg),
		fds:     filesOf(cfg),
		cfg:     cfg,
		depth:   d,
		iocbs:   make([]iocb, d),
		units:   make([]*Unit, d),
		free:    make([]int32, d),
		pending: make([]*iocb, 0, d),
		events:  make([]ioEvent, d),
		done:    make([]*Unit, 0, d),
		out:     make([]*Unit, d),
		expl:    expl,
	}
	e.trim = newTrimmer(e.fd)
	for i := range e.free {
		e.free[i] = int32(d - 1 - i)
	}
	_, _, errno := unix.Syscall(unix.SYS_IO_SETUP, uintptr(d), uintptr(unsafe.Pointer(&e.ctx)), 0)
	switch errno {
	case 0:
	case unix.EAGAIN:
		return nil, fmt.Errorf("engines: libaio: io_setup(%d): %w: the system-wide AIO event limit "+
			"/proc/sys/fs/aio-max-nr is used up (or depth exceeds it): lower the depth or raise fs.aio-max-nr", d, errno)
	case unix.ENOSYS:
		return nil, fmt.Errorf("engines: libaio: io_setup: %w: %w: kernel built without CONFIG_AIO", ErrUnsupported, errno)
	default:
		return nil, fmt.Errorf("engines: libaio: io_setup(%d): %w", d, errno)
	}
	return e, nil
}

func (e *libaio) Name() string { return "libaio" }

func (e *libaio) Flags() Flags { return FlagHasCommit }

func (e *libaio) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	var op uint16
	switch u.Op {
	case OpRead:
		op = iocbCmdPread
	case OpWrite:
		op = iocbCmdPwrite
	case OpFsync:
		op = iocbCmdFsync
	case OpFdatasync:
		op = iocbCmdFdsync
	case OpTrim:
		return e.trim.alone(u, e.inflight+len(e.pending) > 0), nil
	default:
		u.Res = -int64(unix.EINVAL)
		return Completed, nil
	}
	if len(e.free) == 0 {
		return Busy, nil
	}
	slot := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	cb := &e.iocbs[slot]
	*cb = iocb{Data: uint64(slot), Opcode: op, Fildes: uint32(e.fds.of(u))}
	if op == iocbCmdPread || op == iocbCmdPwrite {
		cb.Buf = uint64(bufAddr(u.Buf))
		cb.Nbytes = uint64(len(u.Buf))
		cb.Offset = u.Offset
	}
	if u.Prio != 0 {
		cb.Flags |= iocbFlagIOPrio
		cb.Reqprio = int16(u.Prio)
	}
	e.units[slot] = u
	e.pending = append(e.pending, cb)
	return Queued, nil
}

// release frees the slot of a completed iocb and returns its unit.
func (e *libaio) release(slot uint64, res int64) *Unit {
	u := e.units[slot]
	e.units[slot] = nil
	e.free = append(e.free, int32(slot))
	u.Res = res
	return u
}

// Commit submits every pending iocb. io_submit may take fewer than offered:
// the rest are offered again. An errno for the first iocb is that unit's
// result (it completes at the next GetEvents); EAGAIN (kernel resources) waits
// for one completion, when there is one to wait for, and tries again.
func (e *libaio) Commit() error {
	if e.closed {
		return ErrClosed
	}
	for len(e.pending) > 0 {
		r, _, errno := unix.RawSyscall(unix.SYS_IO_SUBMIT, e.ctx, uintptr(len(e.pending)), uintptr(unsafe.Pointer(&e.pending[0])))
		switch {
		case errno == 0 && r > 0:
			e.inflight += int(r)
			e.shiftPending(int(r))
		case errno == unix.EINTR:
		case errno == unix.EAGAIN || errno == 0:
			if e.inflight == 0 {
				return fmt.Errorf("engines: libaio: io_submit of %d iocbs with none in flight: %w", len(e.pending), unix.EAGAIN)
			}
			if _, err := e.reap(1, e.inflight, 0); err != nil {
				return err
			}
		default:
			u := e.release(e.pending[0].Data, -int64(errno))
			e.done = append(e.done, u)
			e.shiftPending(1)
		}
	}
	return nil
}

func (e *libaio) shiftPending(n int) { e.pending = dropFront(e.pending, n) }

// reap waits for at least min and takes at most max completions into e.done.
// It returns how many it took; fewer than min only when timeout expired.
// The clock is read only when a signal cuts the wait short (the runtime's
// preemption signals do, every few ms, to a thread that waits in a raw
// system call): io_getevents takes the timeout as a duration and returns
// fewer than min only when it expires. The first signal starts the
// deadline, so a wait lasts at most twice its timeout.
func (e *libaio) reap(min, max int, timeout time.Duration) (int, error) {
	got := 0
	left := timeout
	var deadline time.Time
	for {
		var tsp uintptr
		if timeout > 0 {
			e.ts = unix.NsecToTimespec(int64(left))
			tsp = uintptr(unsafe.Pointer(&e.ts))
		}
		r, _, errno := unix.RawSyscall6(unix.SYS_IO_GETEVENTS, e.ctx, uintptr(min-got), uintptr(max-got),
			uintptr(unsafe.Pointer(&e.events[0])), tsp, 0)
		if errno == unix.EINTR {
			if timeout > 0 {
				if deadline.IsZero() {
					deadline = time.Now().Add(timeout)
				}
				if left = time.Until(deadline); left <= 0 {
					return got, nil
				}
			}
			continue
		}
		if errno != 0 {
			return got, fmt.Errorf("engines: libaio: io_getevents: %w", errno)
		}
		for i := range int(r) {
			ev := &e.events[i]
			e.done = append(e.done, e.release(ev.Data, ev.Res))
		}
		got += int(r)
		e.inflight -= int(r)
		if got >= min || timeout > 0 {
			return got, nil
		}
	}
}

func (e *libaio) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	min, max = eventBounds(min, max, e.depth, e.inflight+len(e.done))
	if need := max - len(e.done); need > 0 && e.inflight > 0 {
		want := min - len(e.done)
		if want < 0 {
			want = 0
		}
		if need > e.inflight {
			need = e.inflight
		}
		if _, err := e.reap(want, need, timeout); err != nil {
			return 0, err
		}
	}
	n := copy(e.out[:max], e.done)
	e.done = dropFront(e.done, n)
	return n, nil
}

func (e *libaio) Event(i int) *Unit { return e.out[i] }

func (e *libaio) Explain(u *Unit) error { return explain(u, e.expl) }

// Close destroys the AIO context; the kernel waits for (or cancels) I/O still
// in flight first, so Close blocks while a unit waits on a device that does
// not answer: a caller giving up on one reaps with a timeout and closes only
// once the units are back (the workload runner does so on the abandoned
// job's own goroutine). Config.File stays open.
func (e *libaio) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	for {
		_, _, errno := unix.Syscall(unix.SYS_IO_DESTROY, e.ctx, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return fmt.Errorf("engines: libaio: io_destroy: %w", errno)
		}
		return nil
	}
}
