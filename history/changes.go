package history

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"stortest.dev/baselines"
	"stortest.dev/regress"
)

// metricTable is regress' metric table (a test adds rows to it).
var metricTable = regress.MetricTable

// kept returns the metrics of the table that every run keeps
// (baselines.RunSummary; regress.Metric.Run), which a history is searched
// in, in the table's order.
func kept() []regress.Metric {
	var out []regress.Metric
	for _, m := range metricTable() {
		if m.Run != nil {
			out = append(out, m)
		}
	}
	return out
}

// Metrics returns the names of the metrics a history is searched in, in
// report order: "read.iops", "read.bw", "read.clat.mean",
// "read.clat.p50"... for read, write and trim.
func Metrics() []string {
	var out []string
	for _, dir := range baselines.DirNames {
		for _, m := range kept() {
			out = append(out, dir+"."+m.Name)
		}
	}
	return out
}

// Config configures Changes. The zero value searches every metric with
// the defaults.
type Config struct {
	// Metrics are path.Match patterns of the metrics to search
	// ("read.clat.p99", "*.iops"); nil means all (Metrics).
	Metrics []string
	// Split configures the change-point search.
	Split SplitConfig
	// PerMetric tests each metric's change points at Split.Alpha. By
	// default a change point must hold at the family-wise level: Alpha
	// divided by the number of metrics searched in the series
	// (Bonferroni), so that searching more metrics does not raise the
	// chance of a false change, as regress judges its comparisons.
	PerMetric bool
	// MinChange is the smallest relative change reported (0.02 for 2%);
	// it sets Split.MinChange on the log scale. 0 reports every
	// significant change.
	MinChange float64
	// Confidence is the level of each change's interval; 0 means 0.95.
	Confidence float64
	// Rules are tolerances after regress.DefaultRules (the last matching
	// rule wins): a change is a regression or an improvement only beyond
	// its metric's tolerance, and a metric the rules turn off (p90,
	// means by default) is searched and reported but not judged.
	Rules []regress.Rule
}

// Report is what Changes found.
type Report struct {
	Series []SeriesReport `json:"series"`
}

// SeriesReport is one job's history on one host.
type SeriesReport struct {
	Series  string         `json:"series"` // the job's directory in the store: "TestRandRead4K/randread-4k-qd32"
	Host    string         `json:"host,omitempty"`
	Runs    int            `json:"runs"`
	First   time.Time      `json:"first"` // when the first run started
	Last    time.Time      `json:"last"`  // and the last
	Metrics []MetricReport `json:"metrics"`
}

// MetricReport is the change points of one metric's history.
type MetricReport struct {
	Metric string         `json:"metric"`
	Unit   regress.Unit   `json:"unit"`
	Better regress.Better `json:"better"`
	Runs   int            `json:"runs"` // runs with a value of the metric
	// Judged says whether the tolerance rules compare the metric; an
	// unjudged metric's changes carry no verdict.
	Judged    bool              `json:"judged"`
	Tolerance regress.Tolerance `json:"tolerance"`
	Changes   []Change          `json:"changes"`
	// Current is the geometric mean of the latest segment (since the last
	// change, or of all runs) and CurrentRuns its length.
	Current     float64 `json:"current"`
	CurrentRuns int     `json:"current_runs"`
	// Latest is the verdict of the latest segment against the one before
	// it: that of the last change, Pass when there is none.
	Latest regress.Verdict `json:"latest"`
	// Alpha is the p-value a change point of this metric had to reach:
	// Split.Alpha over the metrics searched (Config.PerMetric).
	Alpha float64 `json:"alpha"`
	// TooFew is set when the history is too short to search (fewer than
	// two segments of MinRuns runs).
	TooFew  bool `json:"too_few,omitempty"`
	MinRuns int  `json:"min_runs,omitempty"`
}

// Change is one change point of a metric's history.
type Change struct {
	// Run is the first run after the change, counted from 1 in the
	// series; Created is when it started and Path its file.
	Run     int       `json:"run"`
	Created time.Time `json:"created"`
	Path    string    `json:"path"`
	// Before and After are the geometric means of the segments either
	// side (back to the change before, on to the change after), of
	// BeforeRuns and AfterRuns runs; Ratio is After/Before.
	Before     float64 `json:"before"`
	After      float64 `json:"after"`
	BeforeRuns int     `json:"before_runs"`
	AfterRuns  int     `json:"after_runs"`
	Ratio      float64 `json:"ratio"`
	// Interval is Ratio's interval at Confidence (Student's t of the
	// segments' log values).
	Interval   regress.Interval `json:"interval"`
	Confidence float64          `json:"confidence"`
	P          float64          `json:"p"` // of the change (Student's t, two-sided)
	// Fingerprint is what changed where the job ran between the run
	// before and Run (firmware, kernel). When nothing changed there but
	// something did within two runs of it (the search places a change to
	// within a run or so), those changes are given with AtRun, their run.
	Fingerprint []baselines.Change `json:"fingerprint,omitempty"`
	AtRun       int                `json:"at_run,omitempty"`
	// Job is what changed in the workload at Run.
	Job     []baselines.Change `json:"job,omitempty"`
	Verdict regress.Verdict    `json:"verdict"`
}

// Change returns the relative change Ratio-1.
func (c Change) Change() float64 { return c.Ratio - 1 }

// Verdict is the worst latest-segment verdict of the report: Regression
// when some metric's latest segment regressed.
func (r Report) Verdict() regress.Verdict {
	v := regress.Pass
	for _, s := range r.Series {
		for _, m := range s.Metrics {
			v = max(v, m.Latest)
		}
	}
	return v
}

// Regressions returns "series metric" for every metric whose latest
// segment is a regression.
func (r Report) Regressions() []string {
	var out []string
	for _, s := range r.Series {
		for _, m := range s.Metrics {
			if m.Latest == regress.Regression {
				out = append(out, s.name()+" "+m.Metric)
			}
		}
	}
	return out
}

func (s SeriesReport) name() string {
	if s.Host == "" {
		return s.Series
	}
	return s.Series + "@" + s.Host
}

// point is one run of a series.
type point struct {
	entry *Entry
	run   *baselines.RunSummary
}

// Changes searches each series of entries (as Load returns them) for the
// change points of each metric. A series is one job's directory on one
// host (the fingerprint's host name): runs of several hosts in one
// directory are separate histories. Runs are in Load's order, and each
// run of a baseline of several is a run of its own.
func Changes(entries []Entry, cfg Config) (Report, error) {
	for _, p := range cfg.Metrics {
		if _, err := path.Match(p, ""); err != nil {
			return Report{}, fmt.Errorf("history: metric pattern %q: %w", p, err)
		}
	}
	if !(cfg.Confidence > 0 && cfg.Confidence < 1) {
		cfg.Confidence = 0.95
	}
	type key struct{ series, host string }
	var keys []key
	groups := map[key][]point{}
	for i := range entries {
		e := &entries[i]
		k := key{e.Series, e.Baseline.Fingerprint.Hostname}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		for _, r := range e.Baseline.RunSummaries() {
			groups[k] = append(groups[k], point{entry: e, run: &r})
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmpOr(strings.Compare(a.series, b.series), strings.Compare(a.host, b.host))
	})
	var rep Report
	for _, k := range keys {
		pts := groups[k]
		sr := SeriesReport{Series: k.series, Host: k.host, Runs: len(pts),
			First: pts[0].run.Created, Last: pts[len(pts)-1].run.Created}
		var ms []metricSeries
		defs := kept()
		for _, dir := range baselines.DirNames {
			for _, def := range defs {
				name := dir + "." + def.Name
				if !matchAny(cfg.Metrics, name) {
					continue
				}
				if m, ok := seriesOf(pts, dir, def, name); ok {
					ms = append(ms, m)
				}
			}
		}
		// Every metric searched is a chance of a false change point: a
		// change must hold at the family-wise level (Bonferroni), as
		// regress' comparisons do, unless PerMetric.
		split := cfg.Split.withDefaults()
		if !cfg.PerMetric && len(ms) > 1 {
			split.Alpha /= float64(len(ms))
		}
		if cfg.MinChange > 0 {
			split.MinChange = math.Log1p(cfg.MinChange)
		}
		// The values are logs: a value's own rounding is an absolute
		// 2^-32 of them, which the log of a value near 1 is too small
		// to scale to.
		split.Resolution = max(split.Resolution, roundingRel)
		for _, m := range ms {
			sr.Metrics = append(sr.Metrics, metricChanges(pts, m, split, cfg))
		}
		rep.Series = append(rep.Series, sr)
	}
	return rep, nil
}

func cmpOr(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// metricSeries is one metric's values in a series: the log of each run's
// value, and the run (index into the series' points) of each.
type metricSeries struct {
	name string
	def  regress.Metric
	xs   []float64
	at   []int
}

// seriesOf gathers a metric's values; false when no run has one.
func seriesOf(pts []point, dir string, def regress.Metric, name string) (metricSeries, bool) {
	m := metricSeries{name: name, def: def}
	for i, p := range pts {
		for j := range p.run.Dirs {
			d := &p.run.Dirs[j]
			if d.Name != dir {
				continue
			}
			if v := def.Run(d); v > 0 && !math.IsInf(v, 0) {
				m.xs = append(m.xs, math.Log(v))
				m.at = append(m.at, i)
			}
		}
	}
	return m, len(m.xs) > 0
}

// metricChanges searches one metric of a series.
func metricChanges(pts []point, m metricSeries, split SplitConfig, cfg Config) MetricReport {
	xs, at, def, name := m.xs, m.at, m.def, m.name
	rule := regress.Config{Rules: cfg.Rules}.Rule(name)
	mr := MetricReport{Metric: name, Unit: def.Unit, Better: def.Better, Runs: len(xs),
		Judged: !rule.Off, Tolerance: rule.Tolerance, Alpha: split.Alpha}
	if len(xs) < 2*split.MinSize {
		mr.TooFew, mr.MinRuns = true, split.MinSize
	}
	splits := split.Split(xs)
	bounds := []int{0}
	for _, s := range splits {
		bounds = append(bounds, s.Index)
	}
	bounds = append(bounds, len(xs))
	for i, s := range splits {
		before, after := xs[bounds[i]:s.Index], xs[s.Index:bounds[i+2]]
		c := describe(pts, at, s, before, after, cfg.Confidence)
		if mr.Judged {
			c.Verdict = judge(def.Better, rule.Tolerance, c.Before, c.After)
		}
		mr.Changes = append(mr.Changes, c)
	}
	last := xs[bounds[len(bounds)-2]:]
	mean, _ := meanVar(last)
	mr.Current, mr.CurrentRuns = math.Exp(mean), len(last)
	if n := len(mr.Changes); n > 0 {
		mr.Latest = mr.Changes[n-1].Verdict
	}
	return mr
}

// describe makes the Change of a split: the segments' levels, the ratio
// with its interval, and what changed in the fingerprint and the job.
func describe(pts []point, at []int, s Split, before, after []float64, conf float64) Change {
	p := pts[at[s.Index]]
	mb, vb := meanVar(before)
	ma, va := meanVar(after)
	nb, na := float64(len(before)), float64(len(after))
	df := nb + na - 2
	se := math.Sqrt(((nb-1)*vb + (na-1)*va) / df * (1/nb + 1/na))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
	d := ma - mb
	c := Change{
		Run: at[s.Index] + 1, Created: p.run.Created, Path: p.entry.Path,
		Before: math.Exp(mb), After: math.Exp(ma), BeforeRuns: len(before), AfterRuns: len(after),
		Ratio: math.Exp(d), Interval: regress.Interval{Low: math.Exp(d - q*se), High: math.Exp(d + q*se)},
		Confidence: conf, P: s.P,
	}
	prev := pts[at[s.Index-1]]
	c.Fingerprint = prev.entry.Baseline.Fingerprint.Diff(p.entry.Baseline.Fingerprint)
	c.Job = baselines.DiffJobs(prev.entry.Baseline.Job, p.entry.Baseline.Job)
	if len(c.Fingerprint) == 0 {
		// The nearest change within two runs, the earlier first on a tie.
		i := at[s.Index]
	near:
		for _, off := range []int{-1, 1, -2, 2} {
			j := i + off
			if j < 1 || j >= len(pts) {
				continue
			}
			if ch := pts[j-1].entry.Baseline.Fingerprint.Diff(pts[j].entry.Baseline.Fingerprint); len(ch) > 0 {
				c.Fingerprint, c.AtRun = ch, j+1
				break near
			}
		}
	}
	return c
}

// judge is the verdict of a change from before to after: a regression
// or an improvement only beyond the tolerance.
func judge(better regress.Better, tol regress.Tolerance, before, after float64) regress.Verdict {
	if tol.Equal(before, after) {
		return regress.Pass
	}
	if (after > before) == (better == regress.LowerIsBetter) {
		return regress.Regression
	}
	return regress.Improvement
}
