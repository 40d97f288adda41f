package baselines

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// SchemaVersion is the version of the file format that FromResult and
// ImportFio make and Marshal writes as "schema". It changes when a field
// changes meaning or a reader of the previous version could not read the
// file. Version 2 added the per-second clat mean ("clat_mean"), which a
// version 1 reader rejects as an unknown field. Version 3 added the
// throughput slices ("slices"), the runs of a baseline recorded from
// several ("runs"), the tolerances it was recorded with ("tolerances")
// and the device's size in the fingerprint ("size"). Version 4 added the
// session of the baseline and of each run ("session"), so that runs of
// one process (-count=N) can be told from runs of separate ones.
const SchemaVersion = 4

// MinSchemaVersion is the oldest version Decode reads. A baseline of
// version 1 has no per-second clat means (SecondDir.ClatMean is 0): it
// loads, and regress falls back to what it has.
const MinSchemaVersion = 1

// schemaClatMean is the first version with per-second clat means.
const schemaClatMean = 2

// schemaSlices is the first version with slices, runs, tolerances and
// the fingerprint's size.
const schemaSlices = 3

// schemaSession is the first version with sessions.
const schemaSession = 4

// Percentiles are the percentiles every latency Stat keeps (fio's values:
// the representative value of the bucket, in ns).
var Percentiles = []float64{50, 90, 99, 99.9, 99.99}

// SecondPercentiles are the clat percentiles kept for every second.
var SecondPercentiles = []float64{50, 99, 99.9}

// DirNames are the directions in fio's order; Second.Dirs is indexed by
// them.
var DirNames = [3]string{"read", "write", "trim"}

// Baseline is what one job measured, kept to compare later runs with: the
// workload, where it ran (Fingerprint), per-direction totals, latency
// statistics with their merged histograms, and per-second samples.
type Baseline struct {
	Schema int    // SchemaVersion
	Name   string // the job's name
	// Created is when the measured part of the run started (UTC, whole
	// seconds); for imported fio results, fio's timestamp.
	Created time.Time
	Runtime time.Duration // the measured time, ramp excluded
	Clones  int           // job clones merged (numjobs), as fio's group_reporting
	// Session identifies the process that made the run whose data the
	// baseline holds (ProcessSession's value there); for imported fio
	// results, FioSession's; "" for baselines older than schema 4.
	Session string
	// Job is the workload as run. Imported fio results hold what
	// fiojob.Parse understood of fio's options; FioOptions keeps
	// them all as fio printed them (global options included).
	Job         workload.Job
	FioOptions  map[string]string
	Fingerprint Fingerprint
	// Dirs are the directions with I/O, in fio's order (read, write, trim).
	Dirs []*Dir
	// Seconds are the per-second samples, oldest first; empty for
	// imported fio results (fio's JSON has none).
	Seconds []Second
	// Slices are the throughput samples of every SliceInterval (a tenth
	// of a second), oldest first: samples enough to compare runs of a
	// few seconds. They tile the measured time (each starts where the
	// one before ended). Empty before schema 3 and for imported fio
	// results.
	Slices []Slice
	// SliceInterval is the nominal length of the slices (the package's
	// SliceInterval when recorded); 0 without slices.
	SliceInterval time.Duration
	// Runs summarise each run of a baseline recorded from several (go
	// test -count=N -stortest.update, see AddRun; sessions grown with
	// -stortest.update=append, see Grow), so that a comparison can
	// measure the spread between runs; nil for a baseline of one run,
	// whose own figures are its only run. The other fields hold one
	// run's full data (Session says whose): AddRun keeps the first
	// run's, Grow the newest session's.
	Runs []RunSummary
	// Tolerances are the comparison rules the test recorded the baseline
	// with, in the syntax of regress.ParseRules ("*.iops=5%,*.clat.p99=off");
	// "" for the defaults. They travel with the baseline, so that
	// `stortest baseline diff` judges as the test does.
	Tolerances string
	// Shared says, when the run's device (or a disk under it) moved
	// other I/O besides the run's own, what was seen, as stortest's
	// shared-device warning puts it ("vda moved 20.1MiB/s besides the
	// run's I/O ..."); "" when nothing else was seen. A comparison does not
	// call a regression on a run made on a shared device, nor an
	// improvement over a baseline that was.
	Shared string
}

// Slice is one throughput sample. Dirs is indexed like DirNames; nil for
// a direction without I/O in the slice.
type Slice struct {
	T    time.Duration // end of the interval since the measured start
	Dur  time.Duration // its length
	Dirs [3]*SliceDir
}

// SliceDir is one direction's completions in a slice.
type SliceDir struct {
	IOs, Bytes uint64
}

// RunSummary is one run of a baseline recorded from several.
type RunSummary struct {
	Created time.Time // when its measured part started (UTC, whole seconds)
	// Session identifies the process that made the run (as
	// Baseline.Session): runs of one session were made by one go test
	// process (-count=N, Repeats), runs of different sessions
	// independently. "" before schema 4.
	Session string
	Runtime time.Duration // measured time
	Dirs    []RunDir      // the directions with I/O, in fio's order
	Shared  string        // as Baseline.Shared, for this run
}

// RunDir is one direction's headline figures in one run: throughput, and
// the clat mean and percentiles (ns; 0 when not recorded), and how much
// the run swung from second to second (Swing).
type RunDir struct {
	Name                                           string
	IOPS, BW                                       float64
	ClatMean                                       float64
	ClatP50, ClatP90, ClatP99, ClatP999, ClatP9999 uint64
	// Swing and LatSwing are how much the run's throughput and its mean
	// completion latency swung from second to second, as Baseline.Swing
	// and LatSwing measure them (0: steady, or not recorded).
	Swing, LatSwing float64
}

// Dir is one direction's totals and statistics.
type Dir struct {
	Name     string // "read", "write" or "trim"
	IOs      uint64 // completed I/Os, errors included
	Bytes    uint64 // bytes transferred
	ShortIOs uint64 // completed with fewer bytes than asked
	Errors   uint64 // completed with an error
	IOPS     float64
	BW       float64 // bytes/s
	// IOPSSamples and BWSamples summarise the per-second samples of whole
	// seconds (fio's iops_* and bw_* fields; BW in bytes/s, where fio
	// prints KiB/s).
	IOPSSamples, BWSamples Moments
	// Slat, Clat and Lat are nil when not recorded: slat for synchronous
	// engines, as fio's N=0.
	Slat, Clat, Lat *Stat
}

// inconsistent says what of a direction's throughput its totals over
// runtime contradict: the field ("iops" or "bw") and why, or "" and nil.
// Throughput is its totals over the run's runtime (IOs/runtime natively;
// fio's divides by the direction's own runtime, rounded up to whole ms,
// which is not above the job's), so that
//
//   - without I/O (or bytes) there is no IOPS (or bandwidth), and
//   - at least one I/O (byte) a second is a non-zero IOPS (bandwidth),
//     however the writer rounded it (fio prints bw_bytes in whole bytes
//     a second, so fewer bytes than seconds may print as 0); a runtime of
//     0 says nothing (stortest's JSON once recorded runs under 1 ms so).
//
// A baseline that breaks them (iops 0 over 35,749 I/Os in a minute)
// would be a level no run can fall below, or a change from 0.
func (d *Dir) inconsistent(runtime time.Duration) (field string, err error) {
	sec := runtime.Seconds()
	for _, x := range []struct {
		field, what string
		total       uint64
		rate        float64
	}{{"iops", "I/Os", d.IOs, d.IOPS}, {"bw", "bytes", d.Bytes, d.BW}} {
		switch {
		case x.total == 0 && x.rate != 0:
			return x.field, fmt.Errorf("%v with no %s", x.rate, x.what)
		case x.rate == 0 && x.total > 0 && sec > 0 && float64(x.total) >= sec:
			return x.field, fmt.Errorf("0 with %d %s in %v", x.total, x.what, runtime)
		}
	}
	return "", nil
}

// Moments summarise a series of per-second samples.
type Moments struct {
	N                      int
	Min, Max, Mean, Stddev float64 // stddev: sample (n-1), as fio
}

// Stat is one latency statistic (slat, clat or lat) of a direction, in ns.
type Stat struct {
	N        uint64
	Min, Max uint64
	Mean     float64
	Stddev   float64
	// P50 to P9999 are fio's percentiles 50, 90, 99, 99.9 and 99.99; 0
	// means unknown (an imported fio result without them).
	P50, P90, P99, P999, P9999 uint64
	// Hist is the merged histogram; nil for imported fio results without
	// json+ bins.
	Hist *Hist
}

// Hist is a histogram as its non-empty buckets (value: count, ascending),
// with the group count of its layout (29 for fio's, latency.LongGroups
// for stortest's default).
type Hist struct {
	Groups int
	Bins   []latency.Bin
}

// Second is one per-second sample. Dirs is indexed like DirNames; nil for
// a direction without I/O in the second.
type Second struct {
	T    time.Duration // end of the interval since the measured start
	Dur  time.Duration // its length: a second, or less for the last one
	Dirs [3]*SecondDir
}

// SecondDir is one direction's completions in a second and the clat
// percentiles and mean of that second (ns; 0 when unknown). Percentiles
// are fio's values of the second's histogram; ClatMean is the mean of its
// bucket values (bucket resolution, rounded to the ns), unknown in
// baselines of schema 1.
type SecondDir struct {
	IOs, Bytes                 uint64
	ClatP50, ClatP99, ClatP999 uint64
	ClatMean                   uint64
}

// Percentile returns the stored value of percentile p (one of
// Percentiles) and whether it is known.
func (s *Stat) Percentile(p float64) (uint64, bool) {
	if s == nil {
		return 0, false
	}
	var v uint64
	switch p {
	case 50:
		v = s.P50
	case 90:
		v = s.P90
	case 99:
		v = s.P99
	case 99.9:
		v = s.P999
	case 99.99:
		v = s.P9999
	default:
		return 0, false
	}
	return v, v != 0
}

func (s *Stat) setPercentile(p float64, v uint64) {
	switch p {
	case 50:
		s.P50 = v
	case 90:
		s.P90 = v
	case 99:
		s.P99 = v
	case 99.9:
		s.P999 = v
	case 99.99:
		s.P9999 = v
	}
}

// Histogram rebuilds the latency histogram. Its count is exact; min, max,
// mean and stddev are bucket-resolution estimates (use the Stat's for the
// exact ones).
func (h *Hist) Histogram() (*latency.Histogram, error) {
	if h == nil {
		return nil, errors.New("baselines: no histogram")
	}
	l, err := latency.NewLayout(h.Groups)
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	hist, err := latency.FromBins(l, h.Bins)
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	return hist, nil
}

// Count returns the number of values in the histogram.
func (h *Hist) Count() uint64 {
	var n uint64
	for _, b := range h.Bins {
		n += b.Count
	}
	return n
}

// Dir returns the direction named "read", "write" or "trim", or nil.
func (b *Baseline) Dir(name string) *Dir {
	for _, d := range b.Dirs {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Stat returns "slat", "clat" or "lat" of the direction, or nil.
func (d *Dir) Stat(name string) *Stat {
	if d == nil {
		return nil
	}
	switch name {
	case "slat":
		return d.Slat
	case "clat":
		return d.Clat
	case "lat":
		return d.Lat
	}
	return nil
}

// SecondMetric selects a per-second series (PerSecond).
type SecondMetric int

const (
	SecondIOPS     SecondMetric = iota // completions per second
	SecondBW                           // bytes per second
	SecondClatP50                      // the second's clat p50, ns
	SecondClatP99                      // the second's clat p99, ns
	SecondClatP999                     // the second's clat p99.9, ns
	SecondClatMean                     // the second's mean clat, ns
)

var secondMetricNames = [...]string{"iops", "bw", "clat.p50", "clat.p99", "clat.p99.9", "clat.mean"}

func (m SecondMetric) String() string {
	if m >= 0 && int(m) < len(secondMetricNames) {
		return secondMetricNames[m]
	}
	return fmt.Sprintf("SecondMetric(%d)", int(m))
}

// SliceInterval is the slice length FromResult records: the runner's
// (workload.SliceInterval). Each baseline keeps its own in its file
// (Baseline.SliceInterval, "interval_ns"), so that the runner's can
// change without misreading older baselines.
const SliceInterval = workload.SliceInterval

// WholeSecond is the shortest interval PerSecond counts: like fio, the last,
// partial interval is left out, since it would read as a sudden drop.
const WholeSecond = time.Second * 99 / 100

// PerSecond returns the series of metric m of direction dir over the whole
// seconds, oldest first. Throughput counts every whole second (zeros
// included: a stall is data) but those before the direction's first I/O
// or after its last in which other directions did I/O: the job was doing
// other work then, as a write job's verify pass reads back after its
// writes, and a direction with no I/O at all has no series; latencies (percentiles and the mean) only the seconds with I/O and a
// known value: a second without completions has no latency, not a
// latency of 0. The series of means is empty for a baseline of schema 1.
func (b *Baseline) PerSecond(dir string, m SecondMetric) []float64 {
	di := slices.Index(DirNames[:], dir)
	if di < 0 {
		return nil
	}
	var out []float64
	first, last := b.activeSeconds(di)
	for i := first; i <= last; i++ {
		s := &b.Seconds[i]
		if s.Dur < WholeSecond {
			continue
		}
		sd := s.Dirs[di]
		switch m {
		case SecondIOPS, SecondBW:
			var v uint64
			if sd != nil {
				v = sd.IOs
				if m == SecondBW {
					v = sd.Bytes
				}
			}
			out = append(out, float64(v)/s.Dur.Seconds())
		case SecondClatMean:
			if sd != nil && sd.IOs > 0 && sd.ClatMean != 0 {
				out = append(out, float64(sd.ClatMean))
			}
		default:
			if sd == nil {
				continue
			}
			v := [...]uint64{sd.ClatP50, sd.ClatP99, sd.ClatP999}[m-SecondClatP50]
			if v != 0 {
				out = append(out, float64(v))
			}
		}
	}
	return out
}

// Swing returns how much direction dir's throughput swung from second
// to second: the robust spread, on the log scale, of its whole seconds'
// IOPS (1.4826 times the median absolute deviation of the logarithms,
// which estimates a normal's standard deviation and ignores a few odd
// seconds such as a throttle's first burst). 0.35 is about 35%. A device
// that holds its rate, as a throttled one does, swings under 1%; one
// whose host starves it of CPU, or whose disk other tenants share,
// 10-90%. 0 with fewer than three whole seconds, or a second without
// I/O (a stall, whose logarithm has no spread to speak of).
func (b *Baseline) Swing(dir string) float64 { return swing(b.PerSecond(dir, SecondIOPS)) }

// LatSwing is Swing of the seconds' mean completion latencies: what
// swings in a rate-limited job, whose throughput the rate holds.
func (b *Baseline) LatSwing(dir string) float64 { return swing(b.PerSecond(dir, SecondClatMean)) }

// swing is the robust log-scale spread of xs (Swing).
func swing(xs []float64) float64 {
	if len(xs) < 3 {
		return 0
	}
	logs := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return 0
		}
		logs[i] = math.Log(x)
	}
	return 1.4826 * medianAbsDev(logs)
}

// medianAbsDev is the median absolute deviation of xs from their median;
// xs is reordered.
func medianAbsDev(xs []float64) float64 {
	med := median(xs)
	for i, x := range xs {
		xs[i] = math.Abs(x - med)
	}
	return median(xs)
}

// median sorts xs and returns their median.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// activeSeconds returns the first and last index of the seconds that
// belong to direction di's series (last < first when none).
func (b *Baseline) activeSeconds(di int) (first, last int) {
	ios := func(i, d int) uint64 {
		if x := b.Seconds[i].Dirs[d]; x != nil {
			return x.IOs
		}
		return 0
	}
	return activeSpan(len(b.Seconds), di, ios)
}

// activeSpan is the span of n intervals that belongs to direction di's
// throughput series, given each interval's completions per direction.
// The intervals before di's first I/O, and those after its last, are
// left out when another direction did I/O among them: the job was doing
// other work (a verify pass). Empty (last < first) when di did no I/O.
func activeSpan(n, di int, ios func(i, d int) uint64) (first, last int) {
	first, last = n, -1
	for i := range n {
		if ios(i, di) > 0 {
			first, last = min(first, i), i
		}
	}
	if last < 0 {
		return 0, -1
	}
	other := func(from, to int) bool {
		for i := from; i < to; i++ {
			for d := range DirNames {
				if d != di && ios(i, d) > 0 {
					return true
				}
			}
		}
		return false
	}
	if !other(0, first) {
		first = 0
	}
	if !other(last+1, n) {
		last = n - 1
	}
	return first, last
}

// PerSlice returns the throughput (SecondIOPS or SecondBW, per second) of
// direction dir in each whole slice, oldest first, over the span
// PerSecond takes (stalls count, the job's other work does not); nil for other
// metrics and for baselines without slices. A slice shorter than 99% of
// SliceInterval (the last, cut short) is left out.
func (b *Baseline) PerSlice(dir string, m SecondMetric) []float64 {
	di := slices.Index(DirNames[:], dir)
	if di < 0 || (m != SecondIOPS && m != SecondBW) || b.SliceInterval <= 0 {
		return nil
	}
	first, last := activeSpan(len(b.Slices), di, func(i, d int) uint64 {
		if x := b.Slices[i].Dirs[d]; x != nil {
			return x.IOs
		}
		return 0
	})
	whole := b.SliceInterval * 99 / 100
	var out []float64
	for i := first; i <= last; i++ {
		s := &b.Slices[i]
		if s.Dur < whole {
			continue
		}
		var v uint64
		if d := s.Dirs[di]; d != nil {
			v = d.IOs
			if m == SecondBW {
				v = d.Bytes
			}
		}
		out = append(out, float64(v)/s.Dur.Seconds())
	}
	return out
}

// RunSummaries returns the runs the baseline holds: Runs, or for a
// baseline of one run, that run's own summary.
func (b *Baseline) RunSummaries() []RunSummary {
	if len(b.Runs) > 0 {
		return b.Runs
	}
	return []RunSummary{b.summary()}
}

// summary is the baseline's own run as a RunSummary.
func (b *Baseline) summary() RunSummary {
	r := RunSummary{Created: b.Created, Session: b.Session, Runtime: b.Runtime, Shared: b.Shared}
	for _, d := range b.Dirs {
		rd := RunDir{Name: d.Name, IOPS: d.IOPS, BW: d.BW, Swing: b.Swing(d.Name), LatSwing: b.LatSwing(d.Name)}
		if c := d.Clat; c != nil {
			rd.ClatMean = c.Mean
			rd.ClatP50, rd.ClatP90, rd.ClatP99, rd.ClatP999, rd.ClatP9999 = c.P50, c.P90, c.P99, c.P999, c.P9999
		}
		r.Dirs = append(r.Dirs, rd)
	}
	return r
}

// Sessions returns the sessions of the baseline's runs (RunSummaries),
// each once, in the order their first run appears in Runs: oldest first
// for a baseline grown one session at a time (Grow appends). The runs
// without a session (recorded before schema 4) count as one session,
// "": several of them were recorded with -count=N in one process, and
// a baseline of one such run is one session.
func (b *Baseline) Sessions() []string {
	var out []string
	for _, r := range b.RunSummaries() {
		if !slices.Contains(out, r.Session) {
			out = append(out, r.Session)
		}
	}
	return out
}

// ProcessSession returns the session of this process: 16 random hex
// digits, made once, which FromResult records in every baseline the
// process makes. Two processes (two go test runs) have different
// sessions; every run of one go test -count=N has the same.
func ProcessSession() string { return processSession() }

var processSession = sync.OnceValue(func() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on Linux; a clock is unique enough
		// per process should it ever.
		return fmt.Sprintf("%016x", uint64(time.Now().UnixNano())^uint64(os.Getpid())<<40)
	}
	return hex.EncodeToString(b[:])
})

// ErrOtherJob is matched by AddRun's error for a run of another job.
var ErrOtherJob = errors.New("baselines: not a run of the same job")

// AddRun adds another run of the same job to the baseline, making it a
// baseline of several runs: Runs gets the baseline's own run first (when
// it held one) and then each of other's. The full data (histograms,
// seconds, slices) stays the first run's; comparisons use Runs for the
// spread between runs. Each run keeps its Session, so Runs tells the runs
// of one process from independent ones. other must be a run of the same
// job (same name, same workload; the target's path may differ).
func (b *Baseline) AddRun(other *Baseline) error {
	if other == nil {
		return nil
	}
	if other.Name != b.Name {
		return fmt.Errorf("%w: %q is not %q", ErrOtherJob, other.Name, b.Name)
	}
	if ch := DiffJobs(b.Job, other.Job); len(ch) > 0 {
		return fmt.Errorf("%w: %s: the workload differs: %s", ErrOtherJob, b.Name, ch[0])
	}
	if len(b.Runs) == 0 {
		b.Runs = []RunSummary{b.summary()}
	}
	// Clipped: a copy of the baseline (b2 := *b) may share the array.
	b.Runs = append(slices.Clip(b.Runs), other.RunSummaries()...)
	b.Schema = SchemaVersion
	return nil
}

// ErrPartial is returned by FromResult for a run that was cancelled or
// failed: its numbers are not a baseline.
var ErrPartial = errors.New("baselines: partial result")

// FromResult makes the baseline of one job from a Run's result, merging the
// job's clones (numjobs) as fio's group_reporting does: counts add,
// histograms merge (percentiles are never averaged), throughput is over
// the longest clone's runtime, and the per-second samples of the clones
// add second by second. fp describes where it ran (see Probe); its Engine
// and Version are filled in when empty. Session is this process's
// (ProcessSession). All jobs of res must be clones of
// one job.
func FromResult(res *workload.Result, fp Fingerprint) (*Baseline, error) {
	if res == nil || len(res.Jobs) == 0 {
		return nil, errors.New("baselines: empty result")
	}
	return fromJobs(res.Jobs, fp)
}

// FromJobResult is FromResult for one clone.
func FromJobResult(jr *workload.JobResult, fp Fingerprint) (*Baseline, error) {
	if jr == nil {
		return nil, errors.New("baselines: nil job result")
	}
	return fromJobs([]*workload.JobResult{jr}, fp)
}

func fromJobs(jobs []*workload.JobResult, fp Fingerprint) (*Baseline, error) {
	first := jobs[0]
	for _, j := range jobs {
		if j.Name != first.Name {
			return nil, fmt.Errorf("baselines: result holds jobs %q and %q: one baseline is one job", first.Name, j.Name)
		}
		if j.Err != nil {
			return nil, fmt.Errorf("%w: job %s.%d failed: %v", ErrPartial, j.Name, j.Clone, j.Err)
		}
		if j.Canceled {
			return nil, fmt.Errorf("%w: job %s.%d was cancelled", ErrPartial, j.Name, j.Clone)
		}
	}
	if fp.Engine == "" {
		fp.Engine = first.Engine
	}
	if fp.Engine == "" {
		fp.Engine = first.Job.Normalized().Engine
	}
	if fp.Version == "" {
		fp.Version = "stortest-" + workload.Version
	}
	b := &Baseline{
		Schema:      SchemaVersion,
		Name:        first.Name,
		Created:     first.Start.UTC().Truncate(time.Second),
		Session:     ProcessSession(),
		Clones:      len(jobs),
		Job:         first.Job.Normalized(),
		Fingerprint: fp,
	}
	for _, j := range jobs {
		b.Runtime = max(b.Runtime, j.Runtime)
	}
	secs, err := mergeSeconds(jobs)
	if err != nil {
		return nil, err
	}
	b.Seconds = secs
	if b.Slices = mergeSlices(jobs); len(b.Slices) > 0 {
		b.SliceInterval = SliceInterval
	}
	merged, err := mergeDirs(jobs)
	if err != nil {
		return nil, err
	}
	for d := range workload.NumDirs {
		s := &merged[d]
		if s.IOs == 0 {
			continue
		}
		dir := &Dir{
			Name: DirNames[d], IOs: s.IOs, Bytes: s.Bytes, ShortIOs: s.ShortIOs, Errors: s.Errors,
		}
		if sec := b.Runtime.Seconds(); sec > 0 {
			dir.IOPS = float64(s.IOs) / sec
			dir.BW = float64(s.Bytes) / sec
		}
		dir.IOPSSamples = moments(b.PerSecond(dir.Name, SecondIOPS))
		dir.BWSamples = moments(b.PerSecond(dir.Name, SecondBW))
		dir.Slat, dir.Clat, dir.Lat = StatOf(s.Slat), StatOf(s.Clat), StatOf(s.Lat)
		b.Dirs = append(b.Dirs, dir)
	}
	if len(b.Dirs) == 0 {
		return nil, fmt.Errorf("baselines: job %s completed no I/O", first.Name)
	}
	return b, nil
}

// mergeDirs sums the clones' totals and merges their histograms with
// workload.DirStats.Add, as workload.Result.Merged does, tolerating
// absent histograms.
func mergeDirs(jobs []*workload.JobResult) ([workload.NumDirs]workload.DirStats, error) {
	var out [workload.NumDirs]workload.DirStats
	for d := range workload.NumDirs {
		for _, j := range jobs {
			if err := out[d].Add(&j.Dirs[d]); err != nil {
				return out, fmt.Errorf("baselines: job %s.%d: %w", j.Name, j.Clone, err)
			}
		}
	}
	return out, nil
}

// StatOf summarises a histogram as a baseline keeps it: exact
// statistics, fio's percentiles and the non-empty buckets. nil for an
// empty (or absent) histogram.
func StatOf(h *latency.Histogram) *Stat {
	if h == nil || h.Count() == 0 {
		return nil
	}
	s := &Stat{N: h.Count(), Min: h.Min(), Max: h.Max(), Mean: h.Mean(), Stddev: h.Stddev(),
		Hist: &Hist{Groups: h.Layout().Groups(), Bins: h.Bins()}}
	for _, p := range Percentiles {
		s.setPercentile(p, h.Percentile(p))
	}
	return s
}

// mergeSeconds adds the clones' seconds index by index and computes each
// second's clat percentiles and mean from the merged bins.
func mergeSeconds(jobs []*workload.JobResult) ([]Second, error) {
	n := 0
	seconds := make([][]workload.Second, len(jobs))
	for i, j := range jobs {
		seconds[i] = foldEmptySeconds(j.Seconds)
		n = max(n, len(seconds[i]))
	}
	out := make([]Second, n)
	var scratch [workload.NumDirs]*latency.Histogram
	for d := range workload.NumDirs {
		if h := jobs[0].Dirs[d].Clat; h != nil {
			scratch[d] = latency.New(h.Layout())
		}
	}
	for i := range out {
		var ios, bytes [workload.NumDirs]uint64
		var seen [workload.NumDirs]bool
		// Σ value·count and Σ count of the second's clat bins: its mean
		// at bucket resolution.
		var clatSum, clatN [workload.NumDirs]float64
		for d := range workload.NumDirs {
			if scratch[d] != nil {
				scratch[d].Reset()
			}
		}
		for ji, j := range jobs {
			if i >= len(seconds[ji]) {
				continue
			}
			s := &seconds[ji][i]
			out[i].T = max(out[i].T, s.T)
			out[i].Dur = max(out[i].Dur, s.Dur)
			for d := range workload.NumDirs {
				ios[d] += s.IOs[d]
				bytes[d] += s.Bytes[d]
				seen[d] = seen[d] || s.IOs[d] > 0 || !s.Clat[d].Empty()
				if scratch[d] == nil {
					continue
				}
				for v, c := range s.Clat[d].All() {
					if got := scratch[d].Layout().Value(scratch[d].Layout().Index(v)); got != v {
						return nil, fmt.Errorf("baselines: job %s second %d: clat bin %d is not a bucket value", j.Name, i+1, v)
					}
					scratch[d].AddBin(v, c)
					clatSum[d] += float64(v) * float64(c)
					clatN[d] += float64(c)
				}
			}
		}
		for d := range workload.NumDirs {
			if !seen[d] {
				continue
			}
			sd := &SecondDir{IOs: ios[d], Bytes: bytes[d]}
			if h := scratch[d]; h != nil && h.Count() > 0 {
				sd.ClatP50, sd.ClatP99, sd.ClatP999 = h.Percentile(50), h.Percentile(99), h.Percentile(99.9)
			}
			if clatN[d] > 0 {
				sd.ClatMean = uint64(math.Round(clatSum[d] / clatN[d]))
			}
			out[i].Dirs[d] = sd
		}
	}
	return out, nil
}

// mergeSlices adds the clones' slices index by index.
func mergeSlices(jobs []*workload.JobResult) []Slice {
	n := 0
	clones := make([][]workload.Slice, len(jobs))
	for i, j := range jobs {
		clones[i] = foldEmptySlices(j.Slices)
		n = max(n, len(clones[i]))
	}
	if n == 0 {
		return nil
	}
	out := make([]Slice, n)
	for i := range out {
		var ios, bytes [workload.NumDirs]uint64
		for _, cs := range clones {
			if i >= len(cs) {
				continue
			}
			s := &cs[i]
			out[i].T, out[i].Dur = max(out[i].T, s.T), max(out[i].Dur, s.Dur)
			for d := range workload.NumDirs {
				ios[d] += s.IOs[d]
				bytes[d] += s.Bytes[d]
			}
		}
		for d := range workload.NumDirs {
			if ios[d] > 0 || bytes[d] > 0 {
				out[i].Dirs[d] = &SliceDir{IOs: ios[d], Bytes: bytes[d]}
			}
		}
	}
	// Clones end at slightly different instants: keep the time line
	// strictly increasing.
	for i := 1; i < len(out); i++ {
		if out[i].T <= out[i-1].T {
			out[i].T = out[i-1].T + 1
		}
		out[i].Dur = out[i].T - out[i-1].T
	}
	if len(out) > 0 {
		out[0].Dur = out[0].T
	}
	return out
}

// foldEmptySlices folds slices of no length, or that end no later than
// the one before, into the slice before them (the runner never makes
// them, but a result may come from elsewhere), so that slices strictly
// advance. Unlike a second, an empty first slice is not dropped: its
// completions go to the first slice with a length.
func foldEmptySlices(in []workload.Slice) []workload.Slice {
	clean := true
	for i := range in {
		if in[i].Dur <= 0 || in[i].T <= 0 || (i > 0 && in[i].T <= in[i-1].T) {
			clean = false
		}
	}
	if clean {
		return in
	}
	add := func(dst, src *workload.Slice) {
		for d := range workload.NumDirs {
			dst.IOs[d] += src.IOs[d]
			dst.Bytes[d] += src.Bytes[d]
		}
	}
	out := make([]workload.Slice, 0, len(in))
	var carry workload.Slice // what empty first slices held
	for _, s := range in {
		switch n := len(out); {
		case n > 0 && (s.Dur <= 0 || s.T <= out[n-1].T):
			add(&out[n-1], &s)
		case n == 0 && (s.Dur <= 0 || s.T <= 0):
			add(&carry, &s)
		default:
			if n == 0 {
				add(&s, &carry)
			}
			out = append(out, s)
		}
	}
	return out
}

// foldEmptySeconds folds intervals of no length (a final tick at the
// instant of the last one) into the interval before them, so that
// seconds strictly advance.
func foldEmptySeconds(secs []workload.Second) []workload.Second {
	clean := true
	for i := range secs {
		if secs[i].Dur <= 0 || (i > 0 && secs[i].T <= secs[i-1].T) {
			clean = false
		}
	}
	if clean {
		return secs
	}
	out := make([]workload.Second, 0, len(secs))
	for _, s := range secs {
		if n := len(out); n > 0 && (s.Dur <= 0 || s.T <= out[n-1].T) {
			p := &out[n-1]
			for d := range workload.NumDirs {
				p.IOs[d] += s.IOs[d]
				p.Bytes[d] += s.Bytes[d]
				p.Clat[d] = sumSparse(p.Clat[d], s.Clat[d])
			}
			continue
		}
		if s.Dur <= 0 {
			continue // an empty first interval
		}
		out = append(out, s)
	}
	return out
}

// moments summarises samples as fio's iops_*/bw_* fields do.
func moments(xs []float64) Moments {
	if len(xs) == 0 {
		return Moments{}
	}
	m := Moments{N: len(xs), Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range xs {
		m.Min, m.Max = math.Min(m.Min, x), math.Max(m.Max, x)
		sum += x
	}
	m.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - m.Mean) * (x - m.Mean)
		}
		m.Stddev = math.Sqrt(ss / float64(len(xs)-1))
	}
	return m
}

// sumSparse returns the buckets of a and b added together.
func sumSparse(a, b latency.Sparse) latency.Sparse {
	switch {
	case a.Empty():
		return b
	case b.Empty():
		return a
	}
	h := latency.New(a.Layout())
	a.AddTo(h)
	b.AddTo(h)
	return latency.NewSparse(h)
}
