package workload

import (
	"fmt"
	"strings"
	"time"

	"stortest.dev/engines"
	"stortest.dev/latency"
)

// What a run is given beyond its jobs, and what a stalled run reports:
// the runner (package workload/runner) reads these, the test API and the
// command line fill them in.

func (o *Options) grace() time.Duration {
	switch {
	case o.Grace < 0:
		return 0
	case o.Grace == 0:
		return DefaultGrace
	}
	return o.Grace
}

// OutstandingIO is an I/O a run stopped waiting for: issued, never
// completed.
type OutstandingIO struct {
	Op     string
	Offset int64
	Len    int
	// Issued is when the I/O was issued, since the job's measured start
	// (negative in ramp_time).
	Issued time.Duration
	// Age is how long it had been outstanding when the run stopped
	// waiting for it.
	Age time.Duration
}

func (o OutstandingIO) String() string {
	if o.Op == engines.OpFsync.String() || o.Op == engines.OpFdatasync.String() || o.Op == syncName(opSyncFileRange) {
		return fmt.Sprintf("%s: %s", o.Op, roundAge(o.Age))
	}
	return fmt.Sprintf("%s of %d bytes at offset %d: %s", o.Op, o.Len, o.Offset, roundAge(o.Age))
}

func roundAge(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// StallError is the error of a job whose run stopped waiting for its
// outstanding I/O.
type StallError struct {
	Outstanding []OutstandingIO // oldest first
	// Runtime is the job's runtime when the runtime's end started the
	// grace period; 0 when the run was stopped (cancelled, a signal,
	// exitall) first.
	Runtime time.Duration
	Grace   time.Duration
	// Before is what had already ended the job, if anything (a failed
	// I/O, say); the stall is reported first.
	Before error
}

// stallListed is how many outstanding I/Os StallError's message lists.
const stallListed = 8

func (e *StallError) Error() string {
	var b strings.Builder
	n := len(e.Outstanding)
	ios := "I/Os"
	if n == 1 {
		ios = "I/O"
	}
	if e.Runtime > 0 {
		fmt.Fprintf(&b, "%d %s still outstanding after %v runtime + %v grace (the device stopped answering)", n, ios, e.Runtime, e.Grace)
	} else {
		fmt.Fprintf(&b, "%d %s still outstanding %v after the run was stopped (the device stopped answering)", n, ios, e.Grace)
	}
	for i, o := range e.Outstanding {
		if i == stallListed {
			fmt.Fprintf(&b, "; and %d more", n-stallListed)
			break
		}
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep + o.String())
	}
	if e.Before != nil {
		fmt.Fprintf(&b, " (before that: %v)", e.Before)
	}
	return b.String()
}

// DefaultGrace is how long a run waits for the I/Os still outstanding
// once a job's runtime has ended or the run was stopped, when
// Options.Grace is 0: long enough for any sane device's slowest
// completion (SCSI's default command timeout is 30 s, NVMe's I/O timeout
// 30 s too, but those are error paths; a healthy device's worst case is
// well under a second), short enough that a hung device ends a CI job
// quickly.
const DefaultGrace = 5 * time.Second

// Options configure a Run beyond its Job.
type Options struct {
	// Progress, when set, is called about once a second from a separate
	// goroutine with the totals so far, and once more at the end.
	Progress func(Progress)
	// OnSecond, when set, is called on each job's goroutine once per
	// measured second with the second's sample and its clat histograms
	// (valid only during the call). It runs on the I/O path: keep it short.
	// Returning true stops the job (steady state reached, say).
	OnSecond func(job *JobResult, sec *Second, clat *[NumDirs]*latency.Histogram) (stop bool)
	// HistGroups sets the latency histograms' group count; 0 means
	// latency.LongGroups, so stalls up to 36 minutes keep their value
	// (fio's 29 groups clip at 17 s). Bins of the first 29 groups are
	// identical to fio's either way.
	HistGroups int
	// BeforeVerify, when set, is called on a job's goroutine when it has
	// finished writing and is about to read its blocks back (verify on).
	// Tests use it to corrupt data in between.
	BeforeVerify func(job *JobResult)
	// HistLogPrefix, when set, writes clat histogram logs as if every job
	// had write_hist_log=HistLogPrefix, without changing the jobs (whose
	// options are stored with baselines).
	HistLogPrefix string
	// ContinueOnError keeps every job running after failed I/Os, whatever
	// the errno, and after verify mismatches (fio's continue_on_error=all,
	// with any errno); by default the first failure ends the job, unless
	// Job.ContinueOnError says otherwise.
	ContinueOnError bool
	// SteadyContinue keeps a job with steady-state options (SS, SSDur)
	// running to its end after steady state is attained, where fio stops
	// it, so that a later loss of steady state is seen and reported
	// (JobResult.Steady).
	SteadyContinue bool
	// SteadyMeasure, when positive, keeps a job with steady-state options
	// running for this long after steady state is first attained, then
	// stops it (the runtime still caps it): a measurement window after
	// steady state, as SNIA PTS has, where fio stops at attainment with
	// only the window that proved it. Losses in that time are reported
	// as with SteadyContinue, which, when also set, wins.
	SteadyMeasure time.Duration
	// SteadyLatencyWindow measures, once steady state is attained, one
	// more window of SSDur seconds and keeps its clat histograms when the
	// criteria hold over exactly that window; otherwise the next
	// attainment starts another, until the runtime ends. Without
	// SteadyContinue the job stops once a window is kept.
	SteadyLatencyWindow bool
	// Faults, when set, wraps every clone's engine in engines.WithFaults:
	// errors, latency and short transfers injected as the engine performs
	// the I/O, for testing what a run reports about a misbehaving device.
	// Clone c draws with Seed+c, so clones fail differently but
	// repeatably; ranges (ErrAt, StallAt) apply to every clone.
	Faults *engines.Faults
	// OnStart, when set, is called on each job clone's goroutine, locked
	// to its OS thread (tid), before the clone's first I/O: a test can
	// move the thread into a cgroup or pin it to a CPU.
	OnStart func(job *JobResult, tid int)
	// CheckFile, when set, is called for the file each clone of each job
	// opens (the name read_iolog or the default file name gives it
	// included), before any clone is set up: no file is laid out and no
	// I/O is issued until every call has returned nil. RunJobs returns
	// the first error. The command line's destructive-write guard is
	// one (see package target).
	CheckFile func(job *Job, file string) error
	// Grace is how long a job's outstanding I/Os may take once its
	// runtime has ended or the run was stopped (ctx cancelled, exitall):
	// after it the run stops waiting for them, lists them in
	// JobResult.Outstanding and fails the job with a StallError (see
	// stall.go). 0 means DefaultGrace (5 s); negative means none.
	Grace time.Duration
}

// Progress is a snapshot of a running workload, summed over jobs.
type Progress struct {
	Elapsed time.Duration // since the start, ramp included
	ETA     time.Duration // estimated time left; -1 when unknown
	Ramp    bool          // still in ramp_time
	IOs     [NumDirs]uint64
	Bytes   [NumDirs]uint64
	IOPS    [NumDirs]float64 // over the last report interval
	BW      [NumDirs]float64 // bytes/s over the last report interval
	Done    bool             // the final report
}
