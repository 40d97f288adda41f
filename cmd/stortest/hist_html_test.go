package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHistMergeHTML: --format html merges fio's recorded logs of four
// jobs into the page, with one faint line per labelled input.
func TestHistMergeHTML(t *testing.T) {
	dir := filepath.Join("..", "..", "latency", "histlog", "testdata", "fio")
	args := []string{"hist", "merge", "--format", "html"}
	for _, n := range []string{"1", "2", "3", "4"} {
		args = append(args, "host"+n+"="+filepath.Join(dir, "h_clat_hist."+n+".log"))
	}
	stdout := runOK(t, args)
	page := stdout.String()
	for _, s := range []string{"<title>stortest hist merge: host1, host2, host3, host4</title>", `id="read-p99_9"`, `id="all-samples"`,
		"<title>host3</title>", "<title>cluster</title>"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not hold %q", s)
		}
	}
}
