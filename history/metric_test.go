package history

import (
	"slices"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/regress"
)

// A history is searched in exactly the metrics of regress' table that
// runs keep: a row added to the table (a steady-state figure, the
// run's swing) is listed by Metrics and searched by Changes, with its
// unit and direction, and one runs do not keep is not.
func TestHistoryReadsMetricTable(t *testing.T) {
	var want []string
	for _, dir := range baselines.DirNames {
		for _, m := range regress.MetricTable() {
			if m.Run != nil {
				want = append(want, dir+"."+m.Name)
			}
		}
	}
	if got := Metrics(); !slices.Equal(got, want) {
		t.Fatalf("Metrics() = %v, want the table's kept metrics %v", got, want)
	}

	t.Cleanup(func() { metricTable = regress.MetricTable })
	metricTable = regress.TableWith(
		regress.Metric{Name: "swing", Unit: regress.UnitNone, Better: regress.LowerIsBetter,
			Run: func(d *baselines.RunDir) float64 { return 7 }},
		regress.Metric{Name: "unkept", Unit: regress.UnitNone})
	if got := Metrics(); !slices.Contains(got, "trim.swing") || slices.Contains(got, "read.unkept") {
		t.Errorf("Metrics() = %v, want trim.swing and no read.unkept", got)
	}
	rep, err := Changes(entries(simHistory(1, 12, 0, 1, 0.05)), Config{Metrics: []string{"read.swing", "read.unkept"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 1 || len(rep.Series[0].Metrics) != 1 {
		t.Fatalf("report %+v: want one series with read.swing alone", rep)
	}
	m := rep.Series[0].Metrics[0]
	if m.Metric != "read.swing" || m.Runs != 12 || m.Current != 7 || m.Better != regress.LowerIsBetter || m.Unit != regress.UnitNone {
		t.Errorf("read.swing: %+v", m)
	}
}
