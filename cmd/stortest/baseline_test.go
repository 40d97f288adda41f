package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// synthBaseline writes a 30-second random-read baseline whose IOPS wobble
// deterministically around perSec and whose latencies spread around
// 100µs; tail multiplies the slowest tenth.
func synthBaseline(t *testing.T, path string, perSec int, tail float64) {
	t.Helper()
	layout := latency.MustLayout(latency.LongGroups)
	total, sec := latency.New(layout), latency.New(layout)
	jr := &workload.JobResult{Name: "randread-4k", Engine: "io_uring", Runtime: 30 * time.Second,
		Job: workload.Job{Name: "randread-4k", Engine: "io_uring", RW: workload.RandRead, IODepth: 8}}
	for s := range 30 {
		sec.Reset()
		n := perSec + perSec*(s%5-2)/100
		for i := range n {
			z := math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/float64(n)-1)
			v := 100e3 * math.Exp(0.3*z)
			if z > 1.2816 {
				v *= tail
			}
			sec.Add(uint64(v))
		}
		require.NoError(t, total.Merge(sec))
		second := workload.Second{T: time.Duration(s+1) * time.Second, Dur: time.Second}
		second.IOs[0], second.Bytes[0] = uint64(n), uint64(n)*4096
		second.Clat[0] = latency.NewSparse(sec)
		jr.Seconds = append(jr.Seconds, second)
	}
	jr.Dirs[0] = workload.DirStats{IOs: total.Count(), Bytes: total.Count() * 4096, Clat: total}
	b, err := baselines.FromJobResult(jr, baselines.Fingerprint{Device: "nvme0n1", Firmware: "1.2"})
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(path, b))
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(args, &o, &e)
	return code, o.String(), e.String()
}

func TestBaselineDiffFiles(t *testing.T) {
	dir := t.TempDir()
	base, same, slow, tail := filepath.Join(dir, "base.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "slow.json"), filepath.Join(dir, "tail.json")
	synthBaseline(t, base, 2000, 1)
	synthBaseline(t, same, 2000, 1)
	synthBaseline(t, slow, 1400, 1)
	synthBaseline(t, tail, 2000, 2)

	t.Run("unchanged", func(t *testing.T) {
		code, out, errOut := run(t, "baseline", "diff", base, same)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "randread-4k: PASS\n")
		require.Regexp(t, `\n  read\.iops +2k IOPS +2k IOPS +\+0\.0% +[-+.\d%]+ +pass\n`, out)
	})
	t.Run("iops-drop", func(t *testing.T) {
		code, out, errOut := run(t, "baseline", "diff", "--run-spread", "2%", base, slow)
		require.Equal(t, 1, code)
		require.Contains(t, out, "randread-4k: REGRESSION\n")
		require.Contains(t, out, "read iops 1.4k IOPS vs baseline 2k IOPS (-30.0%, 99.29% CI ")
		require.Contains(t, errOut, "1 of 1 job(s) regressed")
	})
	t.Run("p99-doubled-json", func(t *testing.T) {
		code, out, _ := run(t, "baseline", "diff", "--format", "json", "--run-spread", "2%", base, tail)
		require.Equal(t, 1, code)
		var doc struct {
			Verdict string
			Reports []struct {
				Findings []struct{ Metric, Verdict string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		require.Equal(t, "regression", doc.Verdict)
		got := map[string]string{}
		for _, f := range doc.Reports[0].Findings {
			got[f.Metric] = f.Verdict
		}
		require.Equal(t, "regression", got["read.clat.p99"])
		require.Equal(t, "pass", got["read.iops"])
	})
	t.Run("markdown-flags-after-files", func(t *testing.T) {
		code, out, _ := run(t, "baseline", "diff", base, slow, "--format=markdown", "--run-spread=2%")
		require.Equal(t, 1, code)
		require.True(t, strings.HasPrefix(out, "## stortest baseline diff: REGRESSION\n"), out)
		require.Contains(t, out, "| `read.iops` | 2k IOPS | 1.4k IOPS | -30.0% |")
	})
	t.Run("tolerance", func(t *testing.T) {
		code, out, errOut := run(t, "baseline", "diff", "--tolerance", "*.iops=50%,*.bw=off,*.clat.*=off", base, slow)
		require.Equal(t, 0, code, out+errOut)
		require.NotContains(t, out, "read.bw")
		require.NotContains(t, out, "clat")
		require.Regexp(t, `\n  read\.iops +2k IOPS +1\.4k IOPS +-30\.0% +[-.\d%]+ +pass\n`, out)
	})
}

func TestBaselineDiffDirectories(t *testing.T) {
	old, cur := t.TempDir(), t.TempDir()
	synthBaseline(t, baselines.Path(old, "TestA", "randread-4k"), 2000, 1)
	synthBaseline(t, baselines.Path(cur, "TestA", "randread-4k"), 2000, 1)
	synthBaseline(t, baselines.Path(old, "TestB/sub", "randread-4k"), 2000, 1)
	synthBaseline(t, baselines.Path(cur, "TestB/sub", "randread-4k"), 1400, 1)
	synthBaseline(t, baselines.Path(old, "TestGone", "randread-4k"), 2000, 1)
	synthBaseline(t, baselines.Path(cur, "TestNew", "randread-4k"), 2000, 1)
	// Neither a stale temporary file nor a history is a baseline.
	require.NoError(t, os.WriteFile(filepath.Join(cur, "TestA", ".randread-4k.json.tmp-1"), []byte("{"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cur, "TestA", "randread-4k.history.jsonl"), []byte("{\n"), 0o644))

	code, out, errOut := run(t, "baseline", "diff", "--run-spread", "2%", old, cur)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, "TestA/randread-4k: PASS\n")
	require.Contains(t, out, "TestB/sub/randread-4k: REGRESSION\n")
	require.Contains(t, out, "only in "+old+": TestGone/randread-4k.json\n")
	require.Contains(t, out, "only in "+cur+": TestNew/randread-4k.json\n")
	require.Contains(t, errOut, "2 baseline(s) without a counterpart")
	require.Contains(t, errOut, "1 of 2 job(s) regressed")
}

func TestBaselineDiffErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	synthBaseline(t, good, 500, 1)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	corrupt := filepath.Join(dir, "corrupt.json")
	require.NoError(t, os.WriteFile(corrupt, data[:len(data)/2], 0o644))
	lines := strings.Count(string(data[:len(data)/2]), "\n") + 1
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one-file", []string{good}, 2, "want OLD and NEW"},
		{"bad-format", []string{"--format", "xml", good, good}, 2, "--format"},
		{"bad-flag", []string{"--nope", good, good}, 2, "flag provided but not defined"},
		{"bad-tolerance", []string{"--tolerance", "iops", good, good}, 2, "--tolerance"},
		{"bad-confidence", []string{"--confidence", "95", good, good}, 2, "--confidence"},
		{"corrupt", []string{good, corrupt}, 2, "corrupt.json:" + strconv.Itoa(lines) + ": truncated"},
		{"missing", []string{good, filepath.Join(dir, "nope.json")}, 2, "no such file"},
		{"file-and-dir", []string{good, dir}, 2, "two files or two directories"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, append([]string{"baseline", "diff"}, tc.args...)...)
			require.Equal(t, tc.code, code, errOut)
			require.Contains(t, errOut, tc.want)
		})
	}
}

func TestBaselineShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	synthBaseline(t, path, 1000, 1)
	code, out, errOut := run(t, "baseline", "show", path)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, path+"\nrandread-4k: schema 4, ")
	require.NotContains(t, out, "  runs: ")
	require.Contains(t, out, `fingerprint: device="nvme0n1" firmware="1.2" engine="io_uring"`)
	require.Contains(t, out, "  job: ioengine=io_uring rw=randread bs=4k iodepth=8\n")
	require.Regexp(t, `\n  read: IOPS=1k, BW=3\.9\dMiB/s, \d+ I/Os, 0 errors, 0 short\n`, out)
	require.Contains(t, out, "    clat: n=")
	require.Contains(t, out, "  seconds: 30 samples (30 whole)\n")

	code, out, _ = run(t, "baseline", "show", "--format", "json", path)
	require.Equal(t, 0, code)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(data), out, "json re-encodes the file byte for byte")

	code, _, errOut = run(t, "baseline", "show")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "want at least one baseline file")
}

// `stortest baseline import-fio` turns every recorded fio output into
// baselines that load and show.
func TestBaselineImportFio(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fio", "*.json"))
	require.GreaterOrEqual(t, len(files), 5)
	out := t.TempDir()
	total := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, stdout, errOut := run(t, "baseline", "import-fio", "--out", out, "--test", "TestFio/"+strings.TrimSuffix(filepath.Base(f), ".json"), f)
			require.Equal(t, 0, code, errOut)
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				path, ok := strings.CutPrefix(line, "wrote ")
				require.True(t, ok, line)
				b, err := baselines.Load(path)
				require.NoError(t, err)
				require.Equal(t, "fio-3.33", b.Fingerprint.Version)
				total++
			}
		})
	}
	require.GreaterOrEqual(t, total, len(files))

	uring := filepath.Join("..", "..", "testdata", "fio", "uring-qd32-lat.json")
	t.Run("stdout", func(t *testing.T) {
		code, stdout, _ := run(t, "baseline", "import-fio", uring)
		require.Equal(t, 0, code)
		b, err := baselines.Decode(strings.NewReader(stdout), "stdout")
		require.NoError(t, err)
		require.Equal(t, "uring-qd32", b.Name)
		require.Equal(t, 32, b.Job.IODepth)
	})
	t.Run("refuses-to-replace", func(t *testing.T) {
		code, _, errOut := run(t, "baseline", "import-fio", "--out", out, "--test", "TestFio/uring-qd32-lat", uring)
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "exists: pass --force to replace it")
		code, _, errOut = run(t, "baseline", "import-fio", "--force", "--out", out, "--test", "TestFio/uring-qd32-lat", uring)
		require.Equal(t, 0, code, errOut)
	})
	t.Run("diff-with-itself", func(t *testing.T) {
		p := baselines.Path(out, "TestFio/uring-qd32-lat", "uring-qd32")
		code, stdout, errOut := run(t, "baseline", "diff", p, p)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, stdout, "uring-qd32: INCONCLUSIVE\n")
		// Five 500 ms samples of a run whose IOPS swung by a fifth cannot
		// show it within 10% of itself: inconclusive, and saying why.
		require.Contains(t, stdout, "inconclusive: too noisy")
		require.Contains(t, errOut, "inconclusive: not a pass")
	})
	t.Run("usage", func(t *testing.T) {
		code, _, errOut := run(t, "baseline", "import-fio", "--test", "T", uring)
		require.Equal(t, 2, code)
		require.Contains(t, errOut, "--test and --force need --out")
		code, _, errOut = run(t, "baseline", "import-fio")
		require.Equal(t, 2, code)
		require.Contains(t, errOut, "want one fio JSON output")
	})
	t.Run("probe", func(t *testing.T) {
		// The recorded job's file is gone: a warning, and the import goes on.
		tiny := filepath.Join("..", "..", "testdata", "fio", "tiny-n25.json")
		code, stdout, errOut := run(t, "baseline", "import-fio", "--probe", tiny)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, "job tiny: baselines: fingerprint: stat /tmp/tmp.9yXbMHW4Fg/file3: no such file or directory")
		b, err := baselines.Decode(strings.NewReader(stdout), "stdout")
		require.NoError(t, err)
		require.Equal(t, "fio-3.33", b.Fingerprint.Version)
	})
	t.Run("not-fio", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		require.NoError(t, os.WriteFile(bad, []byte("{\"jobs\": [\n{\"jobname\": 5}]}"), 0o644))
		code, _, errOut := run(t, "baseline", "import-fio", bad)
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "bad.json: line 2")
	})
}

// Acceptance: two 5 s fio runs about 15x apart (testdata/fio/plain/gate-*.json,
// recorded by record-gate.sh: 109k and 6k IOPS, nine 500 ms samples
// each), imported as baselines, are a regression: exit status 1.
func TestImportFioOverwhelmingChange(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"fast", "slow"} {
		code, _, errOut := run(t, "baseline", "import-fio", "--out", filepath.Join(dir, name),
			filepath.Join("..", "..", "testdata", "fio", "plain", "gate-"+name+".json"))
		require.Equal(t, 0, code, errOut)
	}
	code, out, errOut := run(t, "baseline", "diff", filepath.Join(dir, "fast"), filepath.Join(dir, "slow"))
	require.Equal(t, 1, code, "%s\n%s", out, errOut)
	require.Regexp(t, `read iops 6k IOPS vs baseline 109k IOPS \(-94\.5%, [\d.]+% CI -9\d\.\d%\.\.-9\d\.\d%; spread 10\.0% assumed: the baseline holds 1 session\): regression beyond 10% tolerance`, out)
	require.Contains(t, errOut, "regressed")
	// And the other way round, an improvement: exit 0.
	code, out, errOut = run(t, "baseline", "diff", filepath.Join(dir, "slow"), filepath.Join(dir, "fast"))
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.Regexp(t, `\n  read\.iops +6k IOPS +109k IOPS +\+1724\.2% +[-+.\d%]+ +improvement\n`, out)
}

// An inconclusive comparison is never silent: without --strict it exits
// 0 and says so on stderr; with --strict it exits 3, apart from a
// regression's 1.
func TestBaselineDiffStrict(t *testing.T) {
	dir := t.TempDir()
	short := func(path string, perSec uint64) {
		jr := &workload.JobResult{Name: "short", Engine: "psync", Runtime: 3 * time.Second,
			Job: workload.Job{Name: "short", Engine: "psync", RW: workload.RandRead}}
		for s := range 3 {
			sec := workload.Second{T: time.Duration(s+1) * time.Second, Dur: time.Second}
			sec.IOs[0], sec.Bytes[0] = perSec, perSec*4096
			jr.Seconds = append(jr.Seconds, sec)
		}
		jr.Dirs[0] = workload.DirStats{IOs: 3 * perSec, Bytes: 3 * perSec * 4096}
		b, err := baselines.FromJobResult(jr, baselines.Fingerprint{})
		require.NoError(t, err)
		require.NoError(t, baselines.WriteFile(path, b))
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	short(a, 1000)
	short(b, 1000)
	code, out, errOut := run(t, "baseline", "diff", a, b)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "short: INCONCLUSIVE")
	require.Contains(t, errOut, "1 of 1 job(s) inconclusive: not a pass; --strict makes it exit 3")
	code, _, errOut = run(t, "baseline", "diff", "--strict", a, b)
	require.Equal(t, 3, code, errOut)
	require.Contains(t, errOut, "1 of 1 job(s) inconclusive (--strict)")
}

// `stortest baseline -h` lists the baseline commands; an unknown one
// among them is a usage error.
func TestBaselineGroupHelp(t *testing.T) {
	for _, args := range [][]string{{"baseline"}, {"baseline", "-h"}, {"baseline", "--help"}, {"baseline", "help"}} {
		code, out, _ := run(t, args...)
		require.Equal(t, 0, code, args)
		require.Contains(t, out, "stortest baseline diff ")
		require.Contains(t, out, "stortest baseline import-fio ")
		require.NotContains(t, out, "stortest hist merge", "only the group's commands")
	}
	code, _, errOut := run(t, "baseline", "bogus")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `unknown command "baseline bogus"`)
	require.Contains(t, errOut, "stortest baseline diff ")
}

// Without --run-spread a baseline of one run assumes a shared host's
// spread between runs (10% for IOPS): a 30% drop is not proof. Told the
// device is quiet (2%), the same drop is a regression.
func TestBaselineDiffRunSpread(t *testing.T) {
	dir := t.TempDir()
	base, slow := filepath.Join(dir, "base.json"), filepath.Join(dir, "slow.json")
	synthBaseline(t, base, 2000, 1)
	synthBaseline(t, slow, 1400, 1)
	code, out, errOut := run(t, "baseline", "diff", base, slow)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "spread 10.0% assumed: the baseline holds 1 session): inconclusive")
	require.Contains(t, out, "the spread between sessions decides it: add runs of separate sessions to the baseline")
	code, _, _ = run(t, "baseline", "diff", "--run-spread", "2%", base, slow)
	require.Equal(t, 1, code)
	code, _, errOut = run(t, "baseline", "diff", "--run-spread", "lots", base, slow)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--run-spread: "lots" is not a non-negative percentage or fraction`)
}
