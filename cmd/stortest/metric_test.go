package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/regress"
)

// baseline diff shows exactly the metrics of regress' table that the
// runs recorded, once each, in the table's order: with every metric
// turned on, all of them; with the defaults, those the table compares by
// default.
func TestBaselineDiffCoversMetricTable(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	synthBaseline(t, base, 2000, 1)
	synthBaseline(t, cur, 2000, 1)
	for _, tc := range []struct {
		name  string
		args  []string
		judge func(regress.Metric) bool
	}{
		{"defaults", nil, regress.Metric.Judged},
		{"all", []string{"--tolerance", "*=10%"}, func(regress.Metric) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, m := range regress.MetricTable() {
				if tc.judge(m) && (m.Stat == "" || m.Stat == "clat") { // the runs recorded clat alone
					want = append(want, "read."+m.Name)
				}
			}
			_, out, errOut := run(t, append(append([]string{"baseline", "diff", "--format", "json"}, tc.args...), base, cur)...)
			var doc struct {
				Reports []struct{ Findings []struct{ Metric string } }
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc), errOut)
			var got []string
			for _, f := range doc.Reports[0].Findings {
				got = append(got, f.Metric)
			}
			require.Equal(t, want, got)
		})
	}
}

// history changes' help names the metrics searched by default: the
// first direction's of history.Metrics, which the table sets.
func TestHistoryHelpNamesTableMetrics(t *testing.T) {
	_, _, errOut := run(t, "history", "changes", "-h")
	var read []string
	for _, m := range regress.MetricTable() {
		if m.Run != nil {
			read = append(read, "read."+m.Name)
		}
	}
	require.Contains(t, errOut, "default: all ("+strings.Join(read, ", ")+", and write and trim's)")
}
