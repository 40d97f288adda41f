package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Directories are hosts: every histogram log under one (hidden files and
// other files left out) is that host's, labelled host/<log>; a file is
// grouped by its label's first element.
func TestHistInputs(t *testing.T) {
	root := t.TempDir()
	row := "1000, 0, 4096, " + strings.Repeat("0, ", 1855) + "1\n"
	for _, f := range []string{
		"node1/randread_clat_hist.1.log", "node1/sub/randwrite_clat_hist.2.log", "node1/fio.json",
		"node1/.partial_clat_hist.1.log", "node2/randread_clat_hist.1.log.gz", "loose/x_clat_hist.1.log",
	} {
		p := filepath.Join(root, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(row), 0o644))
	}
	ins, groups, err := histInputs([]string{filepath.Join(root, "node1"), "second=" + filepath.Join(root, "node2"),
		"node3=" + filepath.Join(root, "loose", "x_clat_hist.1.log")})
	require.NoError(t, err)
	var labels []string
	for _, in := range ins {
		labels = append(labels, in.Label)
	}
	assert.Equal(t, []string{"node1/randread.1", "node1/randwrite.2", "second/randread.1", "node3"}, labels)
	require.Len(t, groups, 3)
	assert.Equal(t, "node1", groups[0].Label)
	assert.Len(t, groups[0].Inputs, 2)
	assert.Equal(t, "second", groups[1].Label)
	assert.Equal(t, "node3", groups[2].Label)

	_, _, err = histInputs([]string{t.TempDir()})
	assert.ErrorContains(t, err, "no histogram logs")
}

// --summary prints each host, the fleet and the slowest host.
func TestHistMergeSummary(t *testing.T) {
	root := t.TempDir()
	write := func(host string, col int, n int) {
		counts := make([]string, 1856)
		for i := range counts {
			counts[i] = "0"
		}
		counts[col] = strconv.Itoa(n)
		p := filepath.Join(root, host, "r_clat_hist.1.log")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("1000, 0, 4096, "+strings.Join(counts, ", ")+"\n"), 0o644))
	}
	write("node1", 600, 1000)
	write("node2", 610, 1000)
	write("node3", 900, 1000)
	code, out, errOut := run(t, "hist", "merge", "--summary", "--direction", "read", "--percentiles", "50,99",
		filepath.Join(root, "node1"), filepath.Join(root, "node2"), filepath.Join(root, "node3"))
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"node1", "node2", "node3", "fleet", "slowest host (read p99): node3: "} {
		assert.Contains(t, out, want)
	}
	code, _, _ = run(t, "hist", "merge", "--summary", "--format", "fio", filepath.Join(root, "node1"))
	assert.Equal(t, 2, code)
}
