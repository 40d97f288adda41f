package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/history"
	"stortest.dev/workload"
)

// historyRun is one simulated run: read p99 around p99 ns with 5% noise.
func historyRun(r *rand.Rand, day int, p99 float64, fw string) *baselines.Baseline {
	v := uint64(p99 * (1 + 0.05*r.NormFloat64()))
	iops := 50000 * (1 + 0.05*r.NormFloat64())
	return &baselines.Baseline{
		Schema: baselines.SchemaVersion, Name: "randread-4k", Clones: 1, Runtime: time.Minute,
		Created:     time.Date(2026, 9, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, day),
		Job:         workload.Job{Name: "randread-4k", RW: workload.RandRead, BlockSize: 4096, IODepth: 32}.Normalized(),
		Fingerprint: baselines.Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Example NVMe", Firmware: fw, Kernel: "6.18.0", Hostname: "node1"},
		Dirs: []*baselines.Dir{{Name: "read", IOs: 3e6, Bytes: 3e6 * 4096, IOPS: iops, BW: iops * 4096,
			Clat: &baselines.Stat{N: 3e6, Min: 1000, Max: 4 * v, Mean: 150e3, P50: 140e3, P90: 200e3, P99: v, P999: 2 * v, P9999: 3 * v}}},
	}
}

// writeHistory appends 60 runs to a store, p99 stepping by factor at
// run 40 with a firmware update (factor 1: no step).
func writeHistory(t *testing.T, factor float64) string {
	t.Helper()
	root := t.TempDir()
	r := rand.New(rand.NewPCG(42, 1))
	for i := 1; i <= 60; i++ {
		p99, fw := 400e3, "1.0"
		if i >= 40 && factor != 1 {
			p99, fw = p99*factor, "1.1"
		}
		_, err := history.Append(root, "TestRandRead4K", historyRun(r, i, p99, fw))
		require.NoError(t, err)
	}
	return root
}

func TestHistoryChanges(t *testing.T) {
	step := writeHistory(t, 1.2)
	t.Run("markdown", func(t *testing.T) {
		code, out, errOut := run(t, "history", "changes", "--metric", "read.clat.p99", "--format", "markdown", step)
		require.Equal(t, 1, code, "%s\n%s", out, errOut)
		require.Regexp(t, `\| read\.clat\.p99 \| (39|40|41) \| 2026-10-1[012]T03:00:00Z \| 3\d\d\.\d+µs \| 4\d\d\.\d+µs \| \+\d\d\.\d%`, out)
		require.Contains(t, out, "firmware 1.0 -> 1.1")
		require.Contains(t, errOut, "latest segment regressed: TestRandRead4K/randread-4k@node1 read.clat.p99")
	})
	t.Run("json", func(t *testing.T) {
		code, out, _ := run(t, "history", "changes", "--format=json", step, "--metric=read.clat.p99")
		require.Equal(t, 1, code)
		var rep struct {
			Verdict string
			Series  []struct {
				Metrics []struct{ Changes []struct{ Run int } }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		require.Equal(t, "regression", rep.Verdict)
		require.InDelta(t, 40, rep.Series[0].Metrics[0].Changes[0].Run, 1)
	})
	t.Run("tolerant", func(t *testing.T) {
		code, out, errOut := run(t, "history", "changes", "--metric", "read.clat.p99", "--tolerance", "*.clat.p99=30%", step)
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		require.Contains(t, out, "within 30% tolerance")
	})
	t.Run("min change", func(t *testing.T) {
		code, out, errOut := run(t, "history", "changes", "--metric", "read.clat.p99", "--min-change", "30%", step)
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		require.Contains(t, out, "no change point in 1 metrics")
	})
	t.Run("no step", func(t *testing.T) {
		code, out, errOut := run(t, "history", "changes", writeHistory(t, 1))
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		require.Contains(t, out, "60 runs")
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"history", "changes"},
			{"history", "changes", "--metric", "read.nope", step},
			{"history", "changes", "--alpha", "2", step},
			{"history", "changes", "--format", "xml", step},
		} {
			code, _, _ := run(t, args...)
			require.Equal(t, 2, code, "%q", args)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{\n\"schema\": 3,\n\"name\": 7\n}\n"), 0o644))
		code, _, errOut := run(t, "history", "changes", dir)
		require.Equal(t, 2, code)
		require.Contains(t, errOut, filepath.Join(dir, "bad.json")+":")
	})
}

// history add takes baseline files and directories of them, keeping the
// test names of a directory's layout.
func TestHistoryAdd(t *testing.T) {
	bdir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 1))
	require.NoError(t, baselines.WriteFile(baselines.Path(bdir, "TestA/sub x", "randread-4k"), historyRun(r, 1, 4e5, "1.0")))
	one := filepath.Join(t.TempDir(), "one.json")
	require.NoError(t, baselines.WriteFile(one, historyRun(r, 2, 4e5, "1.0")))
	root := t.TempDir()
	code, out, errOut := run(t, "history", "add", root, bdir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added "+filepath.Join(root, "TestA", "sub%20x", "randread-4k")+"/")
	code, _, errOut = run(t, "history", "add", "--test", "TestB", root, one)
	require.Equal(t, 0, code, errOut)
	runs, err := history.Load(root)
	require.NoError(t, err)
	var series []string
	for _, e := range runs {
		series = append(series, e.Series)
	}
	require.Equal(t, "TestA/sub%20x/randread-4k TestB/randread-4k", strings.Join(series, " "))
}

// history add refuses what holds no baseline, naming the path and why,
// with exit 2, and then adds nothing, not even the good arguments before
// the bad one: an empty directory, a directory named like a baseline
// file (a directory all the same), a missing file, JSON that is not a
// baseline, fio's own output.
func TestHistoryAddRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	require.NoError(t, baselines.WriteFile(good, historyRun(r, 1, 4e5, "1.0")))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	xjson := filepath.Join(dir, "x.json")
	require.NoError(t, os.Mkdir(xjson, 0o755))
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"jobs": []}`+"\n"), 0o644))
	fioOut := filepath.Join("..", "..", "testdata", "fio", "null.json")
	// baseline import-fio prints a baseline per job: two saved to one file.
	code, printed, stderr := run(t, "baseline", "import-fio", filepath.Join("..", "..", "testdata", "fio", "two-jobs.json"))
	require.Equal(t, 0, code, stderr)
	imported := filepath.Join(dir, "imported.json")
	require.NoError(t, os.WriteFile(imported, []byte(printed), 0o644))
	cases := []struct {
		name, arg, want string
	}{
		{"empty directory", empty, empty + ": a directory with no baselines under it"},
		{"directory named x.json", xjson, xjson + ": a directory with no baselines under it"},
		{"missing file", filepath.Join(dir, "missing.json"), filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{"not a baseline", other, other + `:1: no "schema" field: not a stortest baseline`},
		{"fio output", fioOut, fioOut + ":1: fio output, not a stortest baseline: import it first (stortest baseline import-fio)"},
		{"import-fio's output of two jobs", imported, imported + ":" + strconv.Itoa(strings.Count(printed[:strings.Index(printed, "}\n{")], "\n")+2) +
			": a second baseline after the first: a file holds one (baseline import-fio prints each job's, --out DIR writes them apart)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "history")
			code, out, errOut := run(t, "history", "add", root, good, c.arg)
			require.Equal(t, 2, code, "%s\n%s", out, errOut)
			require.Contains(t, errOut, c.want)
			require.Empty(t, out)
			_, err := os.Stat(root)
			require.ErrorIs(t, err, os.ErrNotExist, "history add of a bad argument wrote a history")
		})
	}
	// A directory named x.json is a directory: its baselines are added.
	require.NoError(t, baselines.WriteFile(filepath.Join(xjson, "TestX", "job.json"), historyRun(r, 2, 4e5, "1.0")))
	root := t.TempDir()
	code, out, errOut := run(t, "history", "add", root, xjson)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added "+filepath.Join(root, "TestX", "randread-4k")+"/")
}

// baseline diff and history add refuse a baseline whose IOPS its I/O
// count contradicts (iops 0 over thousands of I/Os), naming the file,
// line and field; a diff against it printed "++Inf%".
func TestBaselineInconsistentIOPS(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	require.NoError(t, baselines.WriteFile(good, historyRun(r, 1, 4e5, "1.0")))
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	re := regexp.MustCompile(`("dirs": \{\s*"read": \{[^{]*?"iops": )[0-9.e+]+`)
	require.True(t, re.Match(data))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.WriteFile(zero, re.ReplaceAll(data, []byte("${1}0")), 0o644))
	for _, args := range [][]string{{"baseline", "diff", zero, good}, {"baseline", "diff", good, zero}, {"history", "add", t.TempDir(), zero}} {
		code, out, errOut := run(t, args...)
		require.Equal(t, 2, code, "%v: %s\n%s", args, out, errOut)
		require.Regexp(t, regexp.QuoteMeta(zero)+`:\d+: dirs\.read\.iops: 0 with 3000000 I/Os in 1m0s`, errOut, "%v", args)
		require.NotContains(t, out+errOut, "Inf%")
	}
}
