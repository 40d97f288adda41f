package validate

import (
	"fmt"

	"golang.org/x/sys/unix"

	"stortest.dev/workload"
)

// validateFiles checks the fields of Syncs, PageCache and the file
// options beside them of the normalized job: the option and why, or "".
func validateFiles(j *workload.Job) (string, string) {
	switch {
	case j.SyncIO != "" && j.SyncIO != "sync" && j.SyncIO != "dsync":
		return "sync", fmt.Sprintf("%q is not sync or dsync", j.SyncIO)
	case j.FdatasyncEvery < 0:
		return "fdatasync", fmt.Sprintf("negative (%d)", j.FdatasyncEvery)
	case j.SyncFileRange.Every < 0:
		return "sync_file_range", fmt.Sprintf("negative (%d)", j.SyncFileRange.Every)
	case j.SyncFileRange.Every > 0 && j.SyncFileRange.Flags&^(unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER) != 0:
		return "sync_file_range", fmt.Sprintf("unknown flags %#x", j.SyncFileRange.Flags)
	}
	switch {
	case j.OffsetIncrement < 0:
		return "offset_increment", fmt.Sprintf("negative (%d)", j.OffsetIncrement)
	case j.WriteHint < 0 || j.WriteHint >= len(workload.WriteHints):
		return "write_hint", fmt.Sprintf("unknown hint %d (want 1 to %d)", j.WriteHint, len(workload.WriteHints)-1)
	case j.FileAppend && (j.RW != workload.Write && j.RW != workload.RandWrite):
		return "file_append", fmt.Sprintf("with rw=%s is not supported by stortest (write and randwrite only)", j.RW)
	case min(j.PercentSequential[0], j.PercentSequential[1], j.PercentSequential[2]) < 0 || max(j.PercentSequential[0], j.PercentSequential[1], j.PercentSequential[2]) > 100:
		return "percentage_random", fmt.Sprintf("sequential %v: want percentages from 0 to 100", j.PercentSequential)
	case j.FileAppend && j.Size == 0:
		return "file_append", "needs size: the region after the file's end has no size of its own (fio: blocksize is larger than data set range)"
	}
	switch j.FadviseHint {
	case "", "0", "sequential", "random":
	default:
		return "fadvise_hint", fmt.Sprintf("unknown value %q (want \"\", 0, sequential or random)", j.FadviseHint)
	}
	return "", ""
}
