package runner

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"stortest.dev/clock"
	"stortest.dev/engines"
	"stortest.dev/workload"
)

// Syncs and the page cache while a job runs.

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

// due returns the sync to issue before the next I/O, or ok false: as fio,
// once the writes issued are a multiple of fsync=N (else fdatasync=N,
// else sync_file_range's N), unless the last operation was a sync; the
// next I/O's direction does not matter.
func (s *syncs) due(j *workload.Job) (engines.Op, bool) {
	if s.lastWasOne || s.writes == 0 {
		return 0, false
	}
	switch {
	case j.FsyncEvery > 0 && s.writes%int64(j.FsyncEvery) == 0:
		return engines.OpFsync, true
	case j.FdatasyncEvery > 0 && s.writes%int64(j.FdatasyncEvery) == 0:
		return engines.OpFdatasync, true
	case j.SyncFileRange.Every > 0 && s.writes%int64(j.SyncFileRange.Every) == 0:
		return workload.OpSyncFileRange, true
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
func anySync(j *workload.Job) bool {
	return j.FsyncEvery > 0 || j.FdatasyncEvery > 0 || j.SyncFileRange.Every > 0
}

// syncIfDue issues the sync fio would issue before the I/O in u, if one
// is due, then records u as issued.
func (w *worker) syncIfDue(u *engines.Unit) {
	if op, ok := w.syncState.due(&w.job); ok {
		w.syncUnit.File = u.File // fio syncs the file of the I/O it drew
		w.syncOp(op)
	}
	w.syncState.issued(u)
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
	for f := range 1 + len(w.more) { // each of the job's files
		u.Op, u.Offset, u.Buf, u.BufIndex, u.Index, u.File = engines.OpFsync, 0, nil, -1, -1, int32(f)
		if err := w.engineSync(u); err != nil {
			w.fail(fmt.Errorf("end_fsync: %w", err))
			return
		}
		if u.Res < 0 {
			w.fail(fmt.Errorf("end_fsync: %w", w.eng.Explain(u)))
			return
		}
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
func prepareCache(j *workload.Job, st *unix.Stat_t, fd int, off, size int64) error {
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
func forClone(j workload.Job, k int) workload.Job {
	j.Offset += int64(k) * j.OffsetIncrement
	return j
}

// isRegular reports whether f is a regular file.
func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// syncFlag is the open flag of SyncIO (fio's sync=).
func syncFlag(j *workload.Job) int {
	switch j.SyncIO {
	case "sync":
		return unix.O_SYNC
	case "dsync":
		return unix.O_DSYNC
	}
	return 0
}
