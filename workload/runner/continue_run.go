package runner

import (
	"golang.org/x/sys/unix"

	"stortest.dev/workload"
)

// continues reports whether a job continues after an I/O in direction d
// failed with errno, under fio's rules.
func continues(c workload.ContinueOn, d workload.Dir, errno int) bool {
	var class workload.ContinueOn
	switch {
	case errno == int(unix.EILSEQ):
		class = workload.ContinueVerify
	case errno != int(unix.EIO):
		return false // fatal, as fio treats every errno but EIO and EILSEQ
	case d == workload.DirRead:
		class = workload.ContinueRead
	default:
		class = workload.ContinueWrite
	}
	return c&class != 0
}
