package runner

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// fioTool returns the path of one of fio's tools, from FIO_SRC/tools when
// FIO_SRC names fio's repository, else Debian's fio package (scripts it
// ships gzipped are unpacked into dir), or "" when neither has it.
func fioTool(t *testing.T, dir, name string) string {
	t.Helper()
	if src := os.Getenv("FIO_SRC"); src != "" {
		if p := filepath.Join(src, "tools", name); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	gz := filepath.Join("/usr/share/doc/fio", name+".gz")
	f, err := os.Open(gz)
	if err != nil {
		return ""
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o755))
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// fio's own tools read stortest's bandwidth, IOPS and latency logs as
// they read fio's: fio2gnuplot's statistics match the log, and
// fiologparser.py reads ours exactly when it reads fio 3.33's recorded
// logs (fio 3.33's copy expects four columns and reads neither; fio's
// later copy reads both).
func TestFioToolsReadLogs(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "st")
	job := workload.Job{Name: "tools", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 64 << 20,
		Runtime: 2200 * time.Millisecond, TimeBased: true, RateIOPS: [3]int{150, 150, 0},
		Logs: workload.LogOptions{Lat: prefix, BW: prefix, IOPS: prefix, AvgMsec: 500}}
	_, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	py := "/usr/bin/python3"
	ran := 0

	if g := fioTool(t, dir, "fio2gnuplot"); g != "" {
		ran++
		for _, kind := range []string{"bw", "iops"} {
			out := filepath.Join(dir, "g-"+kind)
			require.NoError(t, os.Mkdir(out, 0o755))
			name := "st_" + kind + ".1.log"
			cmd := exec.Command(g, "-p", name, "-d", out)
			cmd.Dir = dir // fio2gnuplot globs in its working directory
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", b)
			global, err := os.ReadFile(filepath.Join(out, "st_"+kind+".1.global"))
			require.NoError(t, err, "fio2gnuplot wrote no statistics:\n%s", b)
			var avg float64
			for _, l := range strings.Split(string(global), "\n") {
				if v, ok := strings.CutPrefix(l, "avg="); ok {
					avg, err = strconv.ParseFloat(v, 64)
					require.NoError(t, err)
				}
			}
			want := 150.0 // IOPS per direction
			if kind == "bw" {
				want = 600 // KiB/s
			}
			assert.InDelta(t, want, avg, want/10, "%s average per fio2gnuplot", kind)
		}
	}

	if p := fioTool(t, dir, "fiologparser.py"); p != "" {
		ran++
		parse := func(file string) (string, error) {
			b, err := exec.Command(py, p, "-s", file).CombinedOutput()
			return string(b), err
		}
		fioLog, err := filepath.Abs("testdata/fio333/logs/avg_iops.1.log")
		require.NoError(t, err)
		_, fioErr := parse(fioLog)
		for _, kind := range []string{"bw", "iops", "clat", "lat"} {
			out, err := parse(prefix + "_" + kind + ".1.log")
			if fioErr != nil {
				assert.Error(t, err, "this fiologparser.py fails on fio's own logs, yet read ours")
				continue
			}
			require.NoError(t, err, "%s", out)
			if kind == "iops" {
				first, _, _ := strings.Cut(out, "\n")
				_, v, _ := strings.Cut(first, ", ")
				sum, err := strconv.ParseFloat(v, 64)
				require.NoError(t, err, out)
				// One file's lines, reads and writes alike, are averaged
				// over each interval: 150 IOPS each way.
				assert.InDelta(t, 150, sum, 15, "fiologparser's first interval")
			}
		}
	}
	if ran == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("fio's tools (Debian's fio package) are missing in CI")
		}
		t.Skip("fio's tools are not installed (apt-get install fio) and FIO_SRC is not set")
	}
}
