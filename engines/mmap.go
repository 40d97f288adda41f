package engines

import (
	"fmt"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// mmapEngine is fio's "mmap": the target is mapped once (MAP_SHARED, from
// offset 0 for Config.Size bytes) and reads and writes are memory copies;
// fsync and fdatasync are msync(MS_SYNC) of the whole mapping. It is
// synchronous.
//
// Beyond the mapped size a read returns 0 bytes (end of file, as pread does)
// and a write fails with -ENOSPC (as on a block device). If the file shrinks
// under the mapping, the copy faults; the fault is caught and the unit fails
// with -EIO instead of crashing the process.
type mmapEngine struct {
	syncBase
	mem      []byte
	writable bool
}

var _ Engine = (*mmapEngine)(nil)

func newMmap(cfg Config) (Engine, error) {
	b, err := newSyncBase("mmap", cfg)
	if err != nil {
		return nil, err
	}
	b.expl.lbs = 0 // memory copies have no alignment rule
	flags, err := unix.FcntlInt(uintptr(b.fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, fmt.Errorf("engines: mmap: F_GETFL: %w", err)
	}
	writable := flags&unix.O_ACCMODE != unix.O_RDONLY
	size := cfg.Size
	cur, err := Size(cfg.File)
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		size = cur
	}
	if size <= 0 {
		return nil, fmt.Errorf("engines: %w: mmap: %s is empty and Config.Size is 0: nothing to map", ErrConfig, cfg.File.Name())
	}
	st, err := fstat(cfg.File)
	if err != nil {
		return nil, err
	}
	if size > cur {
		if isBlockDev(&st) || !writable {
			return nil, fmt.Errorf("engines: %w: mmap: Config.Size %d exceeds the size %d of %s", ErrConfig, size, cur, cfg.File.Name())
		}
		if err := unix.Ftruncate(b.fd, size); err != nil {
			return nil, fmt.Errorf("engines: mmap: extend %s to %d bytes: %w", cfg.File.Name(), size, err)
		}
	}
	prot := unix.PROT_READ
	if writable {
		prot |= unix.PROT_WRITE
	}
	mem, err := unix.Mmap(b.fd, 0, int(size), prot, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("engines: mmap %s (%d bytes): %w", cfg.File.Name(), size, err)
	}
	b.expl.size = size
	return &mmapEngine{syncBase: b, mem: mem, writable: writable}, nil
}

func (e *mmapEngine) Name() string { return "mmap" }

func (e *mmapEngine) Flags() Flags { return FlagSync | FlagNoAlign }

func (e *mmapEngine) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	switch u.Op {
	case OpRead, OpWrite:
		u.Res = e.copy(u)
	case OpFsync, OpFdatasync:
		u.Res = e.msync()
	default:
		u.Res = e.other(u)
	}
	return Completed, nil
}

func (e *mmapEngine) msync() int64 {
	r, _, errno := unix.Syscall(unix.SYS_MSYNC, bufAddr(e.mem), uintptr(len(e.mem)), unix.MS_SYNC)
	return res(r, errno)
}

// copy moves the unit's bytes; a fault on the mapping (SIGBUS when the file
// was truncated, an I/O error paging in) becomes -EIO.
func (e *mmapEngine) copy(u *Unit) (n int64) {
	size := int64(len(e.mem))
	if u.Offset < 0 {
		return -int64(unix.EINVAL)
	}
	if u.Op == OpWrite {
		if !e.writable {
			return -int64(unix.EBADF)
		}
		if u.Offset+int64(len(u.Buf)) > size {
			return -int64(unix.ENOSPC)
		}
	}
	if u.Offset >= size {
		return 0
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			n = -int64(unix.EIO)
		}
	}()
	if u.Op == OpRead {
		return int64(copy(u.Buf, e.mem[u.Offset:]))
	}
	return int64(copy(e.mem[u.Offset:], u.Buf))
}

// Close unmaps the target; Config.File stays open.
func (e *mmapEngine) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if err := unix.Munmap(e.mem); err != nil {
		return fmt.Errorf("engines: mmap: unmap: %w", err)
	}
	e.mem = nil
	return nil
}
