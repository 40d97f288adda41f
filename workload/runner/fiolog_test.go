package runner

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"stortest.dev/fio"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// logRows reads a fio log: one []int64 of columns per line, each line
// checked to be ", "-separated integers.
func logRows(t *testing.T, name string) [][]int64 {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	var rows [][]int64
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var row []int64
		for _, f := range strings.Split(line, ", ") {
			v, err := strconv.ParseInt(f, 10, 64)
			require.NoError(t, err, "%s:%d: %q", name, i+1, line)
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// A log per I/O (log_avg_msec=0) has fio's file names and columns: the
// recorded fio 3.33 logs of the same sequential job have the same number
// of lines and, but for time and value, the same lines.
func TestFioLogsPerIO(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "seq")
	job := workload.Job{Name: "logs", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 64 << 10,
		Logs: workload.LogOptions{Lat: prefix, BW: prefix, IOPS: prefix, Offset: true}}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, res.Err())
	require.EqualValues(t, 16, res.Jobs[0].Dirs[workload.DirRead].IOs)
	for _, kind := range []string{"slat", "clat", "lat", "bw", "iops"} {
		name := fio.LogFileName(prefix, kind, 1, false)
		require.Equal(t, filepath.Join(dir, "seq_"+kind+".1.log"), name)
		got := logRows(t, name)
		want := logRows(t, filepath.Join("testdata/fio333/logs", "seq_"+kind+".1.log"))
		require.Len(t, got, len(want), kind)
		for i := range got {
			require.Len(t, got[i], 6, "%s line %d: time, value, ddir, bs, offset, prio", kind, i+1)
			assert.Equal(t, want[i][2:], got[i][2:], "%s line %d: ddir, bs, offset, prio", kind, i+1)
			if kind == "iops" {
				assert.EqualValues(t, 1, got[i][1])
			}
		}
	}
	// The bandwidth of one I/O is its bytes over its clat, as fio's.
	clat := logRows(t, prefix+"_clat.1.log")
	bw := logRows(t, prefix+"_bw.1.log")
	for i := range clat {
		assert.Equal(t, 4096*1_000_000/max(clat[i][1], 1), bw[i][1], "line %d", i+1)
	}
}

// Without log_offset a line has five columns, as fio's; the latency
// lines of every clone add up to the job's I/Os.
func TestFioLogsNoOffset(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "l")
	job := workload.Job{Name: "l", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 20, NumJobs: 2,
		Logs: workload.LogOptions{Lat: prefix}}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	for i, r := range res.Jobs {
		var n [workload.NumDirs]uint64
		for _, row := range logRows(t, fio.LogFileName(prefix, "lat", i+1, false)) {
			require.Len(t, row, 5)
			n[row[2]]++
		}
		assert.Equal(t, r.Dirs[workload.DirRead].IOs, n[workload.DirRead])
		assert.Equal(t, r.Dirs[workload.DirWrite].IOs, n[workload.DirWrite])
	}
}

// per_job_logs=0: one file without the job number, which the clones
// share, as fio 3.33's recorded shared_iops.log.
func TestFioLogsShared(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "shared")
	job := workload.Job{Name: "x", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 64 << 10, NumJobs: 2,
		Logs: workload.LogOptions{IOPS: prefix, Shared: true}}
	_, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	got := logRows(t, prefix+"_iops.log")
	want := logRows(t, "testdata/fio333/logs/shared_iops.log")
	assert.Len(t, got, len(want))
	_, err = os.Stat(prefix + "_iops.1.log")
	assert.True(t, os.IsNotExist(err), "no per-job file")
}

// log_avg_msec: one line per direction and interval, bs and offset 0;
// bandwidth in KiB/s and IOPS agree with the rate limit; the latency
// logs get the last partial interval too; as fio 3.33's recorded avg_*
// logs of the same job.
func TestFioLogsAveraged(t *testing.T) {
	testenv.SkipShort(t, "runs 2.5 s")
	prefix := filepath.Join(t.TempDir(), "avg")
	job := workload.Job{Name: "avg", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 16 << 20,
		Runtime: 2500 * time.Millisecond, TimeBased: true, RateIOPS: [3]int{200, 200, 0},
		Logs: workload.LogOptions{Lat: prefix, BW: prefix, IOPS: prefix, AvgMsec: 1000, Offset: true}}
	_, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	for _, kind := range []string{"clat", "lat", "bw", "iops"} {
		rows := logRows(t, fio.LogFileName(prefix, kind, 1, false))
		want := logRows(t, "testdata/fio333/logs/avg_"+kind+".1.log")
		wantRows := 4 // 1000 and 2000, read and write
		if kind == "clat" || kind == "lat" {
			wantRows = 6 // and the partial interval to 2500
		}
		require.Len(t, rows, wantRows, kind)
		for i, r := range rows {
			require.Len(t, r, len(want[0]), kind)
			assert.Equal(t, []int64{0, 0, 0}, r[3:], "%s line %d: bs, offset, prio", kind, i+1)
			switch kind {
			case "iops":
				assert.InDelta(t, 200, r[1], 10, "line %d", i+1)
			case "bw":
				assert.InDelta(t, 800, r[1], 40, "line %d: KiB/s", i+1)
			}
		}
		assert.EqualValues(t, 1000, rows[0][0])
	}
	assert.Empty(t, logRows(t, fio.LogFileName(prefix, "slat", 1, false)), "a sync engine has no slat")
}

// clat_percentiles=0, lat_percentiles=1, unified_rw_reporting=1 and
// group_reporting with numjobs=2: one job, a "mixed" direction only,
// lat percentiles and no clat ones, as fio 3.33's recorded group.json.
func TestFioJSONReporting(t *testing.T) {
	job := workload.Job{Name: "grp", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 20, NumJobs: 2,
		GroupReporting: true, UnifiedRW: workload.UnifiedMixed, NoClatPercentiles: true, LatPercentiles: true}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	var buf strings.Builder
	require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSONPlus, time.Now()))
	type stat map[string]json.RawMessage
	type doc struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	read := func(b []byte) doc {
		var d doc
		require.NoError(t, json.Unmarshal(b, &d))
		return d
	}
	want, err := os.ReadFile("testdata/fio333/logs/group.json")
	require.NoError(t, err)
	w, g := read(want), read([]byte(buf.String()))
	require.Len(t, g.Jobs, len(w.Jobs), "group_reporting sums the clones into one job")
	for _, k := range []string{"read", "write", "trim"} {
		_, gotDir := g.Jobs[0][k]
		_, wantDir := w.Jobs[0][k]
		assert.Equal(t, wantDir, gotDir, "direction %s", k)
	}
	var gm, wm map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(g.Jobs[0]["mixed"], &gm))
	require.NoError(t, json.Unmarshal(w.Jobs[0]["mixed"], &wm))
	for _, k := range []string{"slat_ns", "clat_ns", "lat_ns"} {
		var gs, ws stat
		require.NoError(t, json.Unmarshal(gm[k], &gs))
		require.NoError(t, json.Unmarshal(wm[k], &ws))
		_, gp := gs["percentile"]
		_, wp := ws["percentile"]
		assert.Equal(t, wp, gp, "%s percentile", k)
		_, gb := gs["bins"]
		assert.Equal(t, wp, gb, "%s json+ bins go with percentiles", k)
	}
	var ios, total uint64
	require.NoError(t, json.Unmarshal(gm["total_ios"], &total))
	for _, j := range res.Jobs {
		for d := range workload.NumDirs {
			ios += j.Dirs[d].IOs
		}
	}
	assert.Equal(t, ios, total, "mixed sums both clones and all directions")
}

// The reporting and log options parse, print and parse back.
func TestReportingOptionsRoundTrip(t *testing.T) {
	jobs, err := parseArgs([]string{"--name=r", "--ioengine=null", "--size=1m", "--clat_percentiles=0",
		"--unified_rw_reporting=both", "--group_reporting", "--write_lat_log=a", "--write_bw_log=b",
		"--write_iops_log=c", "--log_avg_msec=500", "--log_offset=1", "--per_job_logs=0"})
	require.NoError(t, err)
	j := jobs[0]
	assert.Equal(t, workload.LogOptions{Lat: "a", BW: "b", IOPS: "c", AvgMsec: 500, Offset: true, Shared: true}, j.Logs)
	assert.True(t, j.NoClatPercentiles)
	assert.True(t, j.GroupReporting)
	assert.Equal(t, workload.UnifiedBoth, j.UnifiedRW)
	roundTrip(t, j)
	_, err = parseArgs([]string{"--name=r", "--unified_rw_reporting=3"})
	assert.ErrorIs(t, err, workload.ErrInvalid)
}

// A line per I/O allocates nothing: lines go into the log's buffer, which
// is written out when full.
func TestFioLogsAllocationsPerIO(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "a")
	job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 64 << 20,
		IODepth: 4, Logs: workload.LogOptions{Lat: prefix, BW: prefix, IOPS: prefix, Offset: true}}
	assert.Less(t, allocsPerIO(t, job, 16384, 9), 0.001)
}

// A job that names no file and whose engine needs one gets fio's default
// name, jobname.clone.0, one file per clone, laid out in the working
// directory as fio 3.33 does (t/latency_percentiles.py's libaio cases
// leave latency.0.0 ... latency.3.0 behind).
func TestDefaultFilename(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	job := workload.Job{Name: "dflt", Engine: "psync", RW: workload.RandRead, BlockSize: 4096, Size: 256 << 10, NumJobs: 2}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, res.Err())
	for i, r := range res.Jobs {
		name := "dflt." + strconv.Itoa(i) + ".0"
		assert.Equal(t, name, r.Target)
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.EqualValues(t, 256<<10, st.Size())
	}
}

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
