package workload

import (
	"cmp"
	"fmt"
	"math/bits"
	"time"

	"stortest.dev/iostat"
	"stortest.dev/latency"
)

// Dir is a data direction as fio counts them: read, write, trim.
type Dir int

const (
	DirRead Dir = iota
	DirWrite
	DirTrim
	NumDirs
)

var dirNames = [NumDirs]string{"read", "write", "trim"}

func (d Dir) String() string {
	if d >= 0 && d < NumDirs {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", int(d))
}

// DirStats are one direction's totals and latency histograms over the
// measured part of a run (after ramp_time).
type DirStats struct {
	IOs      uint64 // completed I/Os, errors included
	Bytes    uint64 // bytes transferred by completed I/Os
	ShortIOs uint64 // completed with fewer bytes than asked
	Errors   uint64 // completed with an error (Res < 0)
	// DryIOs and DryBytes are the part of IOs and Bytes that a
	// verify_only job drew but did not issue (Job.VerifyOnly): fio
	// counts them, with no time and no latency.
	DryIOs, DryBytes uint64
	// DropIOs are the datagrams a UDP receiver (ioengine=net) found
	// missing from its sender's sequence (fio's drop_ios).
	DropIOs uint64

	// Submission latency (async engines only, as fio: N=0 for sync
	// engines), completion latency and total latency, in ns.
	Slat, Clat, Lat *latency.Histogram
}

// Second is one per-second sample of a job: what completed in the second
// ending at T. These feed steady-state detection, bandwidth and IOPS
// statistics and histogram logs.
type Second struct {
	T     time.Duration           // end of the interval, since the measured start
	Dur   time.Duration           // its length: a second, or less for the last one
	IOs   [NumDirs]uint64         // completions in the interval
	Bytes [NumDirs]uint64         // bytes completed in the interval
	Clat  [NumDirs]latency.Sparse // clat histogram of the interval
}

// IOPS returns direction d's completions per second in the interval.
func (s *Second) IOPS(d Dir) float64 { return perSecond(s.IOs[d], s.Dur) }

// BW returns direction d's bytes per second in the interval.
func (s *Second) BW(d Dir) float64 { return perSecond(s.Bytes[d], s.Dur) }

// perSecond returns n per second of an interval of length dur, 0 for an
// interval of no length: the rate of a Second's and of a Slice's counts.
func perSecond(n uint64, dur time.Duration) float64 {
	if dur <= 0 {
		return 0
	}
	return float64(n) / dur.Seconds()
}

// SliceInterval is the length of a throughput slice (JobResult.Slices):
// ten samples a second, so that a run of a few seconds has enough samples
// for a comparison to tell a change from noise (a run of 2 s has 20
// slices; fio logs IOPS every 500 ms by default).
const SliceInterval = 100 * time.Millisecond

// Slice is one sub-second throughput sample of a job: what completed in
// the interval ending at T. Slices close every SliceInterval of measured
// time (ramp excluded), on the same clock reads as the seconds (a second
// ends where a slice ends), and the last one is the partial interval up
// to the last completion.
type Slice struct {
	T     time.Duration   // end of the interval, since the measured start
	Dur   time.Duration   // its length: SliceInterval, more when the loop was late, less for the last one
	IOs   [NumDirs]uint64 // completions in the interval
	Bytes [NumDirs]uint64 // bytes completed in the interval
}

// IOPS returns direction d's completions per second in the slice.
func (s *Slice) IOPS(d Dir) float64 { return perSecond(s.IOs[d], s.Dur) }

// BW returns direction d's bytes per second in the slice.
func (s *Slice) BW(d Dir) float64 { return perSecond(s.Bytes[d], s.Dur) }

// IOError records one failed I/O.
type IOError struct {
	Op     string
	Offset int64
	Len    int
	Errno  int
	Err    error // explained by the engine
}

func (e IOError) Error() string {
	return fmt.Sprintf("%s of %d bytes at offset %d: %v", e.Op, e.Len, e.Offset, e.Err)
}

// MaxRecordedErrors is how many failed I/Os a job keeps in detail; the
// rest are counted per errno.
const MaxRecordedErrors = 8

// JobResult is the outcome of one job (one clone when numjobs > 1).
type JobResult struct {
	Name   string
	Clone  int // 0 .. numjobs-1
	Job    Job // the job as run, with defaults applied
	Engine string
	Target string // the file or device

	Dirs [NumDirs]DirStats
	// Sync holds the latencies of fsync, fdatasync and sync_file_range
	// (Lat, fio's "sync" lat_ns) and the number of fsyncs (IOs, fio's
	// total_ios, which counts fsyncs only).
	Sync DirStats
	// Prios are each direction's latencies per I/O priority, when the
	// job gives I/Os priorities (Job.CmdPrio); nil otherwise.
	Prios [NumDirs][]PrioStats

	Start   time.Time     // wall clock at the start of the measured part
	Runtime time.Duration // measured time (ramp excluded)
	Seconds []Second
	// Slices are the throughput samples every SliceInterval, oldest
	// first, with strictly increasing T and positive Dur; their counts
	// add up to the totals in Dirs, as the seconds' do.
	Slices []Slice

	ErrnoCounts map[int]uint64 // failed I/Os per errno
	FirstErrors []IOError      // the first MaxRecordedErrors failures
	Verify      VerifyStats
	// Steady is the steady-state outcome; nil without steady-state
	// options (Job.SS, SSDur).
	Steady *SteadyResult

	UsrCPU, SysCPU time.Duration // CPU of the job's thread
	Ctx            uint64        // context switches of the job's thread
	// MajFlt and MinFlt are the page faults of the job's threads that
	// needed I/O (major) or not (minor), from getrusage as fio's majf
	// and minf.
	MajFlt, MinFlt uint64

	// Depths counts, over the measured part, how deep the queue was and
	// how many I/Os each submit and each reap took (fio's iodepth_level,
	// iodepth_submit and iodepth_complete).
	Depths DepthStats
	// LatencyDepth is the depth the job ran at last: with latency_target
	// the depth its search found (fio's latency_depth), else 0.
	LatencyDepth int

	// Outstanding are the I/Os the run stopped waiting for, oldest
	// first: still not completed Options.Grace after the job's runtime
	// ended or the run was stopped (a hung device). Err is then a
	// StallError naming them.
	Outstanding []OutstandingIO

	// FixedBufs says that the engine read and wrote through buffers
	// registered with the kernel (io_uring: fixedbufs=1, or by default
	// where the kernel allowed it; see Job.NoFixedBufs).
	FixedBufs bool

	Canceled bool  // stopped early by its context; results are partial
	Err      error // a failure that stopped the job (not per-I/O errors)
}

// DepthStats are fio's I/O depth distributions, counted as fio counts
// them.
type DepthStats struct {
	// Level counts I/Os by the queue depth (I/Os in flight or staged,
	// this one included) when they were submitted, in the buckets of
	// LevelBucket.
	Level [7]uint64
	// Submit counts submits by how many I/Os each took, and Complete
	// reaps by how many completions each took, in the buckets of
	// BatchBucket. A synchronous engine submits and completes one at a
	// time.
	Submit, Complete [7]uint64
}

// LevelBucket is the bucket of queue depth n in DepthStats.Level: 0 for
// 1, 1 for 2-3, 2 for 4-7 and so on by powers of two, 6 from 64 (fio's
// keys "1", "2", "4", "8", "16", "32", ">=64").
func LevelBucket(n int) int {
	return min(6, max(0, bits.Len(uint(max(n, 1)))-1))
}

// BatchBucket is the bucket of a batch of n in DepthStats.Submit and
// Complete: 0 for none, 1 for 1-4, 2 for 5-8, then by powers of two, 6
// above 64 (fio's keys "0", "4", "8", "16", "32", "64", ">=64").
func BatchBucket(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 4:
		return 1
	case n <= 64:
		return bits.Len(uint(n-1)) - 1
	}
	return 6
}

// VerifyStats counts verified blocks.
type VerifyStats struct {
	Checked    uint64  // blocks read back and checked
	Mismatches uint64  // blocks that failed the check
	First      []error // the first mismatches, each naming its offset
}

// NewJobResult returns the empty result of clone clone of job: empty
// slat, clat and lat histograms of layout for every direction and for
// fsync, ready for a runner (or a test) to fill.
func NewJobResult(job Job, clone int, layout latency.Layout) *JobResult {
	name := job.Name
	if clone > 0 {
		name = cmp.Or(job.Section, job.Name) // fio names later clones after the section
	}
	jr := &JobResult{Name: name, Clone: clone, Job: job, Engine: job.Engine, Target: job.Filename,
		ErrnoCounts: map[int]uint64{}}
	for d := range NumDirs {
		jr.Dirs[d] = newDirStats(layout)
	}
	jr.Sync = newDirStats(layout)
	return jr
}

func newDirStats(l latency.Layout) DirStats {
	return DirStats{Slat: latency.New(l), Clat: latency.New(l), Lat: latency.New(l)}
}

// IOPS returns direction d's completions per second over the runtime.
func (r *JobResult) IOPS(d Dir) float64 {
	if r.Runtime <= 0 {
		return 0
	}
	return float64(r.Dirs[d].IOs-r.Dirs[d].DryIOs) / r.Runtime.Seconds()
}

// BW returns direction d's bytes per second over the runtime.
func (r *JobResult) BW(d Dir) float64 {
	if r.Runtime <= 0 {
		return 0
	}
	return float64(r.Dirs[d].Bytes-r.Dirs[d].DryBytes) / r.Runtime.Seconds()
}

// CPUPerIO returns the CPU (user and system) the job's threads used per
// completed read, write and trim, in ns, over the measured part: what
// each I/O cost the host besides the device, the harness's share on top
// of the kernel's. 0 without I/O.
func (r *JobResult) CPUPerIO() float64 {
	var n uint64
	for d := range NumDirs {
		n += r.Dirs[d].IOs
	}
	if n == 0 {
		return 0
	}
	return float64(r.UsrCPU+r.SysCPU) / float64(n)
}

// TotalErrors returns the failed I/Os of all directions.
func (r *JobResult) TotalErrors() uint64 {
	var n uint64
	for d := range NumDirs {
		n += r.Dirs[d].Errors
	}
	return n + r.Sync.Errors
}

// Result is the outcome of a Run: one JobResult per job clone.
type Result struct {
	Jobs []*JobResult
	// DiskUtil is what the devices under the jobs did over the run, as
	// fio's "disk_util" reports it; the caller that took the device
	// counters around the run fills it (stortest run does).
	DiskUtil []DiskUtil
	// FioOptions are the job file's or command line's options as given
	// (Parse), which WriteFioJSON prints as fio's "global
	// options" and "job options"; nil for jobs not parsed from fio's
	// forms, whose options are printed from the Job.
	FioOptions *FioGiven
}

// DiskUtil is one device's counters over a run, as fio reports them:
// requests, merges and ms spent per direction, in_queue (fio 3.33 prints
// the sum of the two ticks) and util, the share of the run with a
// request in flight (percent).
type DiskUtil struct {
	Name                    string
	ReadIOs, WriteIOs       uint64
	ReadMerges, WriteMerges uint64
	ReadTicks, WriteTicks   uint64 // ms
	InQueue                 uint64 // ms
	Util                    float64
}

// Err returns the first job failure, if any.
func (r *Result) Err() error {
	for _, j := range r.Jobs {
		if j.Err != nil {
			return fmt.Errorf("job %s.%d: %w", j.Name, j.Clone, j.Err)
		}
	}
	return nil
}

// Merged returns the histograms and totals of all clones summed, per
// direction: what fio's group_reporting shows.
func (r *Result) Merged() [NumDirs]DirStats {
	var out [NumDirs]DirStats
	for d := range NumDirs {
		for _, j := range r.Jobs {
			s := j.Dirs[d]
			if out[d].Clat == nil {
				out[d] = DirStats{Slat: s.Slat.Clone(), Clat: s.Clat.Clone(), Lat: s.Lat.Clone(),
					IOs: s.IOs, Bytes: s.Bytes, ShortIOs: s.ShortIOs, Errors: s.Errors, DryIOs: s.DryIOs, DryBytes: s.DryBytes, DropIOs: s.DropIOs}
				continue
			}
			out[d].IOs += s.IOs
			out[d].Bytes += s.Bytes
			out[d].DryIOs += s.DryIOs
			out[d].DryBytes += s.DryBytes
			out[d].ShortIOs += s.ShortIOs
			out[d].DropIOs += s.DropIOs
			out[d].Errors += s.Errors
			_ = out[d].Slat.Merge(s.Slat)
			_ = out[d].Clat.Merge(s.Clat)
			_ = out[d].Lat.Merge(s.Lat)
		}
	}
	return out
}

// DiskUtilOf is fio's disk_util entry for a device's counters over a run
// (an iostat delta of the snapshots taken around it): util is the share
// of the delta's elapsed time with a request in flight, at most 100%.
func DiskUtilOf(d iostat.DiskDelta, elapsed time.Duration) DiskUtil {
	u := DiskUtil{
		Name: d.Name, ReadIOs: d.Diff.ReadIOs, WriteIOs: d.Diff.WriteIOs,
		ReadMerges: d.Diff.ReadMerges, WriteMerges: d.Diff.WriteMerges,
		ReadTicks: d.Diff.ReadTicks, WriteTicks: d.Diff.WriteTicks,
		InQueue: d.Diff.ReadTicks + d.Diff.WriteTicks,
	}
	if ms := elapsed.Milliseconds(); ms > 0 {
		u.Util = min(100, 100*float64(d.Diff.IOTicks)/float64(ms))
	}
	return u
}

// Version is the stortest version written into outputs and baselines.
const Version = "0.1.0"
