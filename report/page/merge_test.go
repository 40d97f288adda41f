package page

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stortest.dev/latency/histlog"
)

// recordedMerge merges the histogram logs fio 3.33 recorded of four jobs
// of random reads and writes (latency/histlog/testdata/fio), as four
// hosts would be.
func recordedMerge(t testing.TB) *Merge {
	t.Helper()
	dir := filepath.Join("..", "..", "latency", "histlog", "testdata", "fio")
	var inputs []histlog.Input
	for i := 1; i <= 4; i++ {
		inputs = append(inputs, histlog.Input{Label: "node" + itoa(i), Path: filepath.Join(dir, "h_clat_hist."+itoa(i)+".log")})
	}
	m, err := NewMerge(context.Background(), "hist merge: 4 jobs", inputs, histlog.Config{Quantum: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMergePageRecorded(t *testing.T) {
	m := recordedMerge(t)
	if len(m.Inputs) != 4 || len(m.Cluster.Rows[histlog.Read]) == 0 {
		t.Fatalf("merge: %d inputs, %d read rows", len(m.Inputs), len(m.Cluster.Rows[histlog.Read]))
	}
	page := RenderMerge(m)
	dumpPage(t, "merge", page)
	p := parsePage(t, page)
	inputs := []string{"node1", "node2", "node3", "node4", "cluster"}
	for _, dir := range []string{"read", "write", "all"} {
		p.want(t, dir+"-samples", inputs, []string{"time (s)", "completions (IOPS)"})
		for _, pct := range []string{"50", "95", "99", "99_9"} {
			p.want(t, dir+"-p"+pct, inputs, []string{"time (s)", "(log scale)"})
		}
	}
	if _, ok := p.figures["trim-samples"]; ok {
		t.Error("a trim chart for logs without trims")
	}
	if n := strings.Count(page, `class="line c7 faint"`); n < 4*3*5 {
		t.Errorf("%d faint lines, want one per input and chart", n)
	}
	tidyCheck(t, page)
}
