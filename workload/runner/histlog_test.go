package runner

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
	"stortest.dev/workload"
)

// write_hist_log writes fio-format logs, one per clone, whose rows add up
// to the job's completions, final partial interval included, one row per
// log_hist_msec (a second, or any number of ms), and which fio's own
// fio-histo-log-pctiles.py reads as stortest hist merge does.
func TestWriteHistLog(t *testing.T) {
	for _, every := range []int{0, 250, 1500} {
		t.Run(fmt.Sprintf("log_hist_msec=%d", every), func(t *testing.T) { testWriteHistLog(t, every) })
	}
}

func testWriteHistLog(t *testing.T, every int) {
	target := fileTarget(t, 8<<20)
	prefix := filepath.Join(t.TempDir(), "hl")
	job := workload.Job{Name: "hl", Filename: target.Path, Engine: "psync", RW: workload.RandRW, BlockSize: 4096,
		Runtime: 3200 * time.Millisecond, TimeBased: true, WriteHistLog: prefix, NumJobs: 2,
		LogHistMsec: every}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	step := uint64(cmp.Or(every, 1000))
	var files []string
	for i, r := range res.Jobs {
		name := histlog.FileName(prefix, i+1)
		files = append(files, name)
		f, err := os.Open(name)
		require.NoError(t, err)
		rd := histlog.NewReader(f, name, histlog.ReaderOptions{})
		var sum [workload.NumDirs]uint64
		var times []uint64
		for rd.Scan() {
			rec := rd.Record()
			require.Len(t, rec.Counts, 1856, "fio's layout")
			for _, c := range rec.Counts {
				sum[rec.Dir] += c
			}
			if len(times) == 0 || times[len(times)-1] != rec.Time {
				times = append(times, rec.Time)
			}
		}
		require.NoError(t, rd.Err())
		f.Close()
		assert.Equal(t, r.Dirs[workload.DirRead].IOs, sum[workload.DirRead], "clone %d read rows add up", i)
		assert.Equal(t, r.Dirs[workload.DirWrite].IOs, sum[workload.DirWrite], "clone %d write rows add up", i)
		require.NotEmpty(t, times)
		// Rows come at the first completion after each interval: within
		// one I/O of it, which a loaded machine can stretch to tens of ms.
		assert.InDelta(t, float64(step), float64(times[0]), 150, "the first interval ends after log_hist_msec")
		assert.InDelta(t, 3200, float64(times[len(times)-1]), 150, "the final partial interval is written")
		for k := 1; k < len(times)-1; k++ { // a row log_hist_msec after the last, as fio's
			gap := times[k] - times[k-1]
			assert.True(t, gap >= step-1 && gap < step+150, "row %d at %d ms, %d ms after the last (log_hist_msec %d)", k, times[k], gap, step)
		}
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
	args := []string{py}
	opts := histlog.FioOptions{}
	if every != 0 {
		args = append(args, "--log-hist-msec", fmt.Sprint(every))
		opts.LogHistMsec = every
	}
	want, err := exec.Command("python3", append(args, files...)...).Output()
	require.NoError(t, err)
	var inputs []histlog.Input
	for _, f := range files {
		inputs = append(inputs, histlog.Input{Label: f, Path: f})
	}
	var got bytes.Buffer
	require.NoError(t, histlog.FioPctiles(context.Background(), &got, inputs, opts))
	assert.Equal(t, string(want), got.String())
}

// The final partial interval's row never repeats the time of the row
// before it, even when it ends within the same ms as the last full
// second (a run that stops just after a tick): rows 1000, 2000, 3000,
// 3001, not 1000, 2000, 3000, 3000.
func TestHistLogFinalRowTimeIsNew(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "tail")
	job := workload.Job{Name: "tail", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 1 << 20}
	h, err := newHistLog(&job, prefix, 1, latency.FioLayout)
	require.NoError(t, err)
	var clat [workload.NumDirs]*latency.Histogram
	for d := range workload.NumDirs {
		clat[d] = latency.NewFio()
	}
	for _, end := range []time.Duration{1000e6, 2000e6, 3000e6} { // ns
		clat[workload.DirRead].Add(5000)
		require.True(t, h.due(end))
		require.NoError(t, h.row(end, &clat))
		require.False(t, h.due(end+1), "the next row is a second later")
	}
	clat[workload.DirRead].Add(5000)
	require.NoError(t, h.close(3000.3e6, &clat))

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
