package stortest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/human"
	"stortest.dev/latency"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// The checks on a Result. Each comes in two forms, after gotest.tools'
// assert and check: Require* reports with t.Errorf and then stops the
// test (t.FailNow) when the condition does not hold; Check* reports with
// t.Errorf and lets the test go on, so that one run shows every limit it
// breaks. Check* return whether the condition held. Every failure is
// also recorded as a <failure> of the run's testcase in the JUnit report,
// with the same one-line message:
//
//	randread-4k: clat p99.9 read 2.41ms > limit 2ms
//
// A run cut short by Main's interrupt (SIGINT, SIGTERM, the test
// binary's -timeout about to expire) has failed already with the
// cancellation, and its figures cover seconds, not the job: the checks
// of measurements (percentiles, floors, steady state, baselines) do not
// judge it. They log
//
//	randread-4k: clat p99.9 not judged: run cut short by SIGINT after 3.2s of 1m0s
//
// record no failure, return false, and as Require* stop the test. Each
// check's doc says what it still reports on such a run.

// stat is one of fio's three latencies.
type stat uint8

const (
	statSlat stat = iota
	statClat
	statLat
)

func (s stat) String() string { return [...]string{"slat", "clat", "lat"}[s] }

// Latency selects a latency statistic, and optionally one direction, for
// the percentile checks. Slat, Clat and Lat select every direction that
// did I/O, each checked on its own; Read, Write, Trim and In narrow the
// selection to one direction, which must then have done I/O.
type Latency struct {
	stat   stat
	dir    workload.Dir
	oneDir bool
}

var (
	// Slat is the submission latency: from preparing an I/O to the
	// engine accepting it. As in fio, only asynchronous engines (libaio,
	// io_uring) have it.
	Slat = Latency{stat: statSlat}
	// Clat is the completion latency: from submission to completion,
	// what fio reports by default.
	Clat = Latency{stat: statClat}
	// Lat is the total latency: slat plus clat; for a synchronous
	// engine, which has no slat, clat.
	Lat = Latency{stat: statLat}
)

// Read selects reads only.
func (l Latency) Read() Latency { return l.In(workload.DirRead) }

// Write selects writes only.
func (l Latency) Write() Latency { return l.In(workload.DirWrite) }

// Trim selects trims only.
func (l Latency) Trim() Latency { return l.In(workload.DirTrim) }

// In selects direction d only.
func (l Latency) In(d workload.Dir) Latency {
	l.dir, l.oneDir = d, true
	return l
}

// String is "clat", or "clat read" with a direction.
func (l Latency) String() string {
	if l.oneDir {
		return l.stat.String() + " " + l.dir.String()
	}
	return l.stat.String()
}

func (l Latency) dirs() []workload.Dir {
	if l.oneDir {
		return []workload.Dir{l.dir}
	}
	return []workload.Dir{workload.DirRead, workload.DirWrite, workload.DirTrim}
}

func (l Latency) hist(s *workload.DirStats) *latency.Histogram {
	switch l.stat {
	case statSlat:
		return s.Slat
	case statLat:
		return s.Lat
	}
	return s.Clat
}

// emit turns findings into test failures and JUnit failures: one
// t.Errorf each, then t.FailNow when stop is set and there were any.
func (r *Result) emit(t testing.TB, stop bool, findings []report.Failure) bool {
	t.Helper()
	for _, f := range findings {
		if r.rec != nil {
			r.rec.addFailure(f, false)
		}
		if f.Detail != "" {
			t.Errorf("%s\n%s", f.Message, f.Detail)
		} else {
			t.Errorf("%s", f.Message)
		}
	}
	if stop && len(findings) > 0 {
		t.FailNow()
	}
	return len(findings) == 0
}

// CheckPercentile checks that percentile p (0 < p <= 100, fio's
// definition: the bucket value of fio's histogram) of the selected
// latency, merged over the job's clones, is at most limit in each
// selected direction. It reports with t.Errorf and continues.
//
//	res.CheckPercentile(t, stortest.Clat, 99.9, 2*time.Millisecond)
//	res.CheckPercentile(t, stortest.Lat.Write(), 99, 5*time.Millisecond)
//
// On a run cut short by Main's interrupt it does not judge the
// percentile: the tail of a few seconds is not the job's. It logs so and
// returns false; a percentile outside (0, 100] still fails.
func (r *Result) CheckPercentile(t testing.TB, l Latency, p float64, limit time.Duration) bool {
	t.Helper()
	return r.measured(t, false, percentileLabel(l, p), "≤ "+human.Duration(limit), r.percentileFindings(l, p, limit))
}

// RequirePercentile is CheckPercentile that stops the test (FailNow),
// also when a run cut short leaves it unjudged.
func (r *Result) RequirePercentile(t testing.TB, l Latency, p float64, limit time.Duration) {
	t.Helper()
	r.measured(t, true, percentileLabel(l, p), "≤ "+human.Duration(limit), r.percentileFindings(l, p, limit))
}

// percentileLabel names a percentile check in logs: "clat p99.9", "clat
// p99 read".
func percentileLabel(l Latency, p float64) string {
	label := l.stat.String() + " p" + strconv.FormatFloat(p, 'f', -1, 64)
	if l.oneDir {
		label += " " + l.dir.String()
	}
	return label
}

func (r *Result) percentileFindings(l Latency, p float64, limit time.Duration) []report.Failure {
	label := l.stat.String() + " p" + strconv.FormatFloat(p, 'f', -1, 64)
	if !(p > 0 && p <= 100) {
		return []report.Failure{{Message: fmt.Sprintf("%s: %s: the percentile is outside (0, 100]", r.Name(), label), Type: "usage"}}
	}
	merged := r.Merged()
	var out []report.Failure
	checked := 0
	for _, d := range l.dirs() {
		s := merged[d]
		if s.IOs == 0 {
			if l.oneDir {
				out = append(out, report.Failure{Message: fmt.Sprintf("%s: %s %s: no %s I/O to measure", r.Name(), label, d, d), Type: "limit"})
			}
			continue
		}
		h := l.hist(&s)
		if h == nil || h.Count() == 0 {
			out = append(out, report.Failure{Message: fmt.Sprintf("%s: %s %s: no samples (the %s engine records no submission latency; "+
				"as in fio, only asynchronous engines do)", r.Name(), label, d, r.Job.Engine), Type: "limit"})
			continue
		}
		checked++
		v := time.Duration(h.Percentile(p))
		if v > limit {
			out = append(out, report.Failure{
				Message: fmt.Sprintf("%s: %s %s %s > limit %v", r.Name(), label, d, human.Duration(v), limit),
				Type:    "limit",
				Detail:  describe(l.stat.String()+" "+d.String(), h),
			})
		}
	}
	if !l.oneDir && checked == 0 && len(out) == 0 {
		out = append(out, report.Failure{Message: fmt.Sprintf("%s: %s: no I/O to measure", r.Name(), label), Type: "limit"})
	}
	return out
}

// describe summarizes a histogram in one line, for failure details.
func describe(name string, h *latency.Histogram) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d samples, min %s, mean %s, max %s;", name, h.Count(),
		human.Duration(time.Duration(h.Min())), human.Duration(time.Duration(h.Mean())), human.Duration(time.Duration(h.Max())))
	for _, p := range []float64{50, 90, 99, 99.9, 99.99} {
		fmt.Fprintf(&b, " p%s %s", strconv.FormatFloat(p, 'f', -1, 64), human.Duration(time.Duration(h.Percentile(p))))
	}
	return b.String()
}

// dirsLabel names a direction selection: "" for all directions summed,
// "read", "read+write".
func dirsLabel(dirs []workload.Dir) string {
	var names []string
	for _, d := range dirs {
		names = append(names, d.String())
	}
	return strings.Join(names, "+")
}

// rate sums a per-job, per-direction rate over the clones and the
// selected directions (all when none are given).
func (r *Result) rate(dirs []workload.Dir, f func(j *workload.JobResult, d workload.Dir) float64) float64 {
	if len(dirs) == 0 {
		dirs = []workload.Dir{workload.DirRead, workload.DirWrite, workload.DirTrim}
	}
	var sum float64
	for _, j := range r.Jobs {
		for _, d := range dirs {
			sum += f(j, d)
		}
	}
	return sum
}

// IOPS returns the completions per second of the selected directions
// (all when none are given), summed over the job's clones.
func (r *Result) IOPS(dirs ...workload.Dir) float64 {
	return r.rate(dirs, (*workload.JobResult).IOPS)
}

// BW returns the bytes per second of the selected directions (all when
// none are given), summed over the job's clones.
func (r *Result) BW(dirs ...workload.Dir) float64 {
	return r.rate(dirs, (*workload.JobResult).BW)
}

// floorFindings fails a rate below its floor. format prints the figures
// for people; where it rounds the two to the same text ("1k < floor
// 1k"), exact prints them instead.
func (r *Result) floorFindings(metric string, got, floor float64, dirs []workload.Dir, format, exact func(float64) string) []report.Failure {
	if got >= floor {
		return nil
	}
	label := metric
	if l := dirsLabel(dirs); l != "" {
		label += " " + l
	}
	g, f := format(got), format(floor)
	if g == f {
		g, f = exact(got), exact(floor)
	}
	return []report.Failure{{Message: fmt.Sprintf("%s: %s %s < floor %s", r.Name(), label, g, f), Type: "limit"}}
}

// exactIOPS and exactRate print a rate to a tenth, for figures that
// human.Count and human.BW round alike: "999.6 < floor 1000".
func exactIOPS(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
}

func exactRate(v float64) string { return exactIOPS(v) + "B/s" }

// CheckIOPS checks that the completions per second of the given
// directions (all directions summed when none are given), summed over
// the job's clones, are at least floor. It reports with t.Errorf and
// continues. On a run cut short by Main's interrupt, whose rate may be
// the ramp's, it does not judge: it logs so and returns false.
func (r *Result) CheckIOPS(t testing.TB, floor float64, dirs ...workload.Dir) bool {
	t.Helper()
	return r.iopsFloor(t, false, floor, dirs)
}

// RequireIOPS is CheckIOPS that stops the test (FailNow), also when a
// run cut short leaves it unjudged.
func (r *Result) RequireIOPS(t testing.TB, floor float64, dirs ...workload.Dir) {
	t.Helper()
	r.iopsFloor(t, true, floor, dirs)
}

// CheckBW checks that the bandwidth in bytes per second of the given
// directions (all summed when none are given) is at least floor. It
// reports with t.Errorf and continues. On a run cut short by Main's
// interrupt it does not judge: it logs so and returns false.
func (r *Result) CheckBW(t testing.TB, floor float64, dirs ...workload.Dir) bool {
	t.Helper()
	return r.bwFloor(t, false, floor, dirs)
}

// RequireBW is CheckBW that stops the test (FailNow), also when a run
// cut short leaves it unjudged.
func (r *Result) RequireBW(t testing.TB, floor float64, dirs ...workload.Dir) {
	t.Helper()
	r.bwFloor(t, true, floor, dirs)
}

// iopsFloor and bwFloor judge the floors of CheckIOPS, RequireIOPS,
// CheckBW and RequireBW; fatal stops the test.
func (r *Result) iopsFloor(t testing.TB, fatal bool, floor float64, dirs []workload.Dir) bool {
	t.Helper()
	return r.measured(t, fatal, floorLabel("iops", dirs), "≥ "+human.Count(floor), r.floorFindings("iops", r.IOPS(dirs...), floor, dirs, human.Count, exactIOPS))
}

func (r *Result) bwFloor(t testing.TB, fatal bool, floor float64, dirs []workload.Dir) bool {
	t.Helper()
	return r.measured(t, fatal, floorLabel("bw", dirs), "≥ "+human.BW(floor), r.floorFindings("bw", r.BW(dirs...), floor, dirs, human.BW, exactRate))
}

// floorLabel names a floor check in logs: "iops floor", "bw read
// floor".
func floorLabel(metric string, dirs []workload.Dir) string {
	if l := dirsLabel(dirs); l != "" {
		metric += " " + l
	}
	return metric + " floor"
}

// CheckNoErrors checks that no I/O failed (nor an fsync). It reports with
// t.Errorf and continues. It judges a run cut short by Main's interrupt
// as any other: an I/O that failed did so however long the run, and the
// cancellation fails none (the runner stops issuing I/O and reaps what
// is in flight).
func (r *Result) CheckNoErrors(t testing.TB) bool {
	t.Helper()
	findings := r.errorFindings()
	r.noteCheck("no failed I/O", "", findings, true)
	return r.emit(t, false, findings)
}

// RequireNoErrors is CheckNoErrors that stops the test (FailNow).
func (r *Result) RequireNoErrors(t testing.TB) {
	t.Helper()
	findings := r.errorFindings()
	r.noteCheck("no failed I/O", "", findings, true)
	r.emit(t, true, findings)
}

func (r *Result) errorFindings() []report.Failure {
	var total uint64
	byErrno := map[int]uint64{}
	var first []workload.IOError
	for _, j := range r.Jobs {
		total += j.TotalErrors()
		for e, n := range j.ErrnoCounts {
			byErrno[e] += n
		}
		first = append(first, j.FirstErrors...)
	}
	if total == 0 {
		return nil
	}
	var kinds []string
	for _, e := range slices.Sorted(maps.Keys(byErrno)) {
		name := unix.ErrnoName(unix.Errno(e))
		if name == "" {
			name = "errno " + strconv.Itoa(e)
		}
		kinds = append(kinds, fmt.Sprintf("%s x%d", name, byErrno[e]))
	}
	msg := fmt.Sprintf("%s: %d failed I/Os (%s)", r.Name(), total, strings.Join(kinds, ", "))
	var detail []string
	for _, e := range first {
		detail = append(detail, e.Error())
	}
	if len(first) > 0 {
		msg += "; first: " + first[0].Error()
	}
	return []report.Failure{{Message: msg, Type: "io-errors", Detail: strings.Join(detail, "\n")}}
}

// CheckVerify checks that the job verified its data (Job.Verify set)
// and every block read back matched what was written. It reports with
// t.Errorf and continues. On a run cut short by Main's interrupt a block
// read back wrong still fails (the data is corrupt however short the
// run), as does verify left off; a verify pass cut short, or never
// reached, is not judged: the check logs so and returns false.
func (r *Result) CheckVerify(t testing.TB) bool {
	t.Helper()
	return r.checkVerify(t, false)
}

// RequireVerify is CheckVerify that stops the test (FailNow), also when
// a run cut short leaves it unjudged.
func (r *Result) RequireVerify(t testing.TB) {
	t.Helper()
	r.checkVerify(t, true)
}

func (r *Result) checkVerify(t testing.TB, stop bool) bool {
	t.Helper()
	findings := r.verifyFindings()
	r.noteCheck("verify", "", findings, r.cut == nil || r.verifyMismatches() > 0)
	if r.cut != nil && r.verifyMismatches() == 0 {
		return r.notJudged(t, stop, "verify", findings)
	}
	return r.emit(t, stop, findings)
}

// verifyMismatches counts the blocks read back wrong, over the clones.
func (r *Result) verifyMismatches() uint64 {
	var bad uint64
	for _, j := range r.Jobs {
		bad += j.Verify.Mismatches
	}
	return bad
}

func (r *Result) verifyFindings() []report.Failure {
	if r.Job.Verify == workload.VerifyNone {
		return []report.Failure{{Message: r.Name() + ": verify is off: set Job.Verify to check the data", Type: "usage"}}
	}
	var checked, bad uint64
	var first []string
	for _, j := range r.Jobs {
		checked += j.Verify.Checked
		bad += j.Verify.Mismatches
		for _, e := range j.Verify.First {
			first = append(first, e.Error())
		}
	}
	switch {
	case bad > 0:
		msg := fmt.Sprintf("%s: verify: %d of %d blocks read back do not match what was written", r.Name(), bad, checked)
		if len(first) > 0 {
			msg += "; first: " + first[0]
		}
		return []report.Failure{{Message: msg, Type: "verify", Detail: strings.Join(first, "\n")}}
	case checked == 0:
		return []report.Failure{{Message: r.Name() + ": verify: no block was read back (did the run end before its verify pass?)", Type: "verify"}}
	}
	return nil
}
