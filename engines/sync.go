package engines

import (
	"time"

	"golang.org/x/sys/unix"
)

// inline is shared by the engines whose units complete inside Queue:
// Commit and GetEvents have nothing to do but refuse after Close, and
// Event has nothing to return.
type inline struct {
	closed bool
}

func (b *inline) Commit() error {
	if b.closed {
		return ErrClosed
	}
	return nil
}

func (b *inline) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if b.closed {
		return 0, ErrClosed
	}
	return 0, nil
}

// Event has nothing to return: the units completed in Queue.
func (b *inline) Event(i int) *Unit { return nil }

// syncBase is shared by the synchronous engines.
type syncBase struct {
	inline
	cfg  Config
	fd   int
	fds  files // fd and Config.More's
	trim trimmer
	expl explainCtx
}

func newSyncBase(name string, cfg Config) (syncBase, error) {
	b := syncBase{cfg: cfg, fd: fdOf(cfg), fds: filesOf(cfg)}
	b.trim = newTrimmer(b.fd)
	ctx, err := newExplainCtx(name, cfg)
	if err != nil {
		return b, err
	}
	b.expl = ctx
	return b, nil
}

// newExplainCtx gathers what Explain needs once, at setup.
func newExplainCtx(name string, cfg Config) (explainCtx, error) {
	c := explainCtx{engine: name, direct: cfg.Direct}
	switch name {
	case "io_uring":
		c.iopoll = cfg.HiPri
	case "pvsync2":
		c.iopoll, c.nowait = cfg.HiPri, cfg.NoWait
	}
	if cfg.File == nil {
		return c, nil
	}
	if cfg.Direct {
		lbs, err := LogicalBlockSize(cfg.File)
		if err != nil {
			return c, err
		}
		c.lbs = lbs
	}
	size, err := Size(cfg.File)
	if err != nil {
		return c, err
	}
	c.size = size
	return c, nil
}

func (b *syncBase) Flags() Flags { return FlagSync }

func (b *syncBase) Explain(u *Unit) error { return explain(u, b.expl) }

// Close does not close Config.File: the caller opened it.
func (b *syncBase) Close() error {
	b.closed = true
	return nil
}

// other performs the operations all synchronous engines do the same way.
func (b *syncBase) other(u *Unit) int64 {
	switch u.Op {
	case OpFsync:
		return sysFsync(b.fds.of(u), false)
	case OpFdatasync:
		return sysFsync(b.fds.of(u), true)
	case OpTrim:
		return b.trim.trim(u.Offset, len(u.Buf))
	}
	return -int64(unix.EINVAL)
}

// syncEngine is fio's "sync": lseek(2) then read(2)/write(2). Like fio it skips
// the lseek when the file position already is the unit's offset (sequential
// I/O), so a sequential job costs one syscall per I/O and a random one two.
type syncEngine struct {
	syncBase
	pos     int64 // the descriptor's file position; -1 when unknown
	posFile int32 // the file whose position pos is (Unit.File)
}

var _ Engine = (*syncEngine)(nil)

func newSyncEngine(cfg Config) (Engine, error) {
	b, err := newSyncBase("sync", cfg)
	if err != nil {
		return nil, err
	}
	return &syncEngine{syncBase: b, pos: -1}, nil
}

func (e *syncEngine) Name() string { return "sync" }

func (e *syncEngine) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	if u.Op != OpRead && u.Op != OpWrite {
		u.Res = e.other(u)
		return Completed, nil
	}
	fd := e.fds.of(u)
	if e.pos != u.Offset || e.posFile != u.File {
		e.posFile = u.File
		if r := sysLseek(fd, u.Offset); r < 0 {
			e.pos = -1
			u.Res = r
			return Completed, nil
		}
		e.pos = u.Offset
	}
	if u.Op == OpRead {
		u.Res = sysRead(fd, u.Buf)
	} else {
		u.Res = sysWrite(fd, u.Buf)
	}
	if u.Res >= 0 {
		e.pos += u.Res
	} else {
		e.pos = -1
	}
	return Completed, nil
}

// psync is fio's "psync": pread(2)/pwrite(2), one syscall per I/O.
type psync struct{ syncBase }

var _ Engine = (*psync)(nil)

func newPsync(cfg Config) (Engine, error) {
	b, err := newSyncBase("psync", cfg)
	if err != nil {
		return nil, err
	}
	return &psync{b}, nil
}

func (e *psync) Name() string { return "psync" }

func (e *psync) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	switch u.Op {
	case OpRead:
		u.Res = sysPread(e.fds.of(u), u.Buf, u.Offset)
	case OpWrite:
		u.Res = sysPwrite(e.fds.of(u), u.Buf, u.Offset)
	default:
		u.Res = e.other(u)
	}
	return Completed, nil
}

// pvsync2 is fio's "pvsync2": preadv2(2)/pwritev2(2) with per-I/O RWF_ flags.
// HiPri sets RWF_HIPRI (the kernel polls for the completion on devices with
// poll queues); NoWait sets RWF_NOWAIT, and an I/O that would block completes
// with Res = -EAGAIN, counted like any failed I/O.
type pvsync2 struct {
	syncBase
	flags int
	iov   unix.Iovec // the single iovec, kept here so Queue builds nothing
}

var _ Engine = (*pvsync2)(nil)

func newPvsync2(cfg Config) (Engine, error) {
	b, err := newSyncBase("pvsync2", cfg)
	if err != nil {
		return nil, err
	}
	e := &pvsync2{syncBase: b}
	if cfg.HiPri {
		e.flags |= unix.RWF_HIPRI
	}
	if cfg.NoWait {
		e.flags |= unix.RWF_NOWAIT
	}
	return e, nil
}

func (e *pvsync2) Name() string { return "pvsync2" }

func (e *pvsync2) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	switch u.Op {
	case OpRead, OpWrite:
		e.iov.Base = unsafeData(u.Buf)
		e.iov.SetLen(len(u.Buf))
		if u.Op == OpRead {
			u.Res = sysPreadv2(e.fds.of(u), &e.iov, u.Offset, e.flags)
		} else {
			u.Res = sysPwritev2(e.fds.of(u), &e.iov, u.Offset, e.flags)
		}
		e.iov.Base = nil // the engine keeps no reference to the unit's buffer
	default:
		u.Res = e.other(u)
	}
	return Completed, nil
}

// FilesReopened tells the engine its descriptors now name other open
// files (the runner's unlink_each_loop): the file position it keeps is
// unknown.
func (e *syncEngine) FilesReopened() { e.pos = -1 }
