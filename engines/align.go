package engines

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// CheckAlignment reports whether u satisfies O_DIRECT's rules for a target
// whose logical block size is lbs bytes: the offset, the length and the
// buffer's address must all be multiples of it. The runner calls it for every
// distinct unit shape before a direct run, so a mistake is explained up front
// instead of surfacing as EINVAL on every I/O. The error wraps ErrMisaligned
// and unix.EINVAL. fsync and fdatasync carry no range and always pass; a trim
// needs an aligned range but no buffer.
//
// The kernel's rule for the buffer address is the device's DMA alignment,
// which is often smaller than the logical block size; checking against lbs is
// stricter than needed and never wrong.
func CheckAlignment(u *Unit, lbs int) error {
	if lbs <= 0 {
		return fmt.Errorf("engines: %w: logical block size %d", ErrConfig, lbs)
	}
	if detail := misalignment(u, lbs); detail != "" {
		return fmt.Errorf("engines: %w: %s: %w", ErrMisaligned, detail, unix.EINVAL)
	}
	return nil
}

// misalignment describes what breaks O_DIRECT's rules, or returns "".
func misalignment(u *Unit, lbs int) string {
	if u.Op == OpFsync || u.Op == OpFdatasync {
		return ""
	}
	n := int64(lbs)
	addr := int64(bufAddr(u.Buf) % uintptr(lbs))
	if u.Op == OpTrim {
		addr = 0
	}
	if u.Offset%n == 0 && int64(len(u.Buf))%n == 0 && addr == 0 && len(u.Buf) > 0 {
		return ""
	}
	return fmt.Sprintf("O_DIRECT needs offset, length and buffer address to be multiples of the logical block size %d; "+
		"got offset %d len %d addr%%%d=%d", lbs, u.Offset, len(u.Buf), lbs, addr)
}

// explainCtx is what an engine knows that helps explain a failed unit.
type explainCtx struct {
	engine string
	direct bool
	lbs    int  // logical block size when direct, else 0
	iopoll bool // io_uring IOPOLL or RWF_HIPRI
	nowait bool // RWF_NOWAIT
	size   int64
}

// explain turns a failed unit into an error naming the engine, the operation
// and the errno, with the likely cause for the errnos that have a usual one.
func explain(u *Unit, c explainCtx) error {
	if u.Res >= 0 {
		return nil
	}
	errno := unix.Errno(-u.Res)
	what := fmt.Sprintf("engines: %s %s offset %d len %d", c.engine, u.Op, u.Offset, len(u.Buf))
	if u.Op == OpFsync || u.Op == OpFdatasync {
		what = fmt.Sprintf("engines: %s %s", c.engine, u.Op)
	}
	switch {
	case errno == unix.EINVAL && c.direct && c.lbs > 0:
		if detail := misalignment(u, c.lbs); detail != "" {
			return fmt.Errorf("%s: %w: %s: %w", what, ErrMisaligned, detail, errno)
		}
		return fmt.Errorf("%s: %w (offset, length and address are aligned to the logical block size %d; the file system may need a larger alignment)", what, errno, c.lbs)
	case errno == unix.EOPNOTSUPP && c.iopoll:
		return fmt.Errorf("%s: %w: %w: polled completions need O_DIRECT and a block device with poll queues "+
			"(NVMe with nvme.poll_queues > 0, /sys/block/<dev>/queue/io_poll = 1); loop devices, virtio disks and "+
			"buffered files have none: turn off hipri/IOPOLL", what, ErrIOPollUnsupported, errno)
	case errno == unix.EAGAIN && c.nowait:
		return fmt.Errorf("%s: %w: RWF_NOWAIT made an I/O that would block (data not in the page cache, "+
			"or a write that must allocate or wait) fail instead of waiting", what, errno)
	case errno == unix.ENOSPC && u.Op == OpWrite:
		return fmt.Errorf("%s: %w: the write ends past the end of the device (size %d) or the file system is full", what, errno, c.size)
	case errno == unix.EBADF && u.Op == OpWrite:
		return fmt.Errorf("%s: %w: the target was opened read-only", what, errno)
	case errno == unix.EPERM && u.Op == OpWrite:
		return fmt.Errorf("%s: %w: the device is read-only", what, errno)
	case errno == unix.EOPNOTSUPP && u.Op == OpTrim:
		return fmt.Errorf("%s: %w: the device or file system does not support discard", what, errno)
	}
	return fmt.Errorf("%s: %w", what, errno)
}
