package regress

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/latency"
)

// Finding is the comparison of one metric.
type Finding struct {
	Metric  string // "read.iops", "read.clat.p99.9"
	Unit    Unit
	Better  Better
	Base    float64 // the baseline's value
	Current float64 // the current run's value
	// Ratio is Current/Base (+Inf when only Base is 0). Change() is
	// Ratio-1.
	Ratio float64
	// Interval is the interval of Ratio the verdict rests on, at
	// Confidence: the family-wise level when several metrics are compared
	// (Config.PerMetric), so that the interval printed is the one judged.
	// nil when the samples do not allow one (see Reason).
	Interval   *Interval
	Confidence float64
	Tolerance  Tolerance
	Samples    Samples // what the interval rests on
	// Runs is how many runs the baseline's value rests on (1 unless the
	// baseline was recorded from several); with several, Base is the
	// geometric mean of their sessions' means and the interval accounts
	// for the spread between and within sessions. With several current
	// runs (a repeat), Current is their geometric mean.
	Runs int
	// Sessions is how many independent sessions (separate processes)
	// the baseline's runs come from: what the run-to-run spread was
	// learned from (see runs.go); 1 for a baseline of one run or of runs
	// of one go test -count=N.
	Sessions int
	// Spread is the run-to-run spread the verdict used, a log-scale
	// standard deviation (0.021 is about 2.1%): learned from Sessions
	// when two or more, else assumed (DefaultRunSpread).
	Spread float64
	// More is, for an Inconclusive verdict, about how many more samples
	// (in Samples.Kind) each run needs for a clear verdict; 0 when unknown
	// or not applicable.
	More    uint64
	Verdict Verdict
	// Reason is one line for people: `read clat p99 2.41ms vs baseline
	// 1.98ms (+21.7%, 99.2% CI +15.2%..+28.9%): regression beyond 10%
	// tolerance`.
	Reason string

	// The interval's parts, on the log scale, before decide sets
	// Interval: the deviations below and above the ratio measured within
	// the runs at the comparison's Config.Confidence, and the run-to-run
	// spread.
	wLo, wHi float64
	run      runSpread
	// rangeP > 0: the runs' sample ranges do not overlap, which the exact
	// Mann-Whitney test puts at this p-value; capLo and capHi then bound
	// the interval's log deviations.
	rangeP, capLo, capHi float64
	// again: inconclusive, and another run of the current session would
	// narrow the interval most (Report.RunAgain).
	again bool
	// noWithin: the runs have nothing to measure their own noise with
	// (percentiles of plain fio JSON); the spread between sessions alone
	// sets the interval.
	noWithin bool
}

// Interval is a confidence interval of a ratio Current/Base.
type Interval struct {
	Low, High float64
}

// Samples says what an interval rests on.
type Samples struct {
	Kind          string // "seconds", "I/Os" or "intervals" (fio's samples)
	Base, Current uint64 // how many of them each run has
	Method        string // how the interval was computed
}

// Change returns the relative change Ratio-1: 0.217 for +21.7%.
func (f Finding) Change() float64 { return f.Ratio - 1 }

// String returns Reason.
func (f Finding) String() string { return f.Reason }

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// MarshalJSON writes non-finite ratios (a change from 0) and intervals as
// null.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	out := struct {
		plain
		Ratio  *float64 `json:"Ratio"`
		Change *float64 `json:"Change"`
	}{plain: plain(f)}
	if finite(f.Ratio) {
		r, c := f.Ratio, f.Ratio-1
		out.Ratio, out.Change = &r, &c
	}
	if f.Interval != nil && !(finite(f.Interval.Low) && finite(f.Interval.High)) {
		out.Interval = nil
	}
	for _, v := range []*float64{&out.Base, &out.Current} {
		if !finite(*v) {
			*v = 0
		}
	}
	return json.Marshal(out)
}

// Report is the comparison of a run with its baseline.
type Report struct {
	Name    string  // the job
	Verdict Verdict // the most severe finding's; Pass when there are none
	// Findings are the compared metrics, per direction in fio's order
	// (read, write, trim), throughput first.
	Findings []Finding
	// Fingerprint lists what changed where the job ran (firmware, kernel):
	// reported, not judged; it is what the gate is for.
	Fingerprint []baselines.Change
	// Job lists workload options that differ: the runs may not be like
	// with like (run -stortest.update after changing a test's workload).
	Job []baselines.Change
	// Level is the level the regression and improvement verdicts were
	// judged at, the intervals' in the findings: Confidence, shared by
	// the Metrics compared with intervals (1 with Config.PerMetric) and
	// by the Looks of a repeat (Config.Spent); Look is this one.
	// Confidence is the level asked for (Config.Confidence).
	Level, Confidence    float64
	Metrics, Look, Looks int
}

// RunAgain reports whether another run of the current session could
// settle the report: some finding is inconclusive, and its interval is
// mostly the current session's (the noise within the run and the spread
// between runs of one session, which the mean of more runs shrinks).
// False when only more baseline sessions, longer runs or nothing could:
// a finding short of samples per run (Finding.More), or one whose
// interval is mostly the spread between sessions. It does not know how
// many looks remain (Config.Looks): the caller stops there.
func (r Report) RunAgain() bool {
	for _, f := range r.Findings {
		if f.Verdict == Inconclusive && f.again {
			return true
		}
	}
	return false
}

// Regressions returns the findings with a Regression verdict.
func (r Report) Regressions() []Finding { return r.with(Regression) }

// Inconclusive returns the findings with an Inconclusive verdict.
func (r Report) Inconclusive() []Finding { return r.with(Inconclusive) }

func (r Report) with(v Verdict) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Verdict == v {
			out = append(out, f)
		}
	}
	return out
}

// Finding returns the finding of a metric.
func (r Report) Finding(metric string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Metric == metric {
			return f, true
		}
	}
	return Finding{}, false
}

// Summary is one line: the verdict, the counts, the fingerprint changes.
func (r Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", r.Name, r.Verdict)
	var counts []string
	for _, v := range []Verdict{Regression, Inconclusive, Improvement, Pass, NotCompared} {
		if n := len(r.with(v)); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(counts) > 0 {
		b.WriteString(" (" + strings.Join(counts, ", ") + ")")
	}
	if lv := r.levelText(); lv != "" {
		b.WriteString("; " + lv)
	}
	for _, c := range r.Fingerprint {
		b.WriteString("; " + c.String())
	}
	if len(r.Job) > 0 {
		b.WriteString("; workload changed:")
		for _, c := range r.Job {
			b.WriteString(" " + c.String())
		}
	}
	return b.String()
}

// levelText says why the findings' intervals are at the level they are:
// "intervals at 99.17%: 95% family-wise over 6 metrics", or with a
// repeat's looks "intervals at 99.62%: 95% family-wise over 6 metrics
// and 5 looks (look 2)". "" when the level is the confidence itself.
func (r Report) levelText() string {
	if r.Level == 0 || (r.Metrics <= 1 && r.Looks <= 1) {
		return ""
	}
	var over []string
	if r.Metrics > 1 {
		over = append(over, fmt.Sprintf("%d metrics", r.Metrics))
	}
	if r.Looks > 1 {
		over = append(over, fmt.Sprintf("%d looks (look %d)", r.Looks, r.Look))
	}
	return fmt.Sprintf("intervals at %s: %s family-wise over %s", confidencePct(r.Level), confidencePct(r.Confidence), strings.Join(over, " and "))
}

// Overall returns the most severe verdict of reports (Pass when none).
func Overall(reports ...Report) Verdict {
	v := Pass
	for _, r := range reports {
		v = max(v, r.Verdict)
	}
	return v
}

// Compare compares the current run cur with its baseline base, metric by
// metric as cfg's rules say (DefaultRules unless changed).
//
// Each metric has a point estimate, the ratio Current/Base of the runs'
// values (percentiles from the merged histograms, never averaged), and an
// interval for that ratio from what the runs recorded:
//   - throughput: a moving-block bootstrap of the per-second samples
//     (blocks of ceil(sqrt(n)) seconds), never narrower than the t-interval
//     with AR(1) effective sample sizes; for imported fio results (no
//     seconds), a normal approximation from fio's sample moments.
//   - percentiles: a distribution-free interval from the order statistics
//     of each merged histogram, combined with the drift between seconds
//     that order statistics cannot see, measured by the moving-block
//     bootstrap of the nearest per-second clat percentile with enough I/Os
//     per second (else of per-second IOPS). A percentile needs enough I/Os
//     for an interval below the maximum (368 for p99 at 95%, 3688 for
//     p99.9, 36887 for p99.99), and the runs enough seconds (MinSamples)
//     to measure the drift, else it is Inconclusive.
//   - means: the standard errors of the two means, combined with the
//     drift between seconds measured by the moving-block bootstrap of the
//     per-second clat means; for baselines without per-second means
//     (schema 1, imported fio results), the drift of p50 as above.
//
// The verdict (see decide): Regression when the estimate is worse than the
// baseline by more than the tolerance and the interval, at the
// family-wise level of all metrics compared, excludes no change;
// Improvement, the mirror image; Inconclusive when the estimate is beyond
// tolerance without that certainty, or the interval reaches beyond
// tolerance and is too wide to resolve a tolerance-sized change, with how
// many more samples would settle it; Pass otherwise. The bootstrap is
// seeded from the inputs: the same baselines always give the same report.
func Compare(base, cur *baselines.Baseline, cfg Config) Report {
	if base == nil || cur == nil {
		return Report{Verdict: Inconclusive, Findings: []Finding{{Metric: "baseline", Verdict: Inconclusive,
			Reason: "nothing to compare: a baseline is missing"}}}
	}
	cfg = cfg.withDefaults()
	c := &comparer{cfg: cfg, base: base, cur: cur, z: zScore(cfg.Confidence), boot: map[string]bootResult{}, pending: map[string]uint64{}}
	r := Report{Name: base.Name, Fingerprint: base.Fingerprint.Diff(cur.Fingerprint), Job: baselines.DiffJobs(base.Job, cur.Job)}
	// A direction on one side only is said with its IOPS.
	iops := metricTable[indexOfMetric(metricTable, "iops")]
	for _, bd := range base.Dirs {
		cd := cur.Dir(bd.Name)
		if cd == nil {
			f := c.finding(bd.Name+"."+iops.Name, iops.Unit, iops.Better, bd.IOPS, 0, cfg.rule(bd.Name+"."+iops.Name).Tolerance)
			f.Verdict = Regression
			f.Reason = fmt.Sprintf("%s iops 0 vs %s: no %s I/O in the current run", bd.Name, iops.Format(bd.IOPS), bd.Name)
			r.Findings = append(r.Findings, f)
			continue
		}
		r.Findings = append(r.Findings, c.dir(bd, cd)...)
	}
	for _, cd := range cur.Dirs {
		if base.Dir(cd.Name) != nil {
			continue
		}
		name := cd.Name + "." + iops.Name
		if cfg.rule(name).Off {
			continue
		}
		f := c.finding(name, iops.Unit, iops.Better, 0, cd.IOPS, cfg.rule(name).Tolerance)
		f.Verdict = Inconclusive
		f.Reason = fmt.Sprintf("%s iops %s vs 0: the baseline has no %s I/O to compare with", cd.Name, iops.Format(cd.IOPS), cd.Name)
		r.Findings = append(r.Findings, f)
	}
	// Every compared metric is a chance of a false alarm: a regression (or
	// improvement) must hold at the family-wise level, Bonferroni's
	// 1-(1-Confidence)/m for m metrics with intervals, so that an
	// unchanged device is flagged at most 1-Confidence of the time
	// whatever the number of metrics. Reasons show the Confidence
	// interval.
	//
	// A repeat's looks (Config.Looks) share that alpha too (Config.Spent).
	m := len(c.pending)
	if cfg.PerMetric {
		m = 1
	}
	family := 1 - cfg.Spent(1-cfg.Confidence)/float64(max(m, 1))
	r.Level, r.Confidence, r.Metrics = family, cfg.Confidence, len(c.pending)
	r.Looks = max(cfg.Looks, 1)
	r.Look = min(max(cfg.Look, 1), r.Looks)
	if cfg.PerMetric {
		r.Metrics = 1
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Verdict == pending {
			c.decide(f, c.pending[f.Metric], family, len(c.pending))
			c.unshared(f)
		}
		if f.Verdict != NotCompared {
			r.Verdict = max(r.Verdict, f.Verdict)
		}
	}
	if r.Verdict == Improvement && r.mixed() {
		r.Verdict = Pass
	}
	return r
}

// mixed reports whether some finding got worse, if within tolerance,
// while others improved: a run 4.8% slower whose p50 dropped is a pass,
// not an improvement. Worse means by more than fio's bucket resolution
// (about 0.8%), below which two values are the same.
func (r Report) mixed() bool {
	for _, f := range r.Findings {
		if f.Verdict == Improvement || f.Verdict == NotCompared || !finite(f.Ratio) {
			continue
		}
		if d := f.Ratio - 1; (f.Better == HigherIsBetter && d < -0.01) || (f.Better == LowerIsBetter && d > 0.01) {
			return true
		}
	}
	return false
}

// comparer holds one comparison's inputs and memoised bootstrap results.
type comparer struct {
	cfg       Config
	base, cur *baselines.Baseline
	z         float64
	boot      map[string]bootResult // by metric name
	pending   map[string]uint64     // metrics with an interval to judge: samples per run
}

// pending marks a finding whose verdict waits until every metric has its
// interval (judge).
const pending Verdict = -1

// judge marks f to be decided once the number of metrics with intervals
// is known: dLo and dHi are the log deviations of its ratio's interval
// from within the runs, at Config.Confidence; n is the samples per run
// they rest on.
func (c *comparer) judge(f *Finding, n uint64, dLo, dHi float64) {
	f.Verdict = pending
	f.wLo, f.wHi = dLo, dHi
	c.pending[f.Metric] = n
}

// bootResult is a bootstrap interval as log deviations below and above
// the observed ratio.
type bootResult struct {
	ok          bool
	dLo, dHi    float64 // >= 0
	nBase, nCur int     // samples of each run
	lBase, lCur int     // block lengths, in samples
	kind        string  // "seconds" or "slices"
}

func (c *comparer) finding(metric string, u Unit, better Better, base, cur float64, tol Tolerance) Finding {
	ratio := math.Inf(1)
	switch {
	case base != 0:
		ratio = cur / base
	case cur == 0:
		ratio = 1
	}
	f := Finding{Metric: metric, Unit: u, Better: better, Base: base, Current: cur, Ratio: ratio,
		Confidence: c.cfg.Confidence, Tolerance: tol, Runs: 1}
	f.run = c.spread(metric)
	if f.run.mean > 0 {
		// Several baseline runs: compare with the (geometric) mean of
		// their sessions' means.
		f.Base, f.Runs = f.run.mean, f.run.runs
	}
	if f.run.curMean > 0 {
		// Several current runs of one session: their geometric mean.
		f.Current = f.run.curMean
	}
	if f.run.mean > 0 || f.run.curMean > 0 {
		f.Ratio = f.Current / f.Base
	}
	f.Sessions = f.run.sessions
	f.Spread = f.run.shown()
	return f
}

// dir compares one direction's metrics.
func (c *comparer) dir(bd, cd *baselines.Dir) []Finding {
	var out []Finding
	add := func(metric string, f func(name string, tol Tolerance) Finding) {
		name := bd.Name + "." + metric
		rule := c.cfg.rule(name)
		if rule.Off {
			return
		}
		out = append(out, f(name, rule.Tolerance))
	}
	for _, m := range metricTable {
		var bs, cs *baselines.Stat
		if m.Stat != "" {
			if bs, cs = bd.Stat(m.Stat), cd.Stat(m.Stat); bs == nil {
				continue // nothing recorded to compare with (slat of a sync engine)
			}
		}
		switch m.kind {
		case kindThroughput:
			add(m.Name, func(name string, tol Tolerance) Finding {
				bv, _ := m.Value(bd)
				cv, _ := m.Value(cd)
				return c.throughput(m, name, bd.Name, bv, cv, m.samples(bd), m.samples(cd), tol)
			})
		case kindErrors:
			add(m.Name, func(name string, tol Tolerance) Finding { return c.errors(m, name, bd, cd, tol) })
		case kindMean:
			add(m.Name, func(name string, tol Tolerance) Finding { return c.mean(m, name, bd.Name, bs, cs, tol) })
		case kindPercentile:
			add(m.Name, func(name string, tol Tolerance) Finding {
				return c.percentile(m, name, bd.Name, bs, cs, tol)
			})
		}
	}
	return out
}

func pKey(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// label turns "read.clat.p99.9" into "read clat p99.9".
func label(metric string) string {
	parts := strings.SplitN(metric, ".", 3)
	return strings.Join(parts, " ")
}

// throughput compares IOPS or bandwidth (row): bv and cv are the runs'
// values, bm and cm fio's sample moments of them.
func (c *comparer) throughput(row Metric, name, dir string, bv, cv float64, bm, cm baselines.Moments, tol Tolerance) Finding {
	f := c.finding(name, row.Unit, row.Better, bv, cv, tol)
	br := c.bootstrap(name, dir, row.second)
	switch {
	case br.ok:
		f.Samples = Samples{Kind: br.kind, Base: uint64(br.nBase), Current: uint64(br.nCur),
			Method: fmt.Sprintf("moving-block bootstrap of per-%s samples (blocks of %d and %d)", singular(br.kind), br.lBase, br.lCur)}
		c.judge(&f, uint64(min(br.nBase, br.nCur)), br.dLo, br.dHi)
	case bm.N >= 2 && cm.N >= 2 && bm.Mean > 0 && cm.Mean > 0 && (br.nBase == 0 || br.nCur == 0):
		// fio's moments (imported results): fio logs IOPS and bandwidth
		// every 500 ms by default, so a 5 s run has about ten samples.
		dLo, dHi := momentsInterval(bm, cm, c.cfg.Confidence)
		f.Samples = Samples{Kind: "intervals", Base: uint64(bm.N), Current: uint64(cm.N),
			Method: "Welch's t on fio's sample moments (autocorrelation unknown)"}
		if p := exactRangeP(bm.N, cm.N); bm.Min > 0 && cm.Min > 0 && (cm.Max < bm.Min || cm.Min > bm.Max) {
			// Every sample of one run beat every sample of the other.
			obs := cm.Mean / bm.Mean
			f.rangeP = p
			f.capLo, f.capHi = math.Inf(1), math.Inf(1)
			if cm.Max < bm.Min {
				f.capHi = math.Max(0, math.Log(cm.Max/bm.Min/obs))
			} else {
				f.capLo = math.Max(0, -math.Log(cm.Min/bm.Max/obs))
			}
			f.Samples.Method += fmt.Sprintf("; the sample ranges do not overlap (exact Mann-Whitney p %.2g)", p)
		}
		c.judge(&f, uint64(min(bm.N, cm.N)), dLo, dHi)
	default:
		nb, nc := br.nBase, br.nCur
		if nb == 0 || nc == 0 {
			nb, nc = max(nb, bm.N), max(nc, cm.N)
		}
		f.Samples = Samples{Kind: cmpOr(br.kind, "seconds"), Base: uint64(nb), Current: uint64(nc)}
		fewest := min(nb, nc)
		f.Verdict = Inconclusive
		if fewest >= c.cfg.MinSamples {
			f.Reason = fmt.Sprintf("%s: inconclusive: no interval from %d and %d %s (a series of zeros?)",
				head(&f), nb, nc, f.Samples.Kind)
			break
		}
		f.More = uint64(c.cfg.MinSamples - fewest)
		f.Reason = fmt.Sprintf("%s: inconclusive: %d %s in the shorter run, need %d (%d more)%s",
			head(&f), fewest, f.Samples.Kind, c.cfg.MinSamples, f.More, c.kindNote(f.Samples.Kind, f.More))
	}
	return f
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// singular turns a sample kind ("seconds", "slices") into its singular.
func singular(kind string) string { return strings.TrimSuffix(kind, "s") }

// momentsInterval is the interval of the ratio of two means from fio's
// sample moments (imported results), as log deviations at conf: Welch's
// t on the log scale, which cannot see autocorrelation.
//
// When the two runs' sample ranges do not overlap, every sample of one
// run beat every sample of the other, and the exact Mann-Whitney test
// says how unlikely that is by chance (exactRangeP). The ratio of the
// means then lies between the ranges' facing ends, which bound the
// interval on that side however few samples there are: Compare caps the
// interval there when that p-value is below the level it judges at.
func momentsInterval(bm, cm baselines.Moments, conf float64) (dLo, dHi float64) {
	vb, vc := sq(bm.Stddev/bm.Mean)/float64(bm.N), sq(cm.Stddev/cm.Mean)/float64(cm.N)
	if vb+vc == 0 {
		return 0, 0
	}
	df := sq(vb+vc) / (sq(vb)/float64(bm.N-1) + sq(vc)/float64(cm.N-1))
	h := tQuantile(conf, df) * math.Sqrt(vb+vc)
	return h, h
}

// exactRangeP is the two-sided p-value of the exact Mann-Whitney test
// when all n samples of one run lie on one side of all m of the other:
// 2/C(n+m, n).
func exactRangeP(n, m int) float64 {
	lc, _ := math.Lgamma(float64(n + m + 1))
	ln, _ := math.Lgamma(float64(n + 1))
	lm, _ := math.Lgamma(float64(m + 1))
	return math.Min(1, 2*math.Exp(ln+lm-lc))
}

func sq(x float64) float64 { return x * x }

// series returns the runs' samples of a throughput metric, or of a
// per-second latency: per second when both runs have MinSamples seconds
// (blocks of seconds see drift over seconds), else per slice (a tenth
// of a second), so that a run of a few seconds still has an interval:
// a 2 s run has 20 slices.
func (c *comparer) series(dir string, m baselines.SecondMetric) (bs, cs []float64, kind string) {
	bs, cs = c.base.PerSecond(dir, m), c.cur.PerSecond(dir, m)
	if len(bs) >= c.cfg.MinSamples && len(cs) >= c.cfg.MinSamples || (m != baselines.SecondIOPS && m != baselines.SecondBW) {
		return bs, cs, "seconds"
	}
	if bsl, csl := c.base.PerSlice(dir, m), c.cur.PerSlice(dir, m); len(bsl) >= c.cfg.MinSamples && len(csl) >= c.cfg.MinSamples {
		return bsl, csl, "slices"
	}
	return bs, cs, "seconds"
}

// bootstrap returns (memoised) the moving-block bootstrap of a series'
// mean ratio, as log deviations at Config.Confidence.
func (c *comparer) bootstrap(name, dir string, m baselines.SecondMetric) bootResult {
	if r, ok := c.boot[name]; ok {
		return r
	}
	bs, cs, kind := c.series(dir, m)
	r := bootResult{nBase: len(bs), nCur: len(cs), kind: kind}
	if len(bs) >= c.cfg.MinSamples && len(cs) >= c.cfg.MinSamples {
		r.lBase, r.lCur = blockLen(len(bs), c.cfg.BlockLen), blockLen(len(cs), c.cfg.BlockLen)
		lo, hi, ok := ratioInterval(bs, cs, r.lBase, r.lCur, c.cfg.Resamples, c.cfg.Confidence, seededRand(name, bs, cs))
		if ok && lo > 0 {
			r.ok = true
			r.dLo, r.dHi = math.Max(0, -math.Log(lo)), math.Max(0, math.Log(hi))
		}
	}
	c.boot[name] = r
	return r
}

// errors compares I/O error counts: any errors where the baseline had
// none is a regression; otherwise error rates (per I/O) are compared with
// the tolerance. Counts are exact: no interval.
func (c *comparer) errors(row Metric, name string, bd, cd *baselines.Dir, tol Tolerance) Finding {
	bv, _ := row.Value(bd)
	cv, _ := row.Value(cd)
	f := c.finding(name, row.Unit, row.Better, bv, cv, tol)
	f.Samples = Samples{Kind: "I/Os", Base: bd.IOs, Current: cd.IOs, Method: "exact counts"}
	rate := func(d *baselines.Dir) float64 {
		if d.IOs == 0 {
			return 0
		}
		return float64(d.Errors) / float64(d.IOs)
	}
	rb, rc := rate(bd), rate(cd)
	h := fmt.Sprintf("%s %d vs %d", label(name), cd.Errors, bd.Errors)
	switch {
	case bd.Errors == 0 && cd.Errors == 0:
		f.Verdict, f.Reason = Pass, h+": no I/O errors"
	case bd.Errors == 0:
		f.Verdict, f.Reason = Regression, h+": I/O errors where the baseline had none"
	case tol.Equal(rb, rc):
		f.Verdict, f.Reason = Pass, fmt.Sprintf("%s: error rate %.3g%% vs %.3g%%, within %s tolerance", h, 100*rc, 100*rb, trimPercent(100*tol.Fraction)+"%")
	case rc > rb:
		f.Verdict, f.Reason = Regression, fmt.Sprintf("%s: error rate %.3g%% vs %.3g%%: regression", h, 100*rc, 100*rb)
	default:
		f.Verdict, f.Reason = Improvement, fmt.Sprintf("%s: error rate %.3g%% vs %.3g%%: improvement", h, 100*rc, 100*rb)
	}
	return f
}

// secondMetric maps a clat percentile to its per-second series.
func secondMetric(p float64) (baselines.SecondMetric, bool) {
	switch p {
	case 50:
		return baselines.SecondClatP50, true
	case 99:
		return baselines.SecondClatP99, true
	case 99.9:
		return baselines.SecondClatP999, true
	}
	return 0, false
}

// rankDev returns, for percentile p of histogram h with point value v, the
// log deviations to the values at the order statistics bounding a
// distribution-free interval (ranks np -+ z*sqrt(np(1-p))), at least the
// bucket's half-width (fio's ~0.78% resolution).
func rankDev(h *latency.Histogram, p, z float64, v uint64) (dLo, dHi float64) {
	n := float64(h.Count())
	q := p / 100
	sd := math.Sqrt(n * q * (1 - q))
	kLo := uint64(max(1, math.Floor(n*q-z*sd)))
	kHi := uint64(min(n, math.Ceil(n*q+z*sd)))
	lo, hi := valueAtRank(h, kLo), valueAtRank(h, kHi)
	l := h.Layout()
	blo, bhi := l.Bounds(l.Index(v))
	res := 0.0
	if v > 0 {
		res = float64(bhi-blo) / 2 / float64(v)
	}
	dLo = math.Max(res, math.Log(float64(v)/math.Max(1, float64(lo))))
	dHi = math.Max(res, math.Log(float64(hi)/math.Max(1, float64(v))))
	return dLo, dHi
}

// valueAtRank returns the bucket value of the k-th smallest value (1-based).
func valueAtRank(h *latency.Histogram, k uint64) uint64 {
	var cum uint64
	last := 0
	for i, c := range h.Counts() {
		if c == 0 {
			continue
		}
		cum += c
		last = i
		if cum >= k {
			return h.Layout().Value(i)
		}
	}
	return h.Layout().Value(last)
}

// rankInterval returns the log deviations of the ratio's interval from
// both runs' order statistics, or ok false without histograms. The runs'
// values are independent, so their deviations add in quadrature.
func (c *comparer) rankInterval(p float64, bs, cs *baselines.Stat) (dLo, dHi float64, ok bool) {
	if bs == nil || cs == nil || bs.Hist == nil || cs.Hist == nil {
		return 0, 0, false
	}
	bv, ok1 := bs.Percentile(p)
	cv, ok2 := cs.Percentile(p)
	bh, err1 := bs.Hist.Histogram()
	ch, err2 := cs.Hist.Histogram()
	if !ok1 || !ok2 || err1 != nil || err2 != nil || bh.Count() == 0 || ch.Count() == 0 {
		return 0, 0, false
	}
	bLo, bHi := rankDev(bh, p, c.z, bv)
	cLo, cHi := rankDev(ch, p, c.z, cv)
	// ln(C/B): its low end pairs C's low with B's high, and vice versa.
	return math.Hypot(cLo, bHi), math.Hypot(cHi, bLo), true
}

// perSecondValid reports whether the per-second clat percentile p means
// something: each second (the median one, in both runs) must hold enough
// I/Os for p to lie below its maximum, else the per-second value is
// little more than the second's largest latency.
func (c *comparer) perSecondValid(dir string, p float64) bool {
	need := float64(minOrderSamples(p, c.cfg.Confidence))
	for _, b := range []*baselines.Baseline{c.base, c.cur} {
		ios := b.PerSecond(dir, baselines.SecondIOPS)
		if len(ios) == 0 {
			return false
		}
		sorted := append([]float64(nil), ios...)
		slices.Sort(sorted)
		if sorted[len(sorted)/2] < need {
			return false
		}
	}
	return true
}

// timeNoise is the part of a latency interval that comes from the run's
// drift from second to second (a slow minute, a busy neighbour), which
// order statistics, assuming independent latencies, cannot see. It is
// measured where it can be: the moving-block bootstrap of the per-second
// clat percentile nearest to p (on the log scale of the tail) that has
// enough I/Os per second, less that percentile's order-statistics part;
// without per-second percentiles, the throughput bootstrap (a closed-loop
// device's latency moves with its IOPS); for imported fio results, fio's
// IOPS moments. It returns log deviations and a description, or an empty
// description when there are too few samples to tell.
func (c *comparer) timeNoise(dir string, p float64) (eLo, eHi float64, from string) {
	type cand struct {
		q    float64
		dist float64
	}
	var cands []cand
	for _, q := range baselines.SecondPercentiles {
		cands = append(cands, cand{q, math.Abs(math.Log(100-p) - math.Log(100-q))})
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmpFloat(a.dist, b.dist) })
	bs, cs := c.base.Dir(dir).Stat("clat"), c.cur.Dir(dir).Stat("clat")
	for _, cd := range cands {
		m, _ := secondMetric(cd.q)
		if !c.perSecondValid(dir, cd.q) {
			continue
		}
		br := c.bootstrap(dir+".clat."+pKey(cd.q)+"/second", dir, m)
		if !br.ok {
			continue
		}
		rLo, rHi, _ := c.rankInterval(cd.q, bs, cs) // zeros without histograms
		eLo = math.Sqrt(math.Max(0, sq(br.dLo)-sq(rLo)))
		eHi = math.Sqrt(math.Max(0, sq(br.dHi)-sq(rHi)))
		return eLo, eHi, fmt.Sprintf("the moving-block bootstrap of per-second clat %s (blocks of %d and %d s)", pKey(cd.q), br.lBase, br.lCur)
	}
	if br := c.bootstrap(dir+".iops", dir, baselines.SecondIOPS); br.ok {
		// A latency ratio moves inversely to the IOPS ratio.
		return br.dHi, br.dLo, fmt.Sprintf("the moving-block bootstrap of IOPS per %s (blocks of %d and %d)", singular(br.kind), br.lBase, br.lCur)
	}
	bm, cm := c.base.Dir(dir).IOPSSamples, c.cur.Dir(dir).IOPSSamples
	if bm.N >= 2 && cm.N >= 2 && bm.Mean > 0 && cm.Mean > 0 && len(c.base.Seconds) == 0 && len(c.cur.Seconds) == 0 {
		lo, hi := momentsInterval(bm, cm, c.cfg.Confidence)
		return hi, lo, "Welch's t on fio's IOPS sample moments"
	}
	return 0, 0, ""
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// percentile compares a percentile of a latency stat (row.Stat, row.P).
func (c *comparer) percentile(row Metric, name, dir string, bs, cs *baselines.Stat, tol Tolerance) Finding {
	stat, p := row.Stat, row.P
	bvRaw, okB := bs.Percentile(p)
	var cvRaw uint64
	okC := false
	if cs != nil {
		cvRaw, okC = cs.Percentile(p)
	}
	f := c.finding(name, row.Unit, row.Better, float64(bvRaw), float64(cvRaw), tol)
	f.Samples = Samples{Kind: "I/Os", Base: bs.N}
	if cs != nil {
		f.Samples.Current = cs.N
	}
	if !okB || !okC {
		f.Verdict = Inconclusive
		which := "the baseline"
		if okB {
			which = "the current run"
		}
		f.Reason = fmt.Sprintf("%s: inconclusive: %s has no %s %s", label(name), which, stat, pKey(p))
		return f
	}
	need := minOrderSamples(p, c.cfg.Confidence)
	if fewest := min(bs.N, cs.N); fewest < need {
		which := "the current run"
		if bs.N < cs.N {
			which = "the baseline"
		}
		f.More = need - fewest
		f.Verdict = Inconclusive
		f.Reason = fmt.Sprintf("%s: inconclusive: a distribution-free %s CI of %s below the maximum needs %d I/Os per run, %s has %d (%d more)",
			head(&f), confidencePct(c.cfg.Confidence), pKey(p), need, which, fewest, f.More)
		return f
	}
	rLo, rHi, ok := c.rankInterval(p, bs, cs)
	if !ok {
		// Plain fio JSON: fio's percentile list, no histograms, no
		// seconds. The percentile is compared on the spread between the
		// baseline's sessions, which their values show, once there are
		// minSessionsToHold of them; before, it is not compared.
		if f.run.sessions >= minSessionsToHold {
			f.noWithin = true
			f.Samples.Method = "the spread between the baseline's sessions alone (no histograms: plain fio JSON)"
			c.judge(&f, 0, 0, 0)
			return f
		}
		f.Verdict = NotCompared
		f.Reason = fmt.Sprintf("%s: not compared: plain fio JSON (not json+) has no histograms to measure the noise within a run, and the baseline holds %s; record json+ (fio --output-format=json+), or grow the baseline to %d sessions to compare it on the spread between them",
			head(&f), plural(f.run.sessions, "session"), minSessionsToHold)
		return f
	}
	eLo, eHi, from := c.timeNoise(dir, p)
	if from == "" {
		return c.noDrift(f, dir)
	}
	dLo, dHi := math.Hypot(rLo, eLo), math.Hypot(rHi, eHi)
	f.Samples.Method = "order statistics of the merged histograms and " + from
	n := min(bs.N, cs.N)
	if math.Max(eLo, eHi) > math.Max(rLo, rHi) {
		// The drift dominates: more samples means more seconds.
		nb := max(len(c.base.PerSecond(dir, baselines.SecondIOPS)), c.base.Dir(dir).IOPSSamples.N)
		nc := max(len(c.cur.PerSecond(dir, baselines.SecondIOPS)), c.cur.Dir(dir).IOPSSamples.N)
		f.Samples.Kind, f.Samples.Base, f.Samples.Current = "seconds", uint64(nb), uint64(nc)
		n = uint64(min(nb, nc))
	}
	c.judge(&f, n, dLo, dHi)
	return f
}

// mean compares a stat's mean latency. The interval combines the
// standard errors of the means (stddev/sqrt(N), as if latencies were
// independent) with the drift from second to second (meanDrift).
func (c *comparer) mean(row Metric, name, dir string, bs, cs *baselines.Stat, tol Tolerance) Finding {
	stat := row.Stat
	var cm float64
	if cs != nil {
		cm = cs.Mean
	}
	f := c.finding(name, row.Unit, row.Better, bs.Mean, cm, tol)
	if cs == nil || cs.N < 2 || bs.N < 2 || bs.Mean <= 0 || cs.Mean <= 0 {
		f.Verdict = Inconclusive
		f.Reason = fmt.Sprintf("%s: inconclusive: too few %s values", label(name), stat)
		return f
	}
	se := seMeans(c.z, bs, cs)
	f.Samples = Samples{Kind: "I/Os", Base: bs.N, Current: cs.N}
	n := min(bs.N, cs.N)
	eLo, eHi, from, br := c.meanDrift(dir)
	if stat == "clat" && len(c.base.PerSecond(dir, baselines.SecondClatMean)) == 0 && len(c.cur.PerSecond(dir, baselines.SecondClatMean)) == 0 && !c.userRule(name) {
		// Compared by default only where the runs kept per-second clat
		// means to measure the mean's drift with: the drift of p50,
		// the fallback, swings where the mean holds steady.
		f.Verdict = NotCompared
		f.Reason = fmt.Sprintf("%s: not compared by default: the runs keep no per-second clat means (baselines before schema 2, imported fio results) to measure its drift with; -stortest.tolerance '%s=10%%' compares it on the drift of p50",
			head(&f), name)
		return f
	}
	switch {
	case br.nBase > 0 && br.nCur > 0 && !br.ok:
		return c.noDriftIn(f, br.nBase, br.nCur, "per-second clat means")
	case from == "":
		return c.noDrift(f, dir)
	case br.ok && math.Max(eLo, eHi) > se:
		// The drift dominates: more samples means more seconds.
		f.Samples.Kind, f.Samples.Base, f.Samples.Current = "seconds", uint64(br.nBase), uint64(br.nCur)
		n = uint64(min(br.nBase, br.nCur))
	}
	f.Samples.Method = "standard errors of the means and " + from
	c.judge(&f, n, math.Hypot(se, eLo), math.Hypot(se, eHi))
	return f
}

// userRule reports whether a rule of Config.Rules, not DefaultRules
// alone, matches metric.
func (c *comparer) userRule(metric string) bool {
	for _, r := range c.cfg.Rules {
		if ok, _ := path.Match(r.Metric, metric); ok {
			return true
		}
	}
	return false
}

// seMeans is the half-width, on the log scale, of the interval of the
// ratio of two means from their standard errors alone.
func seMeans(z float64, bs, cs *baselines.Stat) float64 {
	return z * math.Sqrt(sq(bs.Stddev/bs.Mean)/float64(bs.N)+sq(cs.Stddev/cs.Mean)/float64(cs.N))
}

// meanDrift is the part of a mean latency's interval that comes from the
// run's drift from second to second, which standard errors, assuming
// independent latencies, cannot see. Where both runs kept per-second clat
// means (baselines of schema 2), it is the moving-block bootstrap of
// those means, less the clat means' standard errors, which the bootstrap
// also measures; br is that bootstrap (br.nBase and br.nCur are 0 when a
// run has no per-second means). Otherwise, for older baselines and
// imported fio results, it is the drift of p50 (timeNoise), the nearest
// per-second statistic they have; a per-second median can swing while the
// mean stays steady (blk-throttle releasing I/O in bursts), so that is a
// fallback only. from describes the source, empty when there are too few
// samples to tell.
func (c *comparer) meanDrift(dir string) (eLo, eHi float64, from string, br bootResult) {
	br = c.bootstrap(dir+".clat.mean/second", dir, baselines.SecondClatMean)
	if br.nBase < c.cfg.MinSamples || br.nCur < c.cfg.MinSamples {
		// No per-second means (schema 1, fio), or too few seconds: the
		// drift of p50, or of throughput per slice on a short run.
		eLo, eHi, from = c.timeNoise(dir, 50)
		return eLo, eHi, from, bootResult{}
	}
	if !br.ok {
		return 0, 0, "", br
	}
	var se float64
	if bs, cs := c.base.Dir(dir).Stat("clat"), c.cur.Dir(dir).Stat("clat"); bs != nil && cs != nil &&
		bs.N >= 2 && cs.N >= 2 && bs.Mean > 0 && cs.Mean > 0 {
		se = seMeans(c.z, bs, cs)
	}
	eLo = math.Sqrt(math.Max(0, sq(br.dLo)-sq(se)))
	eHi = math.Sqrt(math.Max(0, sq(br.dHi)-sq(se)))
	return eLo, eHi, fmt.Sprintf("the moving-block bootstrap of per-second clat means (blocks of %d and %d s)", br.lBase, br.lCur), br
}

// noDrift makes a latency finding Inconclusive when the runs have too few
// per-second samples to measure their drift: order statistics alone
// assume independent latencies and would call a slow minute a regression.
func (c *comparer) noDrift(f Finding, dir string) Finding {
	nb := max(len(c.base.PerSecond(dir, baselines.SecondIOPS)), c.base.Dir(dir).IOPSSamples.N)
	nc := max(len(c.cur.PerSecond(dir, baselines.SecondIOPS)), c.cur.Dir(dir).IOPSSamples.N)
	return c.noDriftIn(f, nb, nc, "per-second samples")
}

// noDriftIn is noDrift for a drift measured on a series of which the runs
// have nb and nc samples.
func (c *comparer) noDriftIn(f Finding, nb, nc int, what string) Finding {
	fewest := min(nb, nc)
	f.Samples = Samples{Kind: "seconds", Base: uint64(nb), Current: uint64(nc)}
	f.More = uint64(max(0, c.cfg.MinSamples-fewest))
	f.Verdict = Inconclusive
	f.Reason = fmt.Sprintf("%s: inconclusive: %d %s, need %d to measure the drift between seconds (%d more seconds per run)",
		head(&f), fewest, what, c.cfg.MinSamples, f.More)
	return f
}

// decide sets the interval, verdict and reason of a finding:
//   - Regression: the estimate is worse by more than the tolerance and
//     the interval at the family-wise level excludes no change (its end
//     nearest to the baseline is worse too);
//   - Improvement: the mirror image;
//   - Inconclusive: the estimate is beyond tolerance but that interval
//     includes no change, or the interval at Config.Confidence reaches
//     beyond tolerance and its worse half is wider than the tolerance
//     (the runs cannot tell a tolerance-sized change from none);
//   - Pass: the estimate is within tolerance, measured precisely enough.
//
// The interval the regression verdict rests on combines the deviations
// measured within the runs (which grow as the normal quantiles do) with
// the run-to-run spread (Student's t with its degrees of freedom): the
// larger of the two on each side, since the spread between runs already
// holds the noise within them. That family-wise interval is the one kept
// in the finding. Whether the runs are too noisy to call a change within
// tolerance rests on the noise within them, at Config.Confidence.
//
// family is the confidence level of the regression decision and m the
// metrics it covers. n is the samples per run the interval rests on; an
// inconclusive finding says how many more would do, since intervals
// narrow as 1/sqrt(n), or that more baseline runs would, when the spread
// between runs dominates.
func (c *comparer) decide(f *Finding, n uint64, family float64, m int) {
	worse := func(r float64) bool {
		if f.Better == HigherIsBetter {
			return r < 1
		}
		return r > 1
	}
	better := func(r float64) bool { return r != 1 && !worse(r) }
	beyond := func(r float64) bool { return !f.Tolerance.Equal(f.Base, f.Base*r) }
	// ends returns the interval's end most favourable to the current run
	// (near) and the least (far) at level conf, with the run-to-run
	// spread or without, and whether that spread sets each end.
	ends := func(conf float64, runs bool) (near, far float64, nearByRuns, farByRuns bool) {
		k := zScore(conf) / c.z * f.curShrink()
		wLo, wHi := f.wLo*k, f.wHi*k
		if f.rangeP > 0 && f.rangeP < 1-conf {
			wLo, wHi = math.Min(wLo, f.capLo), math.Min(wHi, f.capHi)
		}
		var r float64
		if runs {
			r = f.run.halfWidth(conf)
		}
		lo, hi := f.Ratio*math.Exp(-math.Max(wLo, r)), f.Ratio*math.Exp(math.Max(wHi, r))
		if f.Better == HigherIsBetter {
			return hi, lo, r > wHi, r > wLo
		}
		return lo, hi, r > wLo, r > wHi
	}
	nearFam, farFam, nearByRuns, _ := ends(family, true)
	f.Interval = &Interval{Low: math.Min(nearFam, farFam), High: math.Max(nearFam, farFam)}
	f.Confidence = family
	// Within tolerance is an equivalence claim: each of its two bounds is
	// one-sided at Confidence (TOST), so the interval it rests on is the
	// two-sided one at 1-2(1-Confidence): 90% for 95%.
	pass := c.passLevel()
	_, far, _, _ := ends(pass, false)
	fromSessions := false
	if f.run.learned() {
		// Whether the run is precise enough to call within tolerance:
		// the sessions' values vary by all the noise within their runs
		// too, so the spread learned from them bounds it where it is
		// narrower than what one run's seconds extrapolate (ten seconds
		// of a bursty device), and sets it where the runs have nothing
		// to measure their own noise with (plain fio JSON).
		if hp := f.run.halfWidth(pass); f.noWithin || hp < math.Abs(math.Log(far/f.Ratio)) {
			far, fromSessions = f.Ratio*math.Exp(-hp), true
			if f.Better == LowerIsBetter {
				far = f.Ratio * math.Exp(hp)
			}
		}
	}
	byRuns := false
	// The worse half of the interval and the tolerance, on the log scale.
	halfWidth := math.Abs(math.Log(far / f.Ratio))
	tolWidth := math.Inf(1)
	if bound := c.toleranceBound(f); bound > 0 {
		tolWidth = math.Abs(math.Log(bound))
	}
	tolText := c.tolText(f)
	var spread, margin float64
	switch {
	case worse(f.Ratio) && beyond(f.Ratio) && worse(nearFam):
		f.Verdict = Regression
		f.Reason = head(f) + ": regression beyond " + tolText
		return
	case better(f.Ratio) && beyond(f.Ratio) && better(farFam):
		f.Verdict = Improvement
		f.Reason = head(f) + ": improvement beyond " + tolText
		return
	case (worse(f.Ratio) && beyond(f.Ratio) || worse(far) && beyond(far) && halfWidth > tolWidth) && c.unholdable(f, tolWidth):
		// Inconclusive, and nothing would settle it.
		f.Verdict = NotCompared
		f.Reason = fmt.Sprintf("%s: not compared: %s varies %s from session to session on this device (from %d sessions), more than %s can hold at %s (it would take %s); compare it with a wider tolerance (-stortest.tolerance '%s=%s') or turn it off",
			head(f), label(f.Metric), pctOf(f.run.sdB), f.run.sessions, tolText, confidencePct(c.cfg.Confidence),
			FormatChange(math.Exp(c.holdWidth(f))-1), f.Metric, trimPercent(math.Ceil(100*(math.Exp(c.holdWidth(f))-1)))+"%")
		return
	case worse(f.Ratio) && beyond(f.Ratio):
		f.Reason = head(f) + ": inconclusive: beyond " + tolText + " but the interval includes no change"
		if m > 1 {
			f.Reason = fmt.Sprintf("%s: inconclusive: beyond %s, but the interval (family-wise over %d metrics) includes no change",
				head(f), tolText, m)
		}
		spread, margin = math.Abs(math.Log(nearFam/f.Ratio)), math.Abs(math.Log(f.Ratio))
		byRuns = nearByRuns
	case worse(far) && beyond(far) && halfWidth > tolWidth:
		f.Reason = fmt.Sprintf("%s: inconclusive: too noisy: the %s bound (one-sided) reaches %s, its spread is wider than %s",
			head(f), confidencePct(c.cfg.Confidence), FormatChange(far-1), tolText)
		spread, margin = halfWidth, tolWidth
		byRuns = fromSessions
	case better(f.Ratio) && beyond(f.Ratio):
		// Better beyond tolerance, but not confirmed: a pass (nothing
		// says it got worse beyond tolerance), not an improvement, and
		// not "within tolerance" either.
		f.Verdict = Pass
		f.Reason = fmt.Sprintf("%s: pass: better by %s, beyond %s, but not confirmed: the interval includes no change",
			head(f), strings.TrimLeft(FormatChange(math.Abs(f.Ratio-1)), "+"), tolText)
		return
	default:
		f.Verdict = Pass
		f.Reason = head(f) + ": within " + tolText
		return
	}
	f.Verdict = Inconclusive
	// The current session's share of the interval: the noise within the
	// run and the spread within a session, against the spread between
	// sessions and the baseline's share, which more current runs leave.
	within := sq(math.Max(f.wLo, f.wHi)*f.curShrink()/c.z) + f.run.within
	f.again = within > f.run.between
	if byRuns {
		f.Reason += "; " + runsAdvice(f.run, c.holdWidth(f) < spread/2)
		return
	}
	if margin > 1e-9 && n > 0 {
		if need := math.Ceil(float64(n) * sq(spread/margin)); need > float64(n) && need < 1e15 {
			f.More = uint64(need) - n
			kind := f.Samples.Kind
			if f.More == 1 {
				kind = strings.TrimSuffix(kind, "s") // "1 more second"
			}
			f.Reason += fmt.Sprintf("; about %d more %s per run needed%s", f.More, kind, c.kindNote(f.Samples.Kind, f.More))
		}
	}
}

// fioSampleInterval is how often fio samples IOPS and bandwidth by
// default (its iops_* and bw_* fields summarise those samples).
const fioSampleInterval = 500 * time.Millisecond

// kindNote says what a count of samples of kind means where a reason
// counts slices or intervals, and how much longer a run n more of them
// make: " (a slice is 100ms of the run's throughput: runs 1.2s longer)".
// "" for seconds and I/Os, which say so themselves.
func (c *comparer) kindNote(kind string, n uint64) string {
	var what string
	var each time.Duration
	switch kind {
	case "slices":
		each = cmp.Or(c.base.SliceInterval, baselines.SliceInterval)
		what = fmt.Sprintf("a slice is %v of the run's throughput", each)
	case "intervals":
		each = fioSampleInterval
		what = fmt.Sprintf("an interval is one of fio's %v IOPS samples", each)
	default:
		return ""
	}
	if n == 0 {
		return " (" + what + ")"
	}
	return fmt.Sprintf(" (%s: runs %v longer)", what, time.Duration(n)*each)
}

// minSessionsToHold is how many baseline sessions must show a metric
// varying beyond its tolerance before it is not compared.
const minSessionsToHold = 3

// holdWidth is the half-width, on the log scale, of the interval an
// unchanged session would have for the within-tolerance call however
// many runs it made: the part of the predictive that more current runs
// cannot shrink (the spread between sessions and the baseline's mean),
// at passLevel, the level of the pass check.
func (c *comparer) holdWidth(f *Finding) float64 {
	return f.run.hold.quantile(1 - c.passLevel())
}

// passLevel is the two-sided level whose interval's bounds are each
// one-sided at Confidence: an equivalence test (TOST) at Confidence.
func (c *comparer) passLevel() float64 { return 1 - 2*(1-c.cfg.Confidence) }

// unholdable reports whether a metric varies so much from session to
// session on this device, as minSessionsToHold or more sessions show,
// that even an unchanged run's interval would reach beyond tolWidth:
// its tolerance cannot be held, however many runs or seconds, and
// calling it inconclusive would fail every strict run for nothing.
func (c *comparer) unholdable(f *Finding, tolWidth float64) bool {
	if f.run.sessions < minSessionsToHold {
		return false
	}
	// Beyond it even with endless current runs; or beyond it with this
	// session's runs where the spread between sessions, which more runs
	// leave, is the larger part (RunAgain's test, the other way round).
	// A current run that swung more than the baseline's sessions do is
	// not the device's usual noise: that is for a rerun to settle.
	return c.holdWidth(f) > tolWidth ||
		f.run.halfWidth(c.passLevel()) > tolWidth && f.run.between >= f.run.within && !f.run.unsettled()
}

// curShrink is how much the noise within runs shrinks when the current
// value is the mean of R runs of one session: the interval from within
// the runs holds the baseline's run and the current one alike, and only
// the current one's part averages over its R runs.
func (f *Finding) curShrink() float64 {
	if r := f.run.cur; r > 1 {
		return math.Sqrt((1 + 1/float64(r)) / 2)
	}
	return 1
}

// unshared makes a regression measured on a shared device, or an
// improvement over a baseline that was, inconclusive: other I/O on the
// device slows a run by as much as it pleases (on a virtual disk shared
// with a neighbour at a tenth of the job's bytes, IOPS moved 4x from run
// to run), so the change may be the neighbour's. Errors and a direction
// gone missing are judged as usual: they do not come from sharing.
func (c *comparer) unshared(f *Finding) {
	switch {
	case f.Verdict == Regression && c.cur.Shared != "":
		f.Verdict = Inconclusive
		f.Reason = fmt.Sprintf("%s: inconclusive: worse beyond %s, but the current run's device was shared (%s): rerun where nothing else uses it",
			head(f), c.tolText(f), c.cur.Shared)
	case f.Verdict == Improvement:
		runs := c.base.RunSummaries()
		n, first := 0, ""
		for _, r := range runs {
			if r.Shared != "" {
				if n == 0 {
					first = r.Shared
				}
				n++
			}
		}
		if n == 0 {
			return
		}
		which := "the baseline's device was shared"
		if len(runs) > 1 {
			which = fmt.Sprintf("the baseline's device was shared in %d of its %d runs", n, len(runs))
		}
		f.Verdict = Inconclusive
		f.Reason = fmt.Sprintf("%s: inconclusive: better beyond %s, but %s (%s): record it where nothing else uses the device",
			head(f), c.tolText(f), which, first)
	}
}

// pctOf prints a log-scale spread as a percentage: "2.0%".
func pctOf(sd float64) string { return strconv.FormatFloat(100*sd, 'f', 1, 64) + "%" }

// runsAdvice says why the spread between sessions decides a finding,
// and what would narrow it: another run of this session when the part
// of the spread within a session dominates (Report.RunAgain), else more
// baseline sessions, or a steadier device said with Config.RunSpread
// when the baseline holds one session. The spread itself and where it
// came from are in the finding's head.
func runsAdvice(s runSpread, moreSessions bool) string {
	switch {
	case s.unsettled():
		return fmt.Sprintf("this run swung %s from second to second (its IOPS or mean latency; a host short of CPU or a disk others use does that), and its spread includes that: a rerun while the host is quiet would settle it",
			pctOf(s.swingRun))
	case s.within > s.between:
		return "the spread between runs decides it, mostly its part within a session: another run of this session would narrow it"
	case !s.learned():
		return "the spread between sessions decides it: add runs of separate sessions to the baseline to learn this device's own, or if it varies less, say so (stortest.AssumeRunSpread, baseline diff --run-spread)"
	case moreSessions:
		return fmt.Sprintf("the spread between sessions decides it, and %d sessions measure it loosely: more baseline sessions would narrow it", s.sessions)
	}
	return "the spread between sessions decides it: this device varies that much from session to session (more baseline sessions narrow only the baseline's share of it)"
}

// toleranceBound is the ratio at which the worse side leaves tolerance;
// 0 when no decrease of a higher-is-better metric can (the floor is above
// the baseline's value).
func (c *comparer) toleranceBound(f *Finding) float64 {
	t, b := f.Tolerance, math.Abs(f.Base)
	if b == 0 {
		return 1
	}
	if f.Better == HigherIsBetter {
		return math.Max(0, math.Min(1/(1+t.Fraction), 1-t.Floor/b))
	}
	return 1 + math.Max(t.Fraction, t.Floor/b)
}

// tolText names the tolerance that applies: the fraction, or the floor
// where it is larger.
func (c *comparer) tolText(f *Finding) string {
	t := f.Tolerance
	if t.Floor > t.Fraction*math.Min(math.Abs(f.Base), math.Abs(f.Current)) {
		return f.Unit.format(t.Floor) + " tolerance"
	}
	return trimPercent(100*t.Fraction) + "% tolerance"
}

// head is the common start of a reason: `read clat p99 2.41ms vs
// baseline 1.98ms (+21.7%, 99.2% CI +15.2%..+28.9%)`: the current run's
// value, then the baseline's, the change and the interval judged.
func head(f *Finding) string {
	var b strings.Builder
	base := "baseline"
	switch {
	case f.Sessions > 1 && f.Runs > f.Sessions:
		base = fmt.Sprintf("baseline (%d runs of %d sessions)", f.Runs, f.Sessions)
	case f.Sessions > 1:
		base = fmt.Sprintf("baseline (%d sessions)", f.Sessions)
	case f.Runs > 1:
		base = fmt.Sprintf("baseline (%d runs)", f.Runs)
	}
	cur := ""
	if f.run.cur > 1 {
		cur = fmt.Sprintf(" (mean of %d runs)", f.run.cur)
	}
	fmt.Fprintf(&b, "%s %s%s vs %s %s (", label(f.Metric), f.Unit.format(f.Current), cur, base, f.Unit.format(f.Base))
	change, ci := f.ChangeText()
	b.WriteString(change)
	if ci != "" {
		fmt.Fprintf(&b, ", %s CI %s; %s", confidencePct(f.Confidence), ci, f.run.source())
	}
	b.WriteString(")")
	return b.String()
}

func confidencePct(c float64) string { return trimPercent(100*c) + "%" }

// Metrics lists the metric names Compare knows for a baseline, in report
// order, with whether cfg compares them: what a -stortest.tolerance flag
// can name.
func Metrics(b *baselines.Baseline, cfg Config) (names []string, compared []bool) {
	for _, d := range b.Dirs {
		for _, m := range metricTable {
			if m.kind == kindNone || m.Stat != "" && d.Stat(m.Stat) == nil {
				continue
			}
			n := d.Name + "." + m.Name
			names = append(names, n)
			compared = append(compared, !cfg.rule(n).Off)
		}
	}
	return names, compared
}

// plural is "1 session", "2 sessions".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
