package workload

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"stortest.dev/clock"
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
var writeHints = [...]string{1: "none", 2: "short", 3: "medium", 4: "long", 5: "extreme"}

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
// options beside them of the normalized job: the option
// and why, or "".
func (j *Job) validateFiles() (string, string) {
	switch {
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
	case j.WriteHint < 0 || j.WriteHint >= len(writeHints):
		return "write_hint", fmt.Sprintf("unknown hint %d (want 1 to %d)", j.WriteHint, len(writeHints)-1)
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
		kv("write_hint", writeHints[j.WriteHint])
	}
	if j.FileAppend {
		kv("file_append", "1")
	}
	if ps := j.PercentSequential; ps != ([3]int64{}) {
		kv("percentage_random", fmt.Sprintf("%d,%d,%d", 100-ps[0], 100-ps[1], 100-ps[2]))
	}
	return b.String()
}

// syncs is a worker's state of fio's sync options: which sync is due,
// as fio picks one before each I/O.
type syncs struct {
	writes     int64 // writes issued
	lastWasOne bool  // the last operation was a sync: no sync follows it
	// first and last bound the bytes written since the last sync, for
	// sync_file_range, when ranged.
	first, last int64
	ranged      bool
}

// opSyncFileRange marks sync_file_range in due's answer; the runner does
// it itself (no engine has it).
const opSyncFileRange = engines.Op(255)

// due returns the sync to issue before the next I/O, or ok false: as fio,
// once the writes issued are a multiple of fsync=N (else fdatasync=N,
// else sync_file_range's N), unless the last operation was a sync; the
// next I/O's direction does not matter.
func (s *syncs) due(j *Job) (engines.Op, bool) {
	if s.lastWasOne || s.writes == 0 {
		return 0, false
	}
	switch {
	case j.FsyncEvery > 0 && s.writes%int64(j.FsyncEvery) == 0:
		return engines.OpFsync, true
	case j.FdatasyncEvery > 0 && s.writes%int64(j.FdatasyncEvery) == 0:
		return engines.OpFdatasync, true
	case j.SyncFileRange.Every > 0 && s.writes%int64(j.SyncFileRange.Every) == 0:
		return opSyncFileRange, true
	}
	return 0, false
}

// issued records an I/O about to be issued.
func (s *syncs) issued(u *engines.Unit) {
	s.lastWasOne = false
	if u.Op != engines.OpWrite {
		return
	}
	s.writes++
	end := u.Offset + int64(len(u.Buf))
	if !s.ranged {
		s.first, s.last, s.ranged = u.Offset, end, true
		return
	}
	s.first, s.last = min(s.first, u.Offset), max(s.last, end)
}

// synced records a sync: the range starts again.
func (s *syncs) synced() {
	s.lastWasOne = true
	s.ranged = false
}

// anySync reports whether the job issues syncs between its I/Os.
func (j *Job) anySync() bool {
	return j.FsyncEvery > 0 || j.FdatasyncEvery > 0 || j.SyncFileRange.Every > 0
}

// syncIfDue issues the sync fio would issue before the I/O in u, if one
// is due, then records u as issued.
func (w *worker) syncIfDue(u *engines.Unit) {
	if op, ok := w.syncState.due(&w.job); ok {
		w.syncOp(op)
	}
	w.syncState.issued(u)
}

// syncName is op's name in errors.
func syncName(op engines.Op) string {
	if op == opSyncFileRange {
		return "sync_file_range"
	}
	return op.String()
}

// syncFileRange performs sync_file_range over the bytes written since
// the last sync (nothing when there are none, as fio) and returns the
// result as a unit's Res.
func (w *worker) syncFileRange() int64 {
	s := &w.syncState
	if w.file == nil || !s.ranged || s.last <= s.first {
		return 0
	}
	if err := unix.SyncFileRange(int(w.file.Fd()), s.first, s.last-s.first, w.job.SyncFileRange.Flags); err != nil {
		if en, ok := err.(unix.Errno); ok {
			return -int64(en)
		}
		return -int64(unix.EIO)
	}
	return 0
}

// endSync is end_fsync and fsync_on_close: once the job's I/O is done,
// fsync its file unless the last operation was a sync, with the time it
// takes in the job's runtime but not in the sync statistics (fio 3.33).
func (w *worker) endSync() {
	j := &w.job
	if !(j.EndFsync || j.FsyncOnClose) || !j.RW.Writes() || w.file == nil || w.syncState.lastWasOne {
		return
	}
	u := &w.syncUnit
	u.Op, u.Offset, u.Buf, u.BufIndex, u.Index = engines.OpFsync, 0, nil, -1, -1
	if err := w.engineSync(u); err != nil {
		w.fail(fmt.Errorf("end_fsync: %w", err))
		return
	}
	if u.Res < 0 {
		w.fail(fmt.Errorf("end_fsync: %w", w.eng.Explain(u)))
		return
	}
	w.syncState.synced()
	if w.syncState.writes > 0 {
		w.lastDone = max(w.lastDone, clock.Now())
	}
}

// prepareCache applies invalidate, pre_read and fadvise_hint to the
// job's open file (a regular file or a block device of size bytes) over
// the job's region, as fio does when it opens a file.
func (w *worker) prepareCache(size int64) error {
	j := &w.job
	var st unix.Stat_t
	fd := int(w.file.Fd())
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	off := j.Offset
	n := j.Size
	if n == 0 || off+n > size {
		n = max(size-off, 0)
	}
	return prepareCache(j, &st, fd, off, n)
}

// prepareCache is worker.prepareCache for file descriptor fd, of type
// st, and the region [off, off+size).
func prepareCache(j *Job, st *unix.Stat_t, fd int, off, size int64) error {
	regular := st.Mode&unix.S_IFMT == unix.S_IFREG
	block := st.Mode&unix.S_IFMT == unix.S_IFBLK
	if !regular && !block {
		return nil
	}
	if j.PreRead {
		if err := preRead(fd, off, size, j.MaxBlockSize()); err != nil {
			return fmt.Errorf("pre_read: %w", err)
		}
	} else if !j.NoInvalidate {
		// A failure is not fatal to fio either (it says so and goes on):
		// BLKFLSBUF needs CAP_SYS_ADMIN.
		if regular {
			_ = unix.Fadvise(fd, off, size, unix.FADV_DONTNEED)
		} else {
			_ = unix.IoctlSetInt(fd, unix.BLKFLSBUF, 0)
		}
	}
	if j.WriteHint != 0 {
		cmd := unix.F_SET_RW_HINT
		if j.Direct {
			cmd = unix.F_SET_FILE_RW_HINT
		}
		hint := uint64(j.WriteHint)
		if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(unsafe.Pointer(&hint))); e != 0 {
			return fmt.Errorf("fcntl write hint: %w", e)
		}
	}
	advice := -1
	switch j.FadviseHint {
	case "":
		advice = unix.FADV_SEQUENTIAL
		if j.RW.Random() {
			advice = unix.FADV_RANDOM
		}
	case "sequential":
		advice = unix.FADV_SEQUENTIAL
	case "random":
		advice = unix.FADV_RANDOM
	}
	if advice >= 0 {
		_ = unix.Fadvise(fd, off, size, advice) // advice only: fio warns and goes on
	}
	return nil
}

// preRead reads [off, off+size) of fd with buffered reads of bs bytes, as
// fio's pre_read does. A file opened with O_DIRECT is read through a
// second, buffered descriptor so that the cache fills.
func preRead(fd int, off, size, bs int64) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if flags&unix.O_DIRECT != 0 {
		dup, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(dup)
		fd = dup
	}
	buf := make([]byte, max(min(bs, size), 1))
	for done := int64(0); done < size; {
		n, err := unix.Pread(fd, buf[:min(int64(len(buf)), size-done)], off+done)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("end of file at %d", off+done)
		}
		done += int64(n)
	}
	return nil
}

// engineSync performs the fsync or fdatasync in u through the engine,
// nothing being in flight, and waits for it.
// The calls are gated (stall.go): the run can take the result over from
// an fsync blocked on a hung device; an injected stall that the run
// aborts, or a wait it gives up, sets w.stalled.
func (w *worker) engineSync(u *engines.Unit) error {
	u.Issue = clock.Now()
	if w.gated {
		w.gate.Store(gateSync)
	}
	st, err := w.eng.Queue(u)
	if err == nil && st == engines.Queued {
		err = w.eng.Commit()
		if err == nil {
			var n int
			n, err = w.getEvents(1, 1)
			if n == 0 && err == nil && !w.stalled {
				err = fmt.Errorf("getevents: no completion for the %s", u.Op)
			}
		}
	}
	if w.gated {
		w.leaveGate(gateSync)
	}
	if errors.Is(err, engines.ErrAborted) {
		w.stalled, err = true, nil
	}
	if w.stalled {
		w.stallGate = gateSync // the sync is what is outstanding
	}
	return err
}

// forClone returns the job as clone k runs it: offset_increment moves
// its region.
func (j Job) forClone(k int) Job {
	j.Offset += int64(k) * j.OffsetIncrement
	return j
}

// isRegular reports whether f is a regular file.
func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
