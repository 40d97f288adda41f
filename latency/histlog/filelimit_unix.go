//go:build unix

package histlog

import (
	"math"
	"syscall"
)

// raiseFileLimit returns the soft limit on open files (RLIMIT_NOFILE),
// first raised to the hard limit if it is lower, or 0 if unknown.
//
// Go (1.19 on) raises the soft limit itself as a program starts, to one
// below the hard limit, and remembers the original for the processes it
// starts (fio wants the usual limit, select(2)-based tools too). So the
// limit is left alone when it is already there: calling Setrlimit makes
// Go hand every child the raised limit. It is raised only when lower
// (someone lowered it, or Go could not raise it).
func raiseFileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	if uint64(lim.Cur)+1 < uint64(lim.Max) { // fails harmlessly for RLIM_INFINITY over the kernel's nr_open
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return int(min(uint64(lim.Cur), math.MaxInt32))
}
