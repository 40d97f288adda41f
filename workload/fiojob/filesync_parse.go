package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"stortest.dev/workload"
)

// filesString prints those options in job-file syntax, for
// Format.
func filesString(j *workload.Job) string {
	var b jobText
	b.num("fdatasync", int64(j.FdatasyncEvery), 0)
	b.str("sync_file_range", syncFileRangeString(j.SyncFileRange))
	b.flag("end_fsync", j.EndFsync)
	b.flag("fsync_on_close", j.FsyncOnClose)
	b.flag("create_only", j.CreateOnly)
	b.flag("pre_read", j.PreRead)
	b.unflag("create_fsync", j.NoCreateFsync)
	b.unflag("invalidate", j.NoInvalidate)
	b.str("fadvise_hint", j.FadviseHint)
	b.num("offset_increment", j.OffsetIncrement, 0)
	b.flag("allrandrepeat", j.AllRandRepeat)
	if j.WriteHint != 0 {
		b.kv("write_hint", writeHintString(j.WriteHint))
	}
	b.flag("file_append", j.FileAppend)
	b.unflag("overwrite", j.NoOverwrite)
	b.str("sync", j.SyncIO)
	b.unflag("allow_file_create", j.NoFileCreate)
	if ps := j.PercentSequential; ps != ([3]int64{}) {
		b.kv("percentage_random", fmt.Sprintf("%d,%d,%d", 100-ps[0], 100-ps[1], 100-ps[2]))
	}
	return b.String()
}

// writeHintString is write_hint's value: the hint's name, or for a
// value without one (a job not validated) its number, which neither
// fio nor Parse reads.
func writeHintString(h int) string {
	if h > 0 && h < len(workload.WriteHints) {
		return workload.WriteHints[h]
	}
	return strconv.Itoa(h)
}

// sfrFlags are fio's names of the sync_file_range flags, in fio's order.
var sfrFlags = [...]struct {
	name string
	flag int
}{
	{"wait_before", unix.SYNC_FILE_RANGE_WAIT_BEFORE},
	{"write", unix.SYNC_FILE_RANGE_WRITE},
	{"wait_after", unix.SYNC_FILE_RANGE_WAIT_AFTER},
}

// parseSyncFileRange reads fio's sync_file_range value: flags joined by
// ',' (wait_before, write, wait_after), then optionally ":N" (default 1).
func parseSyncFileRange(v string) (workload.SyncFileRange, error) {
	flags, nr, hasNr := strings.Cut(v, ":")
	s := workload.SyncFileRange{Every: 1}
	for _, f := range strings.Split(flags, ",") {
		f = strings.TrimSpace(f)
		found := false
		for _, k := range sfrFlags {
			if f == k.name {
				s.Flags |= k.flag
				found = true
			}
		}
		if !found {
			return workload.SyncFileRange{}, fmt.Errorf("unknown sync_file_range flag %q (want wait_before, write, wait_after)", f)
		}
	}
	if hasNr {
		n, err := ParseCount(strings.TrimSpace(nr), 1<<31-1)
		if err != nil {
			return workload.SyncFileRange{}, err
		}
		if n < 1 {
			return workload.SyncFileRange{}, fmt.Errorf("every %d writes: want at least 1", n)
		}
		s.Every = int(n)
	}
	return s, nil
}

// String is the value in fio's syntax, "" when off.
func syncFileRangeString(s workload.SyncFileRange) string {
	if s.Every == 0 {
		return ""
	}
	var names []string
	for _, k := range sfrFlags {
		if s.Flags&k.flag != 0 {
			names = append(names, k.name)
		}
	}
	return strings.Join(names, ",") + ":" + strconv.Itoa(s.Every)
}
