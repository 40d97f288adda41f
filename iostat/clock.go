package iostat

import (
	"syscall"
	"time"
	"unsafe"
)

// clockMonotonic is CLOCK_MONOTONIC from <time.h>.
const clockMonotonic = 1

// monotonicNow reads CLOCK_MONOTONIC: time since boot, not counting
// suspend, the same clock for every process, so snapshots saved by one
// process and compared in another still measure their interval. It is
// 0 when the call fails (never on Linux).
func monotonicNow() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
