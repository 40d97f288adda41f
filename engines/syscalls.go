package engines

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The engines pass 64-bit file offsets in one register, as the 64-bit Linux
// ABIs do; this fails to compile on 32-bit targets, where pread64 and friends
// split offsets into register pairs.
const _ = uint(unsafe.Sizeof(uintptr(0)) - 8)

// The helpers below call the kernel directly and return the result the way the
// kernel does (bytes or -errno) so that the per-I/O path never builds an error
// value: a failed I/O is data (Unit.Res), and boxing an errno into an error
// would allocate for errno values >= 256.
//
// Data transfers, and the asynchronous engines' submits and completion
// waits (io_submit, io_getevents, io_uring_enter), use RawSyscall6: the
// thread blocks in the kernel as fio's does, without the runtime's syscall
// bookkeeping. With Syscall6 the
// runtime's monitor retakes the P of every read that blocks longer than
// 20 us and hands it off, so each I/O pays futex wake-ups and a slow
// syscall exit: on a direct-I/O loop device that cost 80-110 us of CPU per
// 4k read and up to 2.5x fewer IOPS, against 21 us (as fio) raw. The price:
// a blocked transfer holds its P (the runner sizes GOMAXPROCS to its
// threads), and a stop-the-world waits for it. A preemption signal may cut
// an interruptible wait (FUSE) short with EINTR, which is retried; an
// uninterruptible one (a block device's request) holds the stop until it
// is answered, so nothing in the runner's process may serve the device
// (package faults serves its FUSE files from a child process).

// res converts a syscall return to bytes or -errno.
func res(r uintptr, errno unix.Errno) int64 {
	if errno != 0 {
		return -int64(errno)
	}
	return int64(r)
}

// bufAddr is the address of b's first byte, or 0 for an empty slice.
func bufAddr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

func sysPread(fd int, b []byte, off int64) int64 {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(off), 0, 0)
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysPwrite(fd int, b []byte, off int64) int64 {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(off), 0, 0)
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysRead(fd int, b []byte) int64 {
	for {
		r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysWrite(fd int, b []byte) int64 {
	for {
		r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysLseek(fd int, off int64) int64 {
	r, _, e := unix.Syscall(unix.SYS_LSEEK, uintptr(fd), uintptr(off), uintptr(unix.SEEK_SET))
	return res(r, e)
}

// sysPreadv2 and sysPwritev2 take one iovec owned by the engine (no per-call
// slice of iovecs to build). The position travels as (pos_l, pos_h); on 64-bit
// kernels pos_h is ignored.
func sysPreadv2(fd int, iov *unix.Iovec, off int64, flags int) int64 {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_PREADV2, uintptr(fd), uintptr(unsafe.Pointer(iov)), 1, uintptr(off), 0, uintptr(flags))
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysPwritev2(fd int, iov *unix.Iovec, off int64, flags int) int64 {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_PWRITEV2, uintptr(fd), uintptr(unsafe.Pointer(iov)), 1, uintptr(off), 0, uintptr(flags))
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

func sysFsync(fd int, data bool) int64 {
	nr := uintptr(unix.SYS_FSYNC)
	if data {
		nr = unix.SYS_FDATASYNC
	}
	for {
		r, _, e := unix.Syscall(nr, uintptr(fd), 0, 0)
		if e != unix.EINTR {
			return res(r, e)
		}
	}
}

// errnoErr converts a positive errno to an error.
func errnoErr(e int64) error {
	return unix.Errno(e)
}

// fdOf returns the descriptor of cfg.File; the engine keeps cfg.File referenced
// so the descriptor is not closed by a finalizer while the engine runs.
func fdOf(cfg Config) int {
	return int(cfg.File.Fd())
}

// files are an engine's descriptors: Config.File's, and Config.More's
// for a unit whose File is above 0.
type files struct {
	fd   int
	more []int
}

func filesOf(cfg Config) files {
	f := files{fd: fdOf(cfg)}
	for _, m := range cfg.More {
		f.more = append(f.more, int(m.Fd()))
	}
	return f
}

// of returns the descriptor of u's file.
func (f *files) of(u *Unit) int {
	if u.File == 0 {
		return f.fd
	}
	return f.more[u.File-1]
}

// all returns every descriptor, Config.File's first.
func (f *files) all() []int { return append([]int{f.fd}, f.more...) }

// unsafeData is b's first byte (nil for a nil slice), for iovec bases.
func unsafeData(b []byte) *byte { return unsafe.SliceData(b) }
