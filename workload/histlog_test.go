package workload

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

// write_hist_log writes fio-format logs, one per clone, whose rows add up
// to the job's completions, final partial interval included, and which
// fio's own fio-histo-log-pctiles.py reads as stortest hist merge does.
func TestWriteHistLog(t *testing.T) {
	target := fileTarget(t, 8<<20)
	prefix := filepath.Join(t.TempDir(), "hl")
	job := Job{Name: "hl", Filename: target.Path, Engine: "psync", RW: RandRW, BlockSize: 4096,
		Runtime: 2500 * time.Millisecond, TimeBased: true, WriteHistLog: prefix, NumJobs: 2}
	res, err := Run(context.Background(), job, Options{})
	require.NoError(t, err)
	var files []string
	for i, r := range res.Jobs {
		name := histlog.FileName(prefix, i+1)
		files = append(files, name)
		f, err := os.Open(name)
		require.NoError(t, err)
		rd := histlog.NewReader(f, name, histlog.ReaderOptions{})
		var sum [NumDirs]uint64
		var times []uint64
		for rd.Scan() {
			rec := rd.Record()
			require.Len(t, rec.Counts, 1856, "fio's layout")
			for _, c := range rec.Counts {
				sum[rec.Dir] += c
			}
			times = append(times, rec.Time)
		}
		require.NoError(t, rd.Err())
		f.Close()
		assert.Equal(t, r.Dirs[DirRead].IOs, sum[DirRead], "clone %d read rows add up", i)
		assert.Equal(t, r.Dirs[DirWrite].IOs, sum[DirWrite], "clone %d write rows add up", i)
		require.NotEmpty(t, times)
		assert.InDelta(t, 1000, float64(times[0]), 100, "the first interval ends at the first tick")
		assert.InDelta(t, 2500, float64(times[len(times)-1]), 100, "the final partial interval is written")
	}

	script := "/usr/share/doc/fio/fio-histo-log-pctiles.py.gz"
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (Debian's fio package) is missing in CI", script)
		}
		t.Skip("fio-histo-log-pctiles.py not installed (apt-get install fio)")
	}
	py := filepath.Join(t.TempDir(), "pctiles.py")
	gz, err := exec.Command("zcat", script).Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(py, gz, 0o644))
	want, err := exec.Command("python3", append([]string{py}, files...)...).Output()
	require.NoError(t, err)
	var inputs []histlog.Input
	for _, f := range files {
		inputs = append(inputs, histlog.Input{Label: f, Path: f})
	}
	var got bytes.Buffer
	require.NoError(t, histlog.FioPctiles(context.Background(), &got, inputs, histlog.FioOptions{}))
	assert.Equal(t, string(want), got.String())
}

// The final partial interval's row never repeats the time of the row
// before it, even when it ends within the same ms as the last full
// second (a run that stops just after a tick): rows 1000, 2000, 3000,
// 3001, not 1000, 2000, 3000, 3000.
func TestHistLogFinalRowTimeIsNew(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "tail")
	job := Job{Name: "tail", Engine: "null", RW: Read, BlockSize: 4096, Size: 1 << 20}
	h, err := newHistLog(&job, prefix, 1)
	require.NoError(t, err)
	var delta [NumDirs]*latency.Histogram
	for d := range NumDirs {
		delta[d] = latency.NewFio()
	}
	for _, end := range []time.Duration{1000e6, 2000e6, 3000e6, 3000.3e6} { // ns
		delta[DirRead].Reset()
		delta[DirRead].Add(5000)
		require.NoError(t, h.add(end, &delta))
	}
	require.NoError(t, h.close())

	name := histlog.FileName(prefix, 1)
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	rd := histlog.NewReader(f, name, histlog.ReaderOptions{})
	var times []uint64
	for rd.Scan() {
		times = append(times, rd.Record().Time)
	}
	require.NoError(t, rd.Err())
	assert.Equal(t, []uint64{1000, 2000, 3000, 3001}, times)
}
