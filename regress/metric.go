package regress

import (
	"strings"

	"stortest.dev/baselines"
)

// Metric is one row of the metric table: a figure of a direction that
// Compare judges, whose full name is the direction's and the row's
// ("read" and "clat.p99": "read.clat.p99"). Every reader of verdict
// metrics takes its list from the table (MetricTable): Compare and
// Metrics, DefaultRules and DefaultRunSpread, the spread between a
// baseline's runs, history's change points, report's JUnit properties
// and the run page's summary table. Adding a metric is adding its row
// here, computing its value where a baseline keeps its figures, and a
// test.
type Metric struct {
	Name   string // after the direction: "iops", "clat.p99.9"
	Unit   Unit   // how its values print for people (Unit.Format)
	Better Better
	// Tolerance is the metric's default tolerance (DefaultRules); Off
	// leaves it out of comparisons unless a rule names it.
	Tolerance Tolerance
	Off       bool
	// Spread is the run-to-run spread assumed of it before sessions
	// measure it (DefaultRunSpread).
	Spread float64
	// Stat and P say which latency figure a latency row is: the
	// statistic ("clat", "lat", "slat") and the percentile (0 for the
	// mean). "" for throughput and errors.
	Stat string
	P    float64
	// Property names the figure among a run's JUnit properties and test
	// attributes, after the direction ("bw_bytes", "clat_p99_ns"); ""
	// when it is not one of them.
	Property string
	// Column heads the figure's column in the run page's summary table
	// ("IOPS", "p99"); "" when the page does not show it there.
	Column string
	// Value reads the figure from a baseline's direction; false when the
	// direction did not record it (the slat of a synchronous engine).
	Value func(*baselines.Dir) (float64, bool)
	// Run reads it from a run's summary (baselines.RunDir), which every
	// run of a baseline and of a history keeps; nil when runs do not
	// keep it. A history searches the metrics runs keep, and the spread
	// between a baseline's runs is measured on them.
	Run func(*baselines.RunDir) float64

	// how Compare compares it, and for throughput its per-second series
	// and fio's sample moments.
	kind    metricKind
	second  baselines.SecondMetric
	samples func(*baselines.Dir) baselines.Moments
}

// metricKind is how Compare compares a metric.
type metricKind int

const (
	kindNone       metricKind = iota // not compared (a figure shown only)
	kindThroughput                   // per-second samples, bootstrapped
	kindErrors                       // exact counts
	kindMean                         // a latency stat's mean
	kindPercentile                   // a latency stat's percentile
)

// Format prints a value of the metric for people: "2.41ms", "12.6k
// IOPS", "49.3MiB/s".
func (m Metric) Format(v float64) string { return m.Unit.format(v) }

// Short prints a value without the unit's word, for a column whose head
// names it: "12.6k" (IOPS), "49.3MiB/s", "2.41ms".
func (m Metric) Short(v float64) string {
	if m.Unit == UnitIOPS {
		return strings.TrimSuffix(m.Unit.format(v), " IOPS")
	}
	return m.Unit.format(v)
}

// Judged reports whether Compare compares the metric by default.
func (m Metric) Judged() bool { return !m.Off }

// metricTable is the table, in report order: throughput first, then
// errors, then each latency stat's mean and percentiles (fio's:
// baselines.Percentiles) in fio's order (clat, lat, slat).
var metricTable = buildMetricTable()

func buildMetricTable() []Metric {
	t := []Metric{
		{Name: "iops", Unit: UnitIOPS, Better: HigherIsBetter, Tolerance: Tolerance{Fraction: 0.10, Floor: 1}, Spread: 0.10,
			Property: "iops", Column: "IOPS", kind: kindThroughput, second: baselines.SecondIOPS,
			Value:   func(d *baselines.Dir) (float64, bool) { return d.IOPS, true },
			Run:     func(d *baselines.RunDir) float64 { return d.IOPS },
			samples: func(d *baselines.Dir) baselines.Moments { return d.IOPSSamples }},
		{Name: "bw", Unit: UnitBW, Better: HigherIsBetter, Tolerance: Tolerance{Fraction: 0.10, Floor: 4096}, Spread: 0.10,
			Property: "bw_bytes", Column: "bandwidth", kind: kindThroughput, second: baselines.SecondBW,
			Value:   func(d *baselines.Dir) (float64, bool) { return d.BW, true },
			Run:     func(d *baselines.RunDir) float64 { return d.BW },
			samples: func(d *baselines.Dir) baselines.Moments { return d.BWSamples }},
		// Any errors where the baseline had none.
		{Name: "errors", Unit: UnitCount, Better: LowerIsBetter, Spread: 0.10, kind: kindErrors,
			Value: func(d *baselines.Dir) (float64, bool) { return float64(d.Errors), true }},
	}
	// Latencies: a 1µs floor, below which changes are clock and scheduler
	// noise; tails move more (20%). p90 mostly repeats p50 and p99 and is
	// off.
	clat := []Metric{
		{Name: "clat.mean", Unit: UnitNS, Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}, Spread: 0.10, Column: "clat mean",
			Run: func(d *baselines.RunDir) float64 { return d.ClatMean }},
		{Name: "clat.p50", Unit: UnitNS, Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}, Spread: 0.10, Property: "clat_p50_ns", Column: "p50",
			Run: func(d *baselines.RunDir) float64 { return float64(d.ClatP50) }},
		{Name: "clat.p90", Unit: UnitNS, Off: true, Spread: 0.12,
			Run: func(d *baselines.RunDir) float64 { return float64(d.ClatP90) }},
		{Name: "clat.p99", Unit: UnitNS, Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}, Spread: 0.12, Property: "clat_p99_ns", Column: "p99",
			Run: func(d *baselines.RunDir) float64 { return float64(d.ClatP99) }},
		{Name: "clat.p99.9", Unit: UnitNS, Tolerance: Tolerance{Fraction: 0.20, Floor: 1000}, Spread: 0.15, Property: "clat_p99.9_ns", Column: "p99.9",
			Run: func(d *baselines.RunDir) float64 { return float64(d.ClatP999) }},
		{Name: "clat.p99.99", Unit: UnitNS, Tolerance: Tolerance{Fraction: 0.20, Floor: 1000}, Spread: 0.20, Column: "p99.99",
			Run: func(d *baselines.RunDir) float64 { return float64(d.ClatP9999) }},
	}
	// The total and submission latencies mostly repeat clat and would
	// multiply the chances of a false alarm: off, with clat's spreads,
	// kept by no run summary and shown nowhere of their own.
	for _, stat := range []string{"clat", "lat", "slat"} {
		for _, c := range clat {
			m := c
			if stat != "clat" {
				m = Metric{Name: stat + strings.TrimPrefix(c.Name, "clat"), Unit: c.Unit, Off: true, Spread: c.Spread}
			}
			latencyRow(&m, stat)
			t = append(t, m)
		}
	}
	return t
}

// latencyRow fills in what every latency row shares: lower is better,
// its stat and percentile from its name, its value from the stat.
func latencyRow(m *Metric, stat string) {
	m.Better, m.Stat = LowerIsBetter, stat
	_, fig, _ := strings.Cut(m.Name, ".")
	if fig == "mean" {
		m.kind = kindMean
		m.Value = func(d *baselines.Dir) (float64, bool) {
			if s := d.Stat(stat); s != nil {
				return s.Mean, true
			}
			return 0, false
		}
		return
	}
	for _, p := range baselines.Percentiles {
		if pKey(p) == fig {
			m.P = p
		}
	}
	m.kind = kindPercentile
	p := m.P
	m.Value = func(d *baselines.Dir) (float64, bool) {
		s := d.Stat(stat)
		if s == nil {
			return 0, false
		}
		v, _ := s.Percentile(p)
		return float64(v), true
	}
}

func indexOfMetric(t []Metric, name string) int {
	for i, m := range t {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// MetricTable returns the metric table, in report order: what a
// direction's metric names end in ("iops", "clat.p99.9").
func MetricTable() []Metric { return append([]Metric(nil), metricTable...) }

// TableWith returns a function like MetricTable whose table has rows
// after the metric table's: what a reader's test gives the reader in
// place of MetricTable, to see that it follows the table.
func TableWith(rows ...Metric) func() []Metric {
	return func() []Metric { return append(MetricTable(), rows...) }
}

// LookupMetric returns the row of a full metric name ("read.clat.p99")
// and its direction ("read").
func LookupMetric(name string) (m Metric, dir string, ok bool) {
	dir, rest, found := strings.Cut(name, ".")
	if !found {
		return Metric{}, name, false
	}
	if i := indexOfMetric(metricTable, rest); i >= 0 {
		return metricTable[i], dir, true
	}
	return Metric{}, dir, false
}

// MetricDir is the direction of a full metric name: "read" of
// "read.iops".
func MetricDir(name string) string {
	dir, _, _ := strings.Cut(name, ".")
	return dir
}
