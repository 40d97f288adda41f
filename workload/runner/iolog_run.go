package runner

import (
	"fmt"

	"stortest.dev/engines"
	"stortest.dev/fio"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// I/O logs while a job runs: the replay and the log written.

// replayIO is one action of a replayed log.
type replayIO struct {
	at   int64 // ns after the replay's start the action is due
	sync bool  // an fsync (or fdatasync) rather than an I/O
	io   iogen.IO
}

// replayTrace is a log made ready to replay: its I/O and syncs, offsets
// scaled and aligned, times scaled.
type replayTrace struct {
	ios    []replayIO
	end    int64 // the highest offset+length
	maxLen int64
	dirs   [workload.NumDirs]int
}

// withReplay loads the job's read_iolog and returns the job to replay
// it: the file, the directions, the block size and (when none is given)
// the size come from the log. Jobs without read_iolog are returned as
// they are, with a nil trace.
func withReplay(j workload.Job) (workload.Job, *replayTrace, error) {
	if j.ReadIOLog == "" {
		return j, nil, nil
	}
	log, err := fio.LoadIOLog(j.ReadIOLog)
	if err != nil {
		return j, nil, fmt.Errorf("%w (job %s)", err, j.Name) // err names the package, the file and the line
	}
	tr, err := buildReplay(&j, log)
	if err != nil {
		return j, nil, err
	}
	switch {
	case j.ReplayRedirect != "":
		j.Filename = j.ReplayRedirect
	case len(log.Files) == 1:
		j.Filename = log.Files[0]
	}
	switch {
	case tr.dirs[workload.DirTrim] > 0 || tr.dirs[workload.DirRead] > 0 && tr.dirs[workload.DirWrite] > 0:
		j.RW = workload.ReadWrite
	case tr.dirs[workload.DirWrite] > 0:
		j.RW = workload.Write
	default:
		j.RW = workload.Read
	}
	j.WriteIOLog = "" // as fio: "read iolog overrides write_iolog"
	j.BlockSize = max(tr.maxLen, 512)
	j.BlockSizeRange, j.BlockSizeSplit, j.WriteBlocks = workload.BlockSizeRange{}, nil, nil
	if j.Size == 0 {
		j.Size = tr.end - j.Offset
	}
	return j, tr, nil
}

// buildReplay turns the log into the actions to replay.
func buildReplay(j *workload.Job, log *fio.IOLog) (*replayTrace, error) {
	if len(log.Files) > 1 && j.ReplayRedirect == "" {
		return nil, &workload.FieldError{Job: j.Name, Field: "read_iolog", Reason: fmt.Sprintf("%s names %d files: stortest replays one (or give replay_redirect)", j.ReadIOLog, len(log.Files))}
	}
	tr := &replayTrace{}
	scale := int64(100)
	if j.ReplayTimeScale > 0 {
		scale = int64(j.ReplayTimeScale)
	}
	var t0, waited int64 = -1, 0
	for _, e := range log.Entries {
		if t0 < 0 {
			t0 = e.Time
		}
		if e.Act == workload.LogWait {
			if e.Offset >= 100 { // fio discards waits below 100 µs
				waited += e.Offset
			}
			continue
		}
		if e.Act.IsFileAct() || j.ReplaySkip&(1<<e.Act) != 0 {
			continue
		}
		at := waited
		if log.Version == 3 {
			at = max(e.Time-t0, 0)
		}
		r := replayIO{at: at * 1000 * 100 / scale}
		if j.ReplayNoStall {
			r.at = 0
		}
		switch e.Act {
		case workload.LogSync, workload.LogDatasync:
			r.sync = true
			tr.ios = append(tr.ios, r)
			continue
		case workload.LogWrite:
			r.io.Dir = workload.DirWrite
		case workload.LogTrim:
			r.io.Dir = workload.DirTrim
		default:
			r.io.Dir = workload.DirRead
		}
		off := e.Offset
		if j.ReplayScale > 0 {
			off /= j.ReplayScale
		}
		if j.ReplayAlign > 0 {
			off &^= j.ReplayAlign - 1
		}
		r.io.Offset, r.io.Len = j.Offset+off, e.Len
		tr.end = max(tr.end, r.io.Offset+r.io.Len)
		tr.maxLen = max(tr.maxLen, e.Len)
		tr.dirs[r.io.Dir]++
		tr.ios = append(tr.ios, r)
	}
	if tr.dirs[workload.DirRead]+tr.dirs[workload.DirWrite]+tr.dirs[workload.DirTrim] == 0 {
		return nil, &workload.FieldError{Job: j.Name, Field: "read_iolog", Reason: j.ReadIOLog + " has no I/O to replay"}
	}
	return tr, nil
}

// replayCursor walks a replayTrace for one clone.
type replayCursor struct {
	tr    *replayTrace
	next  int
	start int64 // ns: the first call's time
}

// nextReplay prepares u for the log's next action at time now: srcWait
// with the ns to wait while it is not due, srcSync for an fsync, srcDone
// at the end of the log.
func (s *ioSource) nextReplay(u *engines.Unit, now int64) (srcStatus, int64) {
	c := s.trace
	if c.next >= len(c.tr.ios) {
		return srcDone, 0
	}
	if c.next == 0 && c.start == 0 {
		c.start = now
	}
	r := &c.tr.ios[c.next]
	if w := c.start + r.at - now; w > 0 {
		return srcWait, w
	}
	c.next++
	if r.sync {
		return srcSync, 0
	}
	s.issued++
	s.moved += r.io.Len
	u.Offset = r.io.Offset
	u.Buf = u.Buf[:r.io.Len]
	u.Op = dirOp(r.io.Dir)
	s.pacer.Issued(r.io.Dir, r.io.Len)
	return srcReady, 0
}

// ungetReplay returns the action just taken (the engine was busy).
func (s *ioSource) ungetReplay() {
	s.trace.next--
	r := &s.trace.tr.ios[s.trace.next]
	s.issued--
	s.moved -= r.io.Len
}

// logIO writes u's I/O to the write_iolog, after a close and an open
// when it starts a new phase: fio closes and reopens the file for each
// pass (loops) and before each verify pass.
func (w *worker) logIO(u *engines.Unit) {
	phase := 2 * w.src.drawPass // pass k's writes: 2k; its read-back: 2k+1
	if w.src.verifying {
		phase = 2*w.src.vpass - 1
	}
	if phase > w.iologPhase {
		w.iologPhase = phase
		w.iolog.FileAct(u.Start, workload.LogClose)
		w.iolog.FileAct(u.Start, workload.LogOpen)
	}
	w.iolog.SetFile(u.File)
	w.iolog.IO(u.Start, u.Op.IOLogAct(), u.Offset, int64(len(u.Buf)))
}

// iologFiles are the names write_iolog gives the clone's files: its
// files (names, of a job of several), its file, or fio's default name
// for engines that open none (null: fio names its file jobname.clone.0
// all the same).
func iologFiles(j *workload.Job, names []string, clone int) []string {
	switch {
	case names != nil:
		return names
	case j.Filename != "":
		return []string{j.Filename}
	case j.MultiFiles():
		return fileNames(j, clone) // null
	}
	return []string{j.FileName(clone, 0)}
}
