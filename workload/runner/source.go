package runner

import (
	"cmp"
	"fmt"
	"math/rand/v2"

	"stortest.dev/engines"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// ioSource decides each I/O of a job clone: direction (rwmix, paced by the
// rate limits), offset and size (Pattern), and the data of verified writes.
// With verify on, each pass over the region (each of Loops) is followed by
// a verify pass, as fio verifies after each loop: it replays the pass's
// part of the pattern and reads back every block the pass wrote. The data
// of a block is a function of (offset, seed+generation), the generation
// being the pass's number (0 for the first), so replay needs no record of
// what was written (and no memory per I/O), a block rewritten later in the
// same pass holds the same bytes, and a block that still holds an earlier
// pass's data after a lost write reads back as stale (CorruptStale), not
// as good.
type ioSource struct {
	job   *workload.Job
	pat   *iogen.Pattern
	pacer iogen.Pacer
	ver   *iogen.Verifier
	seed  uint64 // data of verified writes: seed+gen
	// thread is fio's thread number of the clone, entropy the random
	// seed of its mix under randrepeat=0 (drawn once: replays repeat it).
	thread  int
	entropy uint64
	gen     uint64 // the pass being written: verify passes done so far
	mixed   bool   // rwmix: the pacer may switch direction
	size    int64  // file or device size
	issued  uint64 // I/Os drawn from the pattern (replayed by verify)
	moved   int64  // bytes drawn from the pattern
	limit   int64  // io_size (or Pattern.Limit) times loops: bytes to move; 0 for passes
	// vpass is the number of passes read back so far, sinceVerify the
	// writes drawn since the last read-back (verify_backlog).
	vpass       int64
	sinceVerify int64
	// phaseEnd is the bytes queued that end a time-based verified write
	// job's write phase (see verifyDue; 0: never), queued those queued
	// since the last read-back.
	phaseEnd, queued int64

	duty *cpuDuty // cpuio's idle between units; nil for other engines

	pending    iogen.IO // drawn but not issued (Busy, or waiting on the rate)
	hasPending bool
	// pendingFile is pending's file (a job of several files); loopsToo:
	// such a job ends at limit or after its loops, whichever is first.
	pendingFile int32
	loopsToo    bool

	verifying bool           // in a verify pass
	replay    *iogen.Pattern // the pattern again, one verify pass behind
	replayed  uint64         // I/Os replayed so far
	// holed: sequential writes with an offset modifier (rw=write:N),
	// which wrap inside a pass and write blocks again; vFirst is the
	// offset of the verify pass's first read, vStarted whether it has one
	// (nextVerify).
	holed    bool
	vFirst   int64
	vStarted bool
	// stopOnMismatch ends the job after a verify pass that found
	// mismatches (continue_on_error without verify).
	stopOnMismatch bool
	passMismatches uint64 // in the current verify pass

	beforeVerify func() // Options.BeforeVerify, bound to the job

	replayPending    iogen.IO // a verify read the engine was too busy for
	hasReplayPending bool

	flow *flowMember // flow control (Job.Flow); nil when off

	trace *replayCursor // read_iolog's replay (iolog.go); nil when off
	// drawPass is the passes completed when the pending I/O was drawn:
	// write_iolog logs a close and an open between passes, as fio
	// closes and reopens the file for each loop. The lean path keeps it
	// only for a job that logs (logsPasses): it costs a division an I/O.
	drawPass   int64
	logsPasses bool
	fill       *iogen.BufFill // data of unverified writes; nil when they reuse their buffer as is
	// writers are the run's clones that write verified blocks (nil when
	// this is the only one): a block one of them overwrote is told from
	// a lost write (overwritten).
	writers []verifyWriter

	// dry: a verify_only job that writes (Job.VerifyOnly): the
	// workload's I/Os are drawn and counted in dryIOs and dryBytes, not
	// issued; the verify passes read back what they would have written.
	dry      bool
	dryIOs   [workload.NumDirs]uint64
	dryBytes [workload.NumDirs]uint64

	// lean: each I/O is the pattern's next as it is (Pattern.NextFixed),
	// with none of the above to consult; endless: time based without
	// number_ios, never over. Set by settle before the first I/O.
	lean, endless bool
	op            engines.Op // a lean source's operation
}

// newIOSource returns the source of a job's clone (0-based) whose fio
// thread number (1-based over the run's clones) is thread.
func newIOSource(job workload.Job, clone, thread int, size int64) (*ioSource, error) {
	seed := iogen.Seed(&job, clone, uint64(clone)+1)
	entropy := rand.Uint64()
	pat, err := iogen.NewClonePattern(&job, size, seed, thread, entropy)
	if err != nil {
		return nil, err
	}
	s := &ioSource{job: &job, pat: pat, pacer: iogen.NewJobPacer(&job), seed: seed, thread: thread, entropy: entropy,
		mixed: job.RW.Mixed(), size: size, duty: newCPUDuty(&job),
		holed: !job.RW.Random() && job.RWModifier != 0 && job.WriteBlocks == nil && job.MinBlockSize() == job.MaxBlockSize(),
		dry:   job.VerifyOnly && job.RW.Writes()}
	if job.Poisson {
		s.pacer.SetPoisson(seed)
	}
	if !job.TimeBased {
		// fio ends a job by the bytes it issued against io_size, else
		// against its size, times loops.
		if job.MultiFiles() {
			s.limit = job.IOSize * int64(job.Loops)
			if s.limit == 0 {
				// fio stops issuing at size times loops, whatever the
				// files' loops: a size below the files' regions cuts a loop.
				s.limit, s.loopsToo = job.TotalSize()*int64(job.Loops), true
			}
		} else {
			s.limit = cmp.Or(job.IOSize, pat.Limit()) * int64(job.Loops)
		}
	} else if job.Verify != workload.VerifyNone && job.RW.Writes() && !job.NoVerifyPhase {
		s.phaseEnd = job.Size
		if job.VerifyBacklog > 0 {
			s.phaseEnd *= 2 // fio: room for the backlog's reads
		}
	}
	if job.Verify != workload.VerifyNone {
		if s.mixed && s.pacer.Enabled() {
			// The verify pass replays the mix draw; a rate limit that
			// switches directions would make the replay read the wrong blocks.
			return nil, &workload.FieldError{Job: job.Name, Field: "verify", Reason: "not supported with rate limits on a mixed (rw/randrw) job"}
		}
		if s.ver, err = iogen.NewVerifier(job.Verify, job.VerifyPattern); err != nil {
			return nil, fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	return s, nil
}

// srcStatus is what next did.
type srcStatus uint8

const (
	srcReady srcStatus = iota // u is prepared
	srcWait                   // the rate limit holds the next I/O back
	srcHeld                   // the flow holds the next I/O back (flowMember.pause)
	srcDrain                  // wait for every I/O in flight, then call again
	srcDone                   // no more I/O (a time-based job never ends here)
	srcSync                   // fsync now (a replayed log's sync); u is not used
)

// settle chooses the source's shape for the run, once everything that
// takes part in it (verify, flow, trace, buffer fill) is set: a job that
// uses none of it draws each I/O through the lean path of next.
func (s *ioSource) settle() {
	j := s.job
	s.endless = j.TimeBased && j.NumberIOs == 0
	dir, fixed := s.pat.Fixed()
	s.lean = fixed && s.duty == nil && s.trace == nil && s.ver == nil && s.flow == nil &&
		s.fill == nil && !s.pacer.Enabled() && !s.dry
	s.op = dirOp(dir)
}

// dirOp is the engine operation of an I/O in direction d.
func dirOp(d workload.Dir) engines.Op {
	switch d {
	case workload.DirWrite:
		return engines.OpWrite
	case workload.DirTrim:
		return engines.OpTrim
	}
	return engines.OpRead
}

// next prepares u for the next I/O at time now (ns). With srcWait it also
// returns how many ns to wait. idle tells whether nothing is in flight:
// the verify pass starts only then, so it never reads a block whose write
// has not completed.
func (s *ioSource) next(u *engines.Unit, now int64, idle bool) (srcStatus, int64) {
	if s.lean && !s.hasPending {
		if !s.endless && s.over() {
			return srcDone, 0
		}
		if s.logsPasses {
			s.drawPass = s.pat.Passes()
		}
		io := s.pat.NextFixed()
		s.issued++
		s.moved += io.Len
		u.Offset = io.Offset
		u.Buf = u.Buf[:io.Len]
		u.Op = s.op
		return srcReady, 0
	}
again:
	if s.duty != nil {
		if w := s.duty.wait(now); w > 0 {
			return srcWait, w
		}
	}
	if s.trace != nil {
		return s.nextReplay(u, now)
	}
	if s.verifying {
		if s.nextVerify(u) {
			return srcReady, 0
		}
		if !idle {
			return srcDrain, 0 // the pass's last reads are checked as they complete
		}
		if !s.endVerifyPass() {
			return srcDone, 0
		}
	}
	if !s.hasPending {
		if s.verifyDue() {
			// A pass (or verify_backlog's writes) is over, or the job
			// is: read back what was written, once the writes have
			// completed.
			if !idle {
				return srcDrain, 0
			}
			if s.startVerify(u) {
				return srcReady, 0
			}
			if !s.endVerifyPass() { // the pass wrote nothing
				return srcDone, 0
			}
		}
		if s.over() {
			return srcDone, 0
		}
		if s.flow != nil && !s.flow.admit(now) {
			return srcHeld, 0
		}
		d := s.pat.NextDir()
		if s.pacer.Enabled() {
			var w int64
			dd, dw := s.pacer.Choose(d, now, s.mixed)
			d, w = dd, int64(dw)
			if w > 0 {
				// Hold the draw: the direction is decided, the offset is
				// drawn when the I/O can go.
				s.pending, s.hasPending = iogen.IO{Dir: d, Len: -1}, true
				return srcWait, w
			}
		}
		s.drawPass = s.pat.Passes()
		s.pending, s.hasPending = s.pat.NextIO(d), true
		s.pendingFile = s.pat.File()
		s.drawn()
	} else if s.pending.Len < 0 {
		if w := int64(s.pacer.Wait(s.pending.Dir, now)); w > 0 {
			return srcWait, w
		}
		s.drawPass = s.pat.Passes()
		s.pending = s.pat.NextIO(s.pending.Dir)
		s.pendingFile = s.pat.File()
		s.drawn()
	}
	io := s.pending
	s.hasPending = false
	if s.dry {
		// verify_only: counted as fio's dry run counts it, not issued.
		s.dryIOs[io.Dir]++
		s.dryBytes[io.Dir] += uint64(io.Len)
		s.pacer.Issued(io.Dir, io.Len)
		goto again
	}
	u.File = s.pendingFile
	u.Offset = io.Offset
	u.Buf = u.Buf[:io.Len]
	switch io.Dir {
	case workload.DirWrite:
		u.Op = engines.OpWrite
		if s.ver != nil {
			s.ver.Fill(u.Buf, io.Offset, s.seed+s.gen)
		} else if s.fill != nil {
			s.fill.FillWrite(u.Buf, io.Offset, now)
		}
	case workload.DirTrim:
		u.Op = engines.OpTrim
	default:
		u.Op = engines.OpRead
	}
	s.pacer.Issued(io.Dir, io.Len)
	if s.duty != nil {
		s.duty.armed = true
	}
	return srcReady, 0
}

// drawn counts the I/O just drawn into pending.
func (s *ioSource) drawn() {
	s.issued++
	s.moved += s.pending.Len
	if s.pending.Dir == workload.DirWrite {
		s.sinceVerify++
	}
}

// over reports whether the job has moved all it should: number_ios I/Os
// if it gets there first, else io_size times loops (or the size times
// loops, where that ends it before its passes: Pattern.Limit), else loops
// passes over the region; a time-based job never is.
func (s *ioSource) over() bool {
	switch {
	case s.job.NumberIOs > 0 && s.issued >= uint64(s.job.NumberIOs):
		return true
	case s.job.TimeBased:
		return false
	case s.limit > 0 && !s.loopsToo:
		return s.moved >= s.limit
	case s.loopsToo && s.moved >= s.limit:
		return true
	}
	return s.pat.Passes() >= int64(s.job.Loops)
}

// verifyDue reports whether written blocks are to be read back now: at
// the end of each pass, every verify_backlog writes, and at the end of
// the job for what is left; none with do_verify=0.
//
// A time-based job has no end of job, and fio 3.33 ends its write phase
// only by the bytes it counts as issued: those of the I/Os the engine
// queued (libaio, io_uring, posixaio), not those it completed at once
// (psync, sync, pvsync2, mmap). Once they reach the size (twice the size
// with verify_backlog, whose reads count too), it reads back what was
// written and starts over, until the runtime ends, although it printed
// that its verify phase never starts. With an engine that completes at
// once the phase never ends: only verify_backlog reads back.
func (s *ioSource) verifyDue() bool {
	j := s.job
	if s.ver == nil || !j.RW.Writes() || j.NoVerifyPhase {
		return false
	}
	if j.TimeBased {
		switch {
		case j.VerifyBacklog > 0 && s.sinceVerify >= j.VerifyBacklog:
			return true
		case s.phaseEnd > 0 && s.queued >= s.phaseEnd:
			return true
		}
		return false // nor at the end of a pass: fio wraps and writes on
	}
	switch {
	case j.VerifyBacklog > 0 && s.sinceVerify >= j.VerifyBacklog:
		return true
	case s.pat.Passes() > s.vpass:
		return true
	}
	return s.over() && s.replayed < s.issued
}

// queuedIO counts n bytes the engine queued, for the write phase of a
// time-based verified job (verifyDue); the runner calls it only when
// phaseEnd is set.
func (s *ioSource) queuedIO(n int) { s.queued += int64(n) }

// unget returns u's I/O to the source: the engine was busy.
func (s *ioSource) unget(u *engines.Unit) {
	d := dirOf(u.Op)
	s.pacer.Unissued(d, int64(len(u.Buf)))
	if s.trace != nil {
		s.ungetReplay()
		return
	}
	if s.verifying {
		s.replayPending, s.hasReplayPending = iogen.IO{Dir: d, Offset: u.Offset, Len: int64(len(u.Buf))}, true
		return
	}
	s.pending, s.hasPending = iogen.IO{Dir: d, Offset: u.Offset, Len: int64(len(u.Buf))}, true
	s.pendingFile = u.File
}

// startVerify starts the verify pass of the pass just written.
func (s *ioSource) startVerify(u *engines.Unit) bool {
	if s.replay == nil {
		pat, err := iogen.NewClonePattern(s.job, s.size, s.seed, s.thread, s.entropy)
		if err != nil {
			return false // the same arguments worked at the start
		}
		s.replay = pat
	}
	s.verifying = true
	s.vStarted = false
	s.vpass, s.sinceVerify = s.pat.Passes(), 0
	if s.queued >= s.phaseEnd {
		s.queued = 0 // a new write phase after this read-back
	}
	if s.beforeVerify != nil {
		s.beforeVerify()
	}
	return s.nextVerify(u)
}

// endVerifyPass closes a verify pass; the next pass writes the next
// generation. It returns false when the job must stop: the pass found
// mismatches and the job does not continue after verify failures.
func (s *ioSource) endVerifyPass() bool {
	s.verifying = false
	s.gen++
	failed := s.passMismatches > 0
	s.passMismatches = 0
	return !failed || !s.stopOnMismatch
}

// nextVerify reads back the next write of the replayed pattern.
func (s *ioSource) nextVerify(u *engines.Unit) bool {
	var io iogen.IO
	if s.hasReplayPending {
		io, s.hasReplayPending = s.replayPending, false
	} else {
		for {
			if s.replayed >= s.issued {
				return false
			}
			io = s.replay.Next()
			s.replayed++
			if io.Dir != workload.DirWrite {
				continue
			}
			if s.holed {
				// Holed sequential writes of one block size follow one
				// cycle over the region: back at the pass's first offset,
				// the rest writes blocks read already (the same data,
				// one generation). fio reads each block once, its log of
				// writes keeping the last of each offset.
				if s.vStarted && io.Offset == s.vFirst {
					for s.replayed < s.issued {
						s.replay.Next()
						s.replayed++
					}
					return false
				}
				if !s.vStarted {
					s.vFirst, s.vStarted = io.Offset, true
				}
			}
			break
		}
	}
	u.Op = engines.OpRead
	u.Offset = io.Offset
	u.Buf = u.Buf[:io.Len]
	return true
}

// check verifies a completed read of the verify pass. Reads of the
// workload itself are not checked: in a mixed job they may read blocks
// not yet written.
func (s *ioSource) check(u *engines.Unit, v *workload.VerifyStats) {
	if s.ver == nil || u.Res != int64(len(u.Buf)) {
		return
	}
	var err error
	switch {
	case s.verifying && s.job.VerifyOnly:
		// What an earlier run wrote: fio's blocks or stortest's, of
		// any generation.
		if iogen.IsFioBlock(u.Buf) {
			err = s.ver.CheckFio(u.Buf, u.Offset, int(s.job.MinBlockSize()))
		} else {
			err = s.ver.CheckWritten(u.Buf, u.Offset)
		}
	case s.verifying:
		err = s.ver.Check(u.Buf, u.Offset, s.seed+s.gen)
	case !s.job.RW.Writes() && !s.job.NoVerifyPhase:
		// A read-only job with verify checks what an earlier job (or
		// run) wrote, as fio's does: any generation will do.
		err = s.ver.CheckWritten(u.Buf, u.Offset)
	default:
		return
	}
	v.Checked++
	if err != nil {
		err = s.overwritten(err)
		v.Mismatches++
		s.passMismatches++
		if len(v.First) < workload.MaxRecordedErrors {
			v.First = append(v.First, err)
		}
	}
}
