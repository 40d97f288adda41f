package report

import (
	"slices"
	"strconv"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/workload"
)

// A run's properties are exactly the metrics of regress' table with a
// property, per direction, in the table's order: a row added to the
// table with a property (the run's short I/Os, the total latency's p99)
// is reported, with its value read from the run, and none other is.
func TestMetricsReadMetricTable(t *testing.T) {
	table := metricTable
	t.Cleanup(func() { metricTable = table })
	var extra []regress.Metric
	for _, m := range table() {
		if m.Name == "lat.p99" {
			m.Property = "lat_p99_ns"
			extra = append(extra, m)
		}
	}
	extra = append(extra, regress.Metric{Name: "bytes", Property: "bytes",
		Value: func(d *baselines.Dir) (float64, bool) { return float64(d.Bytes), true }})
	metricTable = func() []regress.Metric { return append(table(), extra...) }

	var want []string
	for _, dir := range []string{"read", "write"} {
		for _, m := range metricTable() {
			if m.Property != "" {
				want = append(want, dir+"."+m.Property)
			}
		}
	}
	got := map[string]string{}
	var names []string
	for _, p := range Metrics(syntheticResult()) {
		names = append(names, p.Name)
		got[p.Name] = p.Value
	}
	if !slices.Equal(names, want) {
		t.Fatalf("properties %v, want %v", names, want)
	}
	if got["read.bytes"] != "16384000" || got["write.bytes"] != "2048000" {
		t.Errorf("bytes %s, %s: want the run's", got["read.bytes"], got["write.bytes"])
	}
	lat := syntheticResult().Merged()[workload.DirRead].Lat.Percentile(99)
	if want := strconv.FormatUint(lat, 10); got["read.lat_p99_ns"] != want {
		t.Errorf("read.lat_p99_ns %s, want the merged histogram's %s", got["read.lat_p99_ns"], want)
	}
}
