package engines

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// trimmer discards ranges: BLKDISCARD on block devices, a punched hole
// (fallocate PUNCH_HOLE|KEEP_SIZE) in regular files. The ioctl's range lives in
// the struct so the call allocates nothing.
type trimmer struct {
	fd    int
	block bool
	rng   [2]uint64 // start, length in bytes (BLKDISCARD's argument)
}

func newTrimmer(fd int) trimmer {
	var st unix.Stat_t
	block := unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK
	return trimmer{fd: fd, block: block}
}

// alone is a trim for an asynchronous engine, which has no portable
// asynchronous discard: as fio does, it runs the trim synchronously, and
// only once nothing else is in flight (busy false; until then Busy).
func (t *trimmer) alone(u *Unit, busy bool) Status {
	if busy {
		return Busy
	}
	u.Res = t.trim(u.Offset, len(u.Buf))
	return Completed
}

// trim returns the length discarded or -errno.
func (t *trimmer) trim(off int64, n int) int64 {
	if t.block {
		t.rng[0], t.rng[1] = uint64(off), uint64(n)
		r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(t.fd), unix.BLKDISCARD, uintptr(unsafe.Pointer(&t.rng)))
		if e != 0 {
			return res(r, e)
		}
		return int64(n)
	}
	for {
		r, _, e := unix.Syscall6(unix.SYS_FALLOCATE, uintptr(t.fd), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, uintptr(off), uintptr(n), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return res(r, e)
		}
		return int64(n)
	}
}
