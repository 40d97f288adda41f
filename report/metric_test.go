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
// table with a property (the bytes the run moved, the total latency's p99)
// is reported, with its value read from the run, and none other is.
func TestMetricsReadMetricTable(t *testing.T) {
	lat, _, _ := regress.LookupMetric("read.lat.p99")
	lat.Property = "lat_p99_ns"
	bytes := regress.Metric{Name: "bytes", Property: "bytes",
		Value: func(d *baselines.Dir) (float64, bool) { return float64(d.Bytes), true }}
	t.Cleanup(func() { metricTable = regress.MetricTable })
	metricTable = regress.TableWith(lat, bytes)

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
	p99 := syntheticResult().Merged()[workload.DirRead].Lat.Percentile(99)
	if want := strconv.FormatUint(p99, 10); got["read.lat_p99_ns"] != want {
		t.Errorf("read.lat_p99_ns %s, want the merged histogram's %s", got["read.lat_p99_ns"], want)
	}
}
