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
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.FdatasyncEvery != 0 {
		kv("fdatasync", strconv.Itoa(j.FdatasyncEvery))
	}
	if s := syncFileRangeString(j.SyncFileRange); s != "" {
		kv("sync_file_range", s)
	}
	for _, f := range [...]struct {
		name string
		on   bool
	}{{"end_fsync", j.EndFsync}, {"fsync_on_close", j.FsyncOnClose}, {"create_only", j.CreateOnly}, {"pre_read", j.PreRead}} {
		if f.on {
			kv(f.name, "1")
		}
	}
	if j.NoCreateFsync {
		kv("create_fsync", "0")
	}
	if j.NoInvalidate {
		kv("invalidate", "0")
	}
	if j.FadviseHint != "" {
		kv("fadvise_hint", j.FadviseHint)
	}
	if j.OffsetIncrement != 0 {
		kv("offset_increment", strconv.FormatInt(j.OffsetIncrement, 10))
	}
	if j.AllRandRepeat {
		kv("allrandrepeat", "1")
	}
	if j.WriteHint != 0 {
		kv("write_hint", workload.WriteHints[j.WriteHint])
	}
	if j.FileAppend {
		kv("file_append", "1")
	}
	if j.NoOverwrite {
		kv("overwrite", "0")
	}
	if j.SyncIO != "" {
		kv("sync", j.SyncIO)
	}
	if j.NoFileCreate {
		kv("allow_file_create", "0")
	}
	if ps := j.PercentSequential; ps != ([3]int64{}) {
		kv("percentage_random", fmt.Sprintf("%d,%d,%d", 100-ps[0], 100-ps[1], 100-ps[2]))
	}
	return b.String()
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
