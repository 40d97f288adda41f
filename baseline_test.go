package stortest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// shortRuns compares runs of a few seconds: the default wants ten.
func shortRuns() BaselineOption {
	cfg := regress.DefaultConfig()
	cfg.MinSamples = 3
	return RegressConfig(cfg)
}

func checkBaselineFake(t *testing.T, r *Result, opts ...BaselineOption) (ok bool, errs []string, logs []string) {
	t.Helper()
	f := newFake(t)
	f.run(func(tb testing.TB) { ok = CheckBaseline(tb, r, opts...) })
	return ok, f.errors, f.logs
}

// The life of a baseline: missing (fails, naming the command that records
// it), recorded with -stortest.update, passed by an unchanged run, failed
// by a slower one, and never overwritten when corrupt.
func TestCheckBaseline(t *testing.T) {
	dev := File(t, 16<<20)
	dir := t.TempDir()
	job := ratedRead(4 * time.Second)
	t.Setenv(EnvUpdate, "0")
	base := Run(t, dev, job(1000))
	path := baselines.Path(dir, t.Name(), "rated-read")

	ok, errs, _ := checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.False(t, ok)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "no baseline at "+path)
	assert.Contains(t, errs[0], "go test -run '^TestCheckBaseline$' -stortest.update")

	t.Setenv(EnvUpdate, "1")
	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.True(t, ok, "%v", errs)
	_, err := baselines.Load(path)
	require.NoError(t, err, "the recorded baseline loads")
	t.Setenv(EnvUpdate, "0")

	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	assert.True(t, ok, "a run compared with itself: %v", errs)
	assert.True(t, strings.HasSuffix(base.Artifacts[len(base.Artifacts)-1], ".baseline-diff.txt"), "%v", base.Artifacts)
	assert.True(t, strings.HasSuffix(base.Artifacts[len(base.Artifacts)-2], ".baseline-diff.html"), "the comparison's page: %v", base.Artifacts)

	slow := Run(t, dev, job(500))
	ok, errs, _ = checkBaselineFake(t, slow, BaselineDir(dir), shortRuns())
	require.False(t, ok, "half the IOPS passed")
	assert.True(t, anyContains(errs, "rated-read: read iops"), "findings: %q", errs)
	require.NotEmpty(t, slow.rec.run.Failures)
	assert.Equal(t, "regression", slow.rec.run.Failures[len(slow.rec.run.Failures)-1].Type)

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, good[:len(good)/2], 0o644))
	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.False(t, ok)
	assert.True(t, anyContains(errs, "baseline unreadable (left as it is"), "%q", errs)
	after, _ := os.ReadFile(path)
	assert.Equal(t, good[:len(good)/2], after, "a corrupt baseline is never rewritten by a check")

	_, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), Tolerances("*.iops=nonsense"))
	assert.True(t, anyContains(errs, "baseline options"), "%q", errs)
}

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// settingsOff clears the settings of the environment that change what
// CheckBaseline does, for a test that sets its own.
func settingsOff(t *testing.T) {
	for _, env := range []string{EnvUpdate, EnvKeep, EnvRepeat, EnvRepeatBudget, EnvStrict, EnvTolerance, "STORTEST_DEVICE", "STORTEST_BASELINES", EnvAllowDestructive} {
		t.Setenv(env, "")
	}
}

// syntheticBaseline stores the baseline of a synthetic run (see
// syntheticResult) for test t in a new directory, and returns the
// directory. Its runs have no per-second samples, so comparisons of
// their rates are inconclusive.
func syntheticBaseline(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := syntheticResult()
	b, err := baselines.FromResult(r.Result, r.fp)
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(baselines.Path(dir, t.Name(), r.Job.Name), b))
	return dir
}

// Every comparison ends in a verdict, and an inconclusive one is never
// silent: it is logged, in the run's JUnit testcase and in Main's
// summary; strict mode (option or environment) fails on it.
func TestCheckBaselineInconclusive(t *testing.T) {
	onlyIOPS := Tolerances("*=off,read.iops=10%")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		opts    []BaselineOption
		verdict regress.Verdict
		strict  bool
	}{
		{name: "logged", opts: []BaselineOption{onlyIOPS}, verdict: regress.Inconclusive},
		{name: "strict option", opts: []BaselineOption{onlyIOPS, Strict()}, verdict: regress.Inconclusive, strict: true},
		{name: "strict environment", env: map[string]string{EnvStrict: "1"}, opts: []BaselineOption{onlyIOPS},
			verdict: regress.Inconclusive, strict: true},
		{name: "tolerance setting applies last", env: map[string]string{EnvStrict: "1", EnvTolerance: "read.iops=off,*.errors=0"},
			opts: []BaselineOption{onlyIOPS}, verdict: regress.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settingsOff(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			dir := syntheticBaseline(t)
			r := syntheticResult()
			ok, errs, logs := checkBaselineFake(t, r, append(tc.opts, BaselineDir(dir))...)
			assert.Equal(t, !tc.strict, ok, "returned")

			require.Len(t, r.rec.run.Baselines, 1, "the comparison is in the JUnit record")
			rep := r.rec.run.Baselines[0]
			assert.Equal(t, tc.verdict, rep.Verdict, "%s", rep.Summary())
			assert.True(t, anyContains(logs, "stortest: baseline comparison mix: "+tc.verdict.String()), "logs %q", logs)
			var noted bool
			for _, c := range notedComparisons() {
				noted = noted || c.test == t.Name()
			}
			assert.Equal(t, tc.verdict != regress.Pass, noted, "in Main's summary")
			forgetComparisons(t.Name()) // a fake's: not for this binary's summary

			if tc.verdict == regress.Pass {
				assert.Empty(t, errs)
				return
			}
			reason := rep.Inconclusive()[0].Reason
			require.True(t, strings.HasPrefix(reason, "read iops "), "%q", reason)
			if !tc.strict {
				assert.Empty(t, errs)
				assert.Contains(t, logs, "stortest: mix: inconclusive: "+reason)
				assert.Empty(t, r.rec.run.Failures)
				return
			}
			assert.Equal(t, []string{"mix: inconclusive (strict): " + reason}, errs)
			require.Len(t, r.rec.run.Failures, 1)
			assert.Equal(t, report.Failure{Message: errs[0], Type: "inconclusive"}, r.rec.run.Failures[0])
		})
	}
}

// forgetComparisons drops test's comparisons from Main's summary.
func forgetComparisons(test string) {
	noted.mu.Lock()
	defer noted.mu.Unlock()
	noted.list = slices.DeleteFunc(noted.list, func(c comparison) bool { return c.test == test })
}

// Tolerance rules that do not parse fail the check, saying where they
// came from.
func TestCheckBaselineBadToleranceSetting(t *testing.T) {
	settingsOff(t)
	t.Setenv(EnvTolerance, "*.iops")
	dir := syntheticBaseline(t)
	ok, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	assert.False(t, ok)
	assert.True(t, anyContains(errs, "mix: -stortest.tolerance (or STORTEST_TOLERANCE): regress: bad rule"), "%q", errs)
}

// A test that has failed already records no baseline.
func TestCheckBaselineUpdateRefusesFailedTest(t *testing.T) {
	settingsOff(t)
	t.Setenv(EnvUpdate, "1")
	dir := t.TempDir()
	r := syntheticResult()
	f := newFake(t)
	var ok bool
	f.run(func(tb testing.TB) {
		r.CheckIOPS(tb, 1e9)
		ok = CheckBaseline(tb, r, BaselineDir(dir))
	})
	assert.False(t, ok)
	assert.Equal(t, "mix: not recording a baseline: the test has failed (see above)", f.errors[len(f.errors)-1])
	assert.Equal(t, "baseline", r.rec.run.Failures[len(r.rec.run.Failures)-1].Type)
	_, err := os.Stat(baselines.Path(dir, t.Name(), "mix"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "no baseline written")
}

// The command that records a missing baseline is the one the test binary
// was run with, quoted for a shell.
func TestUpdateCommand(t *testing.T) {
	settingsOff(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, "(cd "+shellQuote(wd)+" && go test -run '^TestX$' -stortest.update)", updateCommand("TestX/sub"))

	t.Setenv("STORTEST_DEVICE", "/dev/nvme0n1")
	t.Setenv("STORTEST_BASELINES", "/ci/base lines")
	t.Setenv(EnvAllowDestructive, "/dev/nvme0n1")
	t.Setenv(EnvTolerance, "*.iops=5%,read.clat.p99=15%:2us")
	assert.Equal(t, "(cd "+shellQuote(wd)+" && STORTEST_ALLOW_DESTRUCTIVE=/dev/nvme0n1 go test -run '^TestX$' -stortest.update "+
		"-stortest.device=/dev/nvme0n1 -stortest.baselines='/ci/base lines' -stortest.tolerance='*.iops=5%,read.clat.p99=15%:2us')",
		updateCommand("TestX"))
}

// A shell reads back what shellQuote quoted.
func TestShellQuote(t *testing.T) {
	in := []string{"/dev/nvme0n1", "", "a b", "it's", "*.iops=5%", "^TestX\\.y$", "$HOME", "a\nb", "`x`;|&"}
	var quoted []string
	for _, s := range in {
		quoted = append(quoted, shellQuote(s))
	}
	assert.Equal(t, "/dev/nvme0n1", quoted[0], "left as it is")
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+strings.Join(quoted, " ")).Output()
	require.NoError(t, err)
	assert.Equal(t, in, strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"))
}

// go test -count=N -stortest.update records N runs in one baseline: the
// first recording of a path in the process replaces the file, the next
// add their runs. The rules of the Tolerances options and of the
// tolerance setting are stored with it.
func TestCheckBaselineRecordsRuns(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	stale := syntheticResult()
	stale.Jobs[0].Runtime *= 2
	old, err := baselines.FromResult(stale.Result, stale.fp)
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(path, old)) // recorded by an earlier process

	t.Setenv(EnvUpdate, "1")
	t.Setenv(EnvTolerance, "read.bw=5%")
	for i := 1; i <= 3; i++ {
		ok, errs, logs := checkBaselineFake(t, syntheticResult(), BaselineDir(dir), Tolerances("*=off,read.iops=10%"))
		require.True(t, ok, "%q", errs)
		want := "stortest: mix: baseline written to " + path
		if i > 1 {
			want += fmt.Sprintf(" (%d runs)", i)
		}
		assert.Equal(t, []string{want}, logs)
	}
	b, err := baselines.Load(path)
	require.NoError(t, err)
	assert.Len(t, b.RunSummaries(), 3, "the runs of this process, not the earlier one")
	assert.Equal(t, 1000.0, b.Dir("read").IOPS, "the first run's data")
	assert.Equal(t, "*=off,read.iops=10%,read.bw=5%", b.Tolerances)
	hist, err := os.Open(baselines.HistoryPath(path))
	require.NoError(t, err)
	defer hist.Close()
	kept, skipped, err := baselines.ReadHistory(hist, path)
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, kept, 1, "the baseline replaced is kept in the history, once")
	assert.Equal(t, 500.0, kept[0].Dir("read").IOPS)
}

// The tolerances stored in a baseline apply first, then the test's own,
// then the tolerance setting: the last matching rule wins.
func TestCheckBaselineStoredTolerances(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	r := syntheticResult()
	b, err := baselines.FromResult(r.Result, r.fp)
	require.NoError(t, err)
	b.Tolerances = "*=off,read.iops=10%"
	require.NoError(t, baselines.WriteFile(baselines.Path(dir, t.Name(), "mix"), b))
	verdict := func(opts ...BaselineOption) (regress.Verdict, []string) {
		t.Helper()
		r := syntheticResult()
		_, errs, _ := checkBaselineFake(t, r, append(opts, BaselineDir(dir))...)
		if len(r.rec.run.Baselines) != 1 {
			return -1, errs
		}
		rep := r.rec.run.Baselines[0]
		var metrics []string
		for _, f := range rep.Findings {
			metrics = append(metrics, f.Metric)
		}
		return rep.Verdict, metrics
	}
	defer forgetComparisons(t.Name())

	v, metrics := verdict()
	assert.Equal(t, regress.Inconclusive, v)
	assert.Equal(t, []string{"read.iops"}, metrics, "the stored rules alone")

	v, metrics = verdict(Tolerances("read.iops=off,write.errors=0"))
	assert.Equal(t, regress.Pass, v)
	assert.Equal(t, []string{"write.errors"}, metrics, "the test's rules after the stored ones")

	t.Setenv(EnvTolerance, "write.errors=off,read.iops=20%")
	_, metrics = verdict(Tolerances("read.iops=off,write.errors=0"))
	assert.Equal(t, []string{"read.iops"}, metrics, "the setting's rules last")

	t.Setenv(EnvTolerance, "")
	b.Tolerances = "read.iops"
	require.NoError(t, baselines.WriteFile(baselines.Path(dir, t.Name(), "mix"), b))
	v, errs := verdict()
	assert.Equal(t, regress.Verdict(-1), v)
	assert.True(t, anyContains(errs, "mix: the tolerances stored in "), "%q", errs)
}

// A baseline belongs to its device: one recorded on another is refused,
// with the command that records one for this device; a firmware change
// of the same device is logged and compared.
func TestCheckBaselineOtherDevice(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	r := syntheticResult()
	r.fp = baselines.Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Samsung SSD 980", Serial: "S1", Firmware: "1B2Q", Size: 1 << 40}
	b, err := baselines.FromResult(r.Result, r.fp)
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(path, b))
	defer forgetComparisons(t.Name())

	other := syntheticResult()
	other.fp = r.fp
	other.fp.Serial, other.fp.Size = "S2", 2<<40
	ok, errs, _ := checkBaselineFake(t, other, BaselineDir(dir))
	assert.False(t, ok)
	require.Len(t, errs, 1)
	assert.True(t, strings.HasPrefix(errs[0], "mix: the baseline at "+path+" was recorded on another device "+
		"(serial S1 -> S2, size 1099511627776 (1TiB) -> 2199023255552 (2TiB)): not compared; "+
		"record one for this device in its place (or keep each device's apart with -stortest.baselines) with:\n\t(cd "), "%q", errs[0])
	assert.Contains(t, errs[0], "-stortest.update")
	assert.Equal(t, "baseline", other.rec.run.Failures[0].Type)
	assert.Empty(t, other.rec.run.Baselines, "no comparison")

	updated := syntheticResult()
	updated.fp = r.fp
	updated.fp.Firmware = "2B2Q"
	_, errs, logs := checkBaselineFake(t, updated, BaselineDir(dir), Tolerances("*=off,*.errors=0"))
	assert.Empty(t, errs)
	assert.Contains(t, logs, "stortest: mix: fingerprint changed since the baseline: firmware 1B2Q -> 2B2Q")
	assert.Len(t, updated.rec.run.Baselines, 1, "compared")
}

// ratedRead returns a job of the given runtime reading 4k at random,
// rated at the IOPS given to it: the baseline tests slow a run down by
// lowering the rate.
func ratedRead(runtime time.Duration) func(iops int) workload.Job {
	return func(iops int) workload.Job {
		return workload.Job{Name: "rated-read", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
			Runtime: runtime, TimeBased: true, RateIOPS: [3]int{iops}}
	}
}

// asSession makes what follows run as if in another go test process of
// session id: its baselines record id, and it has written none yet.
func asSession(t *testing.T, id string) {
	t.Helper()
	written.mu.Lock()
	saved, savedSession := written.paths, thisSession
	written.paths = nil
	thisSession = func() string { return id }
	written.mu.Unlock()
	t.Cleanup(func() {
		written.mu.Lock()
		written.paths, thisSession = saved, savedSession
		written.mu.Unlock()
	})
}

// -stortest.update=append grows a baseline one session at a time: each
// session's runs are added (those of one -count=N process as one
// session), the oldest sessions go beyond -stortest.keep, and plain
// -stortest.update starts over with this session's runs only.
func TestUpdateAppendGrowsSessions(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	record := func() []string {
		t.Helper()
		ok, errs, logs := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
		require.True(t, ok, "%q", errs)
		return logs
	}
	sessions := func() []string {
		t.Helper()
		b, err := baselines.Load(path)
		require.NoError(t, err)
		return b.Sessions()
	}

	t.Setenv(EnvUpdate, "append")
	asSession(t, "s1")
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path}, record(), "none yet: the first session records it")
	asSession(t, "s2")
	assert.Equal(t, []string{"stortest: mix: this session added to the baseline at " + path + ": 2 sessions (2 runs)"}, record())
	asSession(t, "s3") // go test -count=3
	record()
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path + " (3 sessions, 4 runs)"}, record())
	record()
	assert.Equal(t, []string{"s1", "s2", "s3"}, sessions())

	t.Setenv(EnvKeep, "3")
	asSession(t, "s4")
	assert.Equal(t, []string{"stortest: mix: this session added to the baseline at " + path +
		": 3 sessions (5 runs); the oldest 1 session (1 run) evicted to keep 3 (-stortest.keep)"}, record())
	assert.Equal(t, []string{"s2", "s3", "s4"}, sessions())
	t.Setenv(EnvKeep, "2")
	asSession(t, "s5")
	record()
	assert.Equal(t, []string{"s4", "s5"}, sessions(), "s2 and s3 (three runs) evicted, oldest first")
	b, err := baselines.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "s5", b.Session, "the full data is the newest session's")
	assert.Len(t, b.Runs, 2)

	// Each update kept the baseline it replaced in the history.
	hist, err := os.Open(baselines.HistoryPath(path))
	require.NoError(t, err)
	kept, _, err := baselines.ReadHistory(hist, path)
	hist.Close()
	require.NoError(t, err)
	assert.Len(t, kept, 4)

	t.Setenv(EnvKeep, "0")
	asSession(t, "s6")
	_, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	assert.Equal(t, []string{"mix: STORTEST_KEEP=0: keep at least 1 session"}, errs)
	t.Setenv(EnvKeep, "")

	// Plain update starts over: this session's run only.
	t.Setenv(EnvUpdate, "1")
	asSession(t, "s7")
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path}, record())
	assert.Equal(t, []string{"s7"}, sessions())
	b, err = baselines.Load(path)
	require.NoError(t, err)
	assert.Nil(t, b.Runs)
}

// An append refuses a baseline of another workload, or one it cannot
// read, naming the file and what differs, and leaves it as it was.
func TestUpdateAppendRefuses(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	other := syntheticResult()
	other.Job.IODepth = 8
	other.Jobs[0].Job.IODepth = 8
	b, err := baselines.FromResult(other.Result, other.fp)
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(path, b))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	t.Setenv(EnvUpdate, "append")
	asSession(t, "s2")
	ok, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	assert.False(t, ok)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "mix: update baseline: cannot add this session to "+path+": baselines: not a run of the same job: mix: the workload differs: iodepth 8 -> 1")
	assert.Contains(t, errs[0], "start over with plain -stortest.update")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	require.NoError(t, os.WriteFile(path, before[:100], 0o644))
	asSession(t, "s3")
	_, errs, _ = checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "cannot add this session to "+path+": baselines: "+path)
	assert.Contains(t, errs[0], "truncated")
}

const appendPauseEnv = "STORTEST_APPEND_PAUSE"

// Two go test processes appending their sessions to one baseline at the
// same moment each add theirs: the second waits for the first's lock,
// then reads the baseline the first wrote. Each pauses a second between
// reading the baseline and writing it back, so that without the lock
// both would read the one-session baseline and the later write would
// drop the earlier's session.
func TestUpdateAppendConcurrent(t *testing.T) {
	if os.Getenv(updateHelperEnv) != "" {
		t.Skip("in the helper's binary")
	}
	dir := t.TempDir()
	path := baselines.Path(dir, "TestUpdateFlagHelper", "mix")
	start := func(pause string) (*exec.Cmd, *strings.Builder) {
		cmd := updateHelper(dir, []string{appendPauseEnv + "=" + pause}, "-stortest.update=append")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		return cmd, &out
	}
	first, out := start("")
	require.NoError(t, first.Wait(), "%s", out)
	a, aOut := start("1s")
	b, bOut := start("1s")
	require.NoError(t, a.Wait(), "%s", aOut)
	require.NoError(t, b.Wait(), "%s", bOut)
	got, err := baselines.Load(path)
	require.NoError(t, err)
	assert.Len(t, got.Sessions(), 3, "every session added")
	assert.Contains(t, aOut.String()+bOut.String(), ": 3 sessions (3 runs)")
}
