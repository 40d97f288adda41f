package engines

import "golang.org/x/sys/unix"

// falloc is fio's "falloc": no data moves, each unit allocates or frees
// its range of the file with fallocate(2), as fio 3.33's engine does
// (checked with strace): a read is fallocate(FALLOC_FL_KEEP_SIZE), a
// write fallocate(0), which may extend the file, and a trim punches a
// hole (FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE). A unit that succeeds
// counts its length, as fio counts it.
type falloc struct{ syncBase }

var _ Engine = (*falloc)(nil)

func newFalloc(cfg Config) (Engine, error) {
	b, err := newSyncBase("falloc", cfg)
	if err != nil {
		return nil, err
	}
	return &falloc{b}, nil
}

func (e *falloc) Name() string { return "falloc" }

// Flags: no O_DIRECT alignment applies, and no data moves (nothing to
// verify).
func (e *falloc) Flags() Flags { return FlagSync | FlagNoIO | FlagNoAlign }

func (e *falloc) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	var mode uintptr
	switch u.Op {
	case OpRead:
		mode = unix.FALLOC_FL_KEEP_SIZE
	case OpWrite:
		mode = 0
	case OpTrim:
		mode = unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE
	default:
		u.Res = e.other(u)
		return Completed, nil
	}
	u.Res = sysFallocate(e.fd, mode, u.Offset, len(u.Buf))
	return Completed, nil
}

// sysFallocate returns n or -errno. Like the data transfers (see
// syscalls.go), the calls of the engines that move no data are raw: a
// call that waits for the inode's lock would otherwise pay the runtime's
// hand-off of the thread's P, tens of microseconds each.
func sysFallocate(fd int, mode uintptr, off int64, n int) int64 {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_FALLOCATE, uintptr(fd), mode, uintptr(off), uintptr(n), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return res(r, e)
		}
		return int64(n)
	}
}

// ftruncate is fio's "ftruncate": a write sets the file's size to the
// unit's offset with ftruncate(2) (the block size only counts the bytes,
// as in fio, whose engine does the same: a sequential job truncates to
// 0, 4k, 8k, ...). Reads and trims fail with EINVAL, as fio's do.
type ftruncate struct{ syncBase }

var _ Engine = (*ftruncate)(nil)

func newFtruncate(cfg Config) (Engine, error) {
	b, err := newSyncBase("ftruncate", cfg)
	if err != nil {
		return nil, err
	}
	return &ftruncate{b}, nil
}

func (e *ftruncate) Name() string { return "ftruncate" }

func (e *ftruncate) Flags() Flags { return FlagSync | FlagNoIO | FlagNoAlign }

func (e *ftruncate) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	switch u.Op {
	case OpWrite:
		for {
			r, _, errno := unix.RawSyscall(unix.SYS_FTRUNCATE, uintptr(e.fd), uintptr(u.Offset), 0)
			if errno == unix.EINTR {
				continue
			}
			u.Res = res(r, errno)
			if u.Res == 0 {
				u.Res = int64(len(u.Buf))
			}
			break
		}
	case OpFsync, OpFdatasync:
		u.Res = e.other(u)
	default:
		u.Res = -int64(unix.EINVAL)
	}
	return Completed, nil
}
