package workload

import (
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
