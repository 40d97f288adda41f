package workload

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
)

// Syncs are fio's options about syncing a job's writes; Job embeds it,
// so the fields read as Job's.
type Syncs struct {
	// FdatasyncEvery issues an fdatasync after every N writes (fio's
	// fdatasync=N). As fio, a job with both fsync and fdatasync due at
	// once does the fsync; neither follows another sync directly.
	FdatasyncEvery int `json:"fdatasync,omitempty"`
	// SyncFileRange is fio's sync_file_range=flags:N.
	SyncFileRange SyncFileRange `json:"sync_file_range,omitzero"`
	// EndFsync (fio's end_fsync) and FsyncOnClose (fsync_on_close) fsync
	// a writing job's file once its I/O is done, within its runtime but
	// not in the sync statistics, as fio 3.33 does; both together sync
	// once.
	EndFsync     bool `json:"end_fsync,omitempty"`
	FsyncOnClose bool `json:"fsync_on_close,omitempty"`
	// NoCreateFsync is fio's create_fsync=0: a file laid out before the
	// job is not fsynced after it (fio's default syncs it).
	NoCreateFsync bool `json:"create_fsync_off,omitempty"`
}

// PageCache are fio's options about the page cache and the kernel's
// read-ahead over a job's file before its I/O; Job embeds it, so the
// fields read as Job's.
type PageCache struct {
	// PreRead is fio's pre_read: read the job's region once, buffered,
	// before the job starts, so its reads find the page cache warm; it
	// turns invalidation off, as in fio. Not for block devices opened
	// with direct=1 (the reads would bypass the cache).
	PreRead bool `json:"pre_read,omitempty"`
	// NoInvalidate is fio's invalidate=0. By default, as fio does when it
	// opens a file, the job drops its region of a regular file from the
	// page cache (posix_fadvise DONTNEED) and a block device's cache
	// (BLKFLSBUF) before its first I/O; engines that move no data skip
	// it.
	NoInvalidate bool `json:"invalidate_off,omitempty"`
	// FadviseHint is fio's fadvise_hint, given to posix_fadvise over the
	// job's region when the file is opened: "" (fio's default 1) advises
	// random or sequential after the job's pattern; "0" gives no advice;
	// "sequential" and "random" force one.
	FadviseHint string `json:"fadvise_hint,omitempty"`
}

// writeHints are fio's names of the write life time hints, by value.
var WriteHints = [...]string{1: "none", 2: "short", 3: "medium", 4: "long", 5: "extreme"}

// SyncFileRange is fio's sync_file_range=flags:N: after every Every
// writes, sync_file_range(2) over the bytes written since the last sync
// with Flags (SYNC_FILE_RANGE_* of wait_before, write, wait_after).
// Every 0 means off.
type SyncFileRange struct {
	Flags int `json:"flags,omitempty"`
	Every int `json:"every,omitempty"`
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

// ParseSyncFileRange reads fio's sync_file_range value: flags joined by
// ',' (wait_before, write, wait_after), then optionally ":N" (default 1).
func ParseSyncFileRange(v string) (SyncFileRange, error) {
	flags, nr, hasNr := strings.Cut(v, ":")
	s := SyncFileRange{Every: 1}
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
			return SyncFileRange{}, fmt.Errorf("unknown sync_file_range flag %q (want wait_before, write, wait_after)", f)
		}
	}
	if hasNr {
		n, err := ParseCount(strings.TrimSpace(nr), 1<<31-1)
		if err != nil {
			return SyncFileRange{}, err
		}
		if n < 1 {
			return SyncFileRange{}, fmt.Errorf("every %d writes: want at least 1", n)
		}
		s.Every = int(n)
	}
	return s, nil
}

// String is the value in fio's syntax, "" when off.
func (s SyncFileRange) String() string {
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

// validateFiles checks the fields of Syncs, PageCache and the file
// options beside them of the normalized job: the option and why, or "".
func (j *Job) validateFiles() (string, string) {
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
	case j.WriteHint < 0 || j.WriteHint >= len(WriteHints):
		return "write_hint", fmt.Sprintf("unknown hint %d (want 1 to %d)", j.WriteHint, len(WriteHints)-1)
	case j.FileAppend && (j.RW != Write && j.RW != RandWrite):
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

// filesString prints those options in job-file syntax, for
// Job.String.
func (j *Job) filesString() string {
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.FdatasyncEvery != 0 {
		kv("fdatasync", strconv.Itoa(j.FdatasyncEvery))
	}
	if s := j.SyncFileRange.String(); s != "" {
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
		kv("write_hint", WriteHints[j.WriteHint])
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

// opSyncFileRange marks sync_file_range in due's answer; the runner does
// it itself (no engine has it).
const OpSyncFileRange = engines.Op(255)

// SyncName is op's name in errors.
func SyncName(op engines.Op) string {
	if op == OpSyncFileRange {
		return "sync_file_range"
	}
	return op.String()
}

// SyncFlag is the open flag of SyncIO (fio's sync=).
func (j *Job) SyncFlag() int {
	switch j.SyncIO {
	case "sync":
		return unix.O_SYNC
	case "dsync":
		return unix.O_DSYNC
	}
	return 0
}
