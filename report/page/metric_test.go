package page

import (
	"regexp"
	"strings"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/regress"
)

// The run page's summary table shows exactly the metrics of regress'
// table with a column, in the table's order, then max, I/Os and errors:
// a row added to the table with a column is shown with its value, or an
// empty cell where the run did not record it.
func TestRunPageSummaryReadsMetricTable(t *testing.T) {
	slat, _, _ := regress.LookupMetric("read.slat.p99")
	slat.Column = "slat p99"
	short := regress.Metric{Name: "short", Unit: regress.UnitCount, Column: "short I/Os",
		Value: func(d *baselines.Dir) (float64, bool) { return float64(d.ShortIOs) + 17, true }}
	t.Cleanup(func() { metricTable = regress.MetricTable })
	metricTable = regress.TableWith(slat, short)

	b := *loadBaseline(t, "randread-30s-a.json.gz")
	read := *b.Dirs[0]
	read.Slat = nil // not recorded, as with a synchronous engine
	b.Dirs = []*baselines.Dir{&read}
	page := RenderRun(&Run{Title: "metrics", Jobs: []RunJob{{Baseline: &b}}})
	want := []string{"direction"}
	for _, m := range metricTable() {
		if m.Column != "" {
			want = append(want, m.Column)
		}
	}
	want = append(want, "max", "I/Os", "errors")
	head := regexp.MustCompile(`<table class="summary"><thead><tr>(.*?)</tr></thead><tbody>\n<tr>(.*?)</tr>`).FindStringSubmatch(page)
	if head == nil {
		t.Fatal("no summary table")
	}
	var got []string
	for _, m := range regexp.MustCompile(`<th scope="col">(.*?)</th>`).FindAllStringSubmatch(head[1], -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("summary columns %q, want %q", got, want)
	}
	cells := regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(head[2], -1)
	if len(cells) != len(want) {
		t.Fatalf("%d cells under %d columns", len(cells), len(want))
	}
	if slat, short := cells[len(want)-5][1], cells[len(want)-4][1]; slat != "" || short != "17" {
		t.Errorf("slat p99 %q (want empty: not recorded), short I/Os %q (want 17)", slat, short)
	}
}
