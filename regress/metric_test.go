package regress

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/baselines"
)

// withMetric adds a row to the metric table for the test, with the
// default rules that follow from it.
func withMetric(t *testing.T, m Metric) {
	t.Helper()
	table, rules := metricTable, DefaultRules
	t.Cleanup(func() { metricTable, DefaultRules = table, rules })
	metricTable = append(slices.Clone(table), m)
	DefaultRules = defaultRules()
}

// The table holds what the lists it replaced held: the same default
// rules in the same order, and the same assumed spreads.
func TestMetricTableDefaults(t *testing.T) {
	want := []Rule{
		{Metric: "*", Off: true},
		{Metric: "*.iops", Tolerance: Tolerance{Fraction: 0.10, Floor: 1}},
		{Metric: "*.bw", Tolerance: Tolerance{Fraction: 0.10, Floor: 4096}},
		{Metric: "*.errors", Tolerance: Tolerance{}},
		{Metric: "*.clat.mean", Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}},
		{Metric: "*.clat.p50", Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}},
		{Metric: "*.clat.p99", Tolerance: Tolerance{Fraction: 0.10, Floor: 1000}},
		{Metric: "*.clat.p99.9", Tolerance: Tolerance{Fraction: 0.20, Floor: 1000}},
		{Metric: "*.clat.p99.99", Tolerance: Tolerance{Fraction: 0.20, Floor: 1000}},
	}
	if d := cmp.Diff(want, DefaultRules); d != "" {
		t.Errorf("DefaultRules (-want +got):\n%s", d)
	}
	spreads := map[string]float64{
		"read.iops": 0.10, "write.bw": 0.10, "trim.errors": 0.10,
		"read.clat.mean": 0.10, "read.clat.p50": 0.10, "read.clat.p90": 0.12, "read.clat.p99": 0.12,
		"read.clat.p99.9": 0.15, "read.clat.p99.99": 0.20, "write.lat.p99.99": 0.20, "read.slat.p90": 0.12,
		"read.slat.mean": 0.10,
	}
	for name, want := range spreads {
		if got := DefaultRunSpread(name); got != want {
			t.Errorf("DefaultRunSpread(%q) = %v, want %v", name, got, want)
		}
	}
	var names []string
	for _, m := range MetricTable() {
		names = append(names, m.Name)
		if m.Value == nil || m.kind == kindNone {
			t.Errorf("%s: no value or no comparison", m.Name)
		}
		if got, _, ok := LookupMetric("read." + m.Name); !ok || got.Name != m.Name {
			t.Errorf("LookupMetric(read.%s) = %q, %v", m.Name, got.Name, ok)
		}
	}
	wantNames := []string{"iops", "bw", "errors"}
	for _, stat := range []string{"clat", "lat", "slat"} {
		wantNames = append(wantNames, stat+".mean")
		for _, p := range baselines.Percentiles {
			wantNames = append(wantNames, stat+"."+pKey(p))
		}
	}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
}

// Compare, Metrics, the default rules and the assumed spreads read the
// table: a row added to it is compared, listed, given its tolerance and
// its spread, and its runs' values make the spread between them.
func TestMetricTableReaders(t *testing.T) {
	withMetric(t, Metric{Name: "clat.tail", Unit: UnitNS, Better: LowerIsBetter, Tolerance: Tolerance{Fraction: 0.3}, Spread: 0.17,
		Stat: "clat", P: 99, kind: kindPercentile,
		Value: func(d *baselines.Dir) (float64, bool) { return 0, false },
		Run:   func(d *baselines.RunDir) float64 { return float64(d.ClatP99) }})
	rng := rand.New(rand.NewPCG(1, 2))
	base, cur := noisy.run(t, rng, unchanged), noisy.run(t, rng, unchanged)
	names, compared := Metrics(base, Config{})
	if i := slices.Index(names, "read.clat.tail"); i < 0 || !compared[i] {
		t.Fatalf("Metrics: %v %v: no compared read.clat.tail", names, compared)
	}
	r := Compare(base, cur, Config{})
	f, ok := r.Finding("read.clat.tail")
	if !ok {
		t.Fatalf("Compare found no read.clat.tail: %s", r.Summary())
	}
	p99, _ := r.Finding("read.clat.p99")
	if f.Tolerance != (Tolerance{Fraction: 0.3}) || f.Base != p99.Base || f.Unit != UnitNS {
		t.Errorf("read.clat.tail: tolerance %v, base %v (p99's %v), unit %v", f.Tolerance, f.Base, p99.Base, f.Unit)
	}
	if got := DefaultRunSpread("write.clat.tail"); got != 0.17 {
		t.Errorf("DefaultRunSpread = %v, want the row's 0.17", got)
	}
	runs := []baselines.RunSummary{{Dirs: []baselines.RunDir{{Name: "read", ClatP99: 10}}}, {Dirs: []baselines.RunDir{{Name: "read", ClatP99: 20}}}}
	if got := runValues(runs, "read.clat.tail"); !slices.Equal(got, []float64{10, 20}) {
		t.Errorf("runValues = %v, want the row's Run of each run", got)
	}
}
