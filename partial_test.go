package stortest

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/steady"
	"stortest.dev/workload"
)

// cutBySIGINT marks the synthetic run cut short by SIGINT 3.2 s into a
// minute-long job, as Run does.
func cutBySIGINT(r *Result) {
	r.cut = &cutShort{cause: interruptError{syscall.SIGINT}, elapsed: 3200 * time.Millisecond, planned: time.Minute}
}

// cutOutcome is what a check did to the (fake) test on a run cut short.
type cutOutcome struct {
	ok, stopped bool
	errors      []string // t.Errorf, first lines
	logs        []string
	recorded    []string // failure messages in the JUnit record
}

// checkCut runs check on a synthetic run cut short by SIGINT, modified
// first.
func checkCut(t *testing.T, modify func(*Result), check func(r *Result, tb testing.TB) bool) cutOutcome {
	t.Helper()
	r := syntheticResult()
	cutBySIGINT(r)
	if modify != nil {
		modify(r)
	}
	var o cutOutcome
	var f *fakeTB
	o.ok, o.stopped, f, o.recorded = runCheck(t, r, check)
	o.errors, o.logs = firstLines(f.errors), f.logs
	return o
}

// On a run cut short by an interrupt, the checks of measurements log
// that they did not judge, record and report no failure, return false,
// and as Require* stop the test: the cancellation is the failure. What a
// short run proves (failed I/Os, blocks read back wrong, a mistake of
// the test) is still reported.
func TestChecksOnRunCutShort(t *testing.T) {
	const cut = ": run cut short by SIGINT after 3.2s of 1m0s"
	withSteady := func(r *Result) {
		r.Jobs[0].Steady = &workload.SteadyResult{Criteria: steady.MustParseSet("iops_slope:0.3%"), Window: 30 * time.Second, Last: "x"}
	}
	withVerify := func(checked, bad uint64) func(*Result) {
		return func(r *Result) {
			r.Job.Verify = workload.VerifyCRC32C
			r.Jobs[0].Verify = workload.VerifyStats{Checked: checked, Mismatches: bad}
		}
	}
	withErrors := func(r *Result) {
		r.Jobs[0].Dirs[workload.DirRead].Errors = 1
		r.Jobs[0].ErrnoCounts[int(syscall.EIO)] = 1
	}
	for _, tc := range []struct {
		name    string
		modify  func(*Result)
		check   func(r *Result, tb testing.TB) bool
		require func(r *Result, tb testing.TB)
		// failures are the one-line failures still reported; logged is
		// the "not judged" line, "" when the check judges.
		failures []string
		logged   string
	}{
		{name: "percentile",
			check:   func(r *Result, tb testing.TB) bool { return r.CheckPercentile(tb, Clat, 99.9, time.Nanosecond) },
			require: func(r *Result, tb testing.TB) { r.RequirePercentile(tb, Clat, 99.9, time.Nanosecond) },
			logged:  "stortest: mix: clat p99.9 not judged" + cut},
		{name: "percentile of one direction",
			check:   func(r *Result, tb testing.TB) bool { return r.CheckPercentile(tb, Lat.Read(), 99, time.Nanosecond) },
			require: func(r *Result, tb testing.TB) { r.RequirePercentile(tb, Lat.Read(), 99, time.Nanosecond) },
			logged:  "stortest: mix: lat p99 read not judged" + cut},
		{name: "percentile out of range is still a mistake",
			check:    func(r *Result, tb testing.TB) bool { return r.CheckPercentile(tb, Clat, 101, time.Second) },
			require:  func(r *Result, tb testing.TB) { r.RequirePercentile(tb, Clat, 101, time.Second) },
			failures: []string{"mix: clat p101: the percentile is outside (0, 100]"},
			logged:   "stortest: mix: clat p101 not judged" + cut},
		{name: "iops",
			check:   func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1e9) },
			require: func(r *Result, tb testing.TB) { r.RequireIOPS(tb, 1e9) },
			logged:  "stortest: mix: iops floor not judged" + cut},
		{name: "iops of some directions",
			check:   func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1e9, workload.DirRead, workload.DirWrite) },
			require: func(r *Result, tb testing.TB) { r.RequireIOPS(tb, 1e9, workload.DirRead, workload.DirWrite) },
			logged:  "stortest: mix: iops read+write floor not judged" + cut},
		{name: "bw",
			check:   func(r *Result, tb testing.TB) bool { return r.CheckBW(tb, 1e12, workload.DirWrite) },
			require: func(r *Result, tb testing.TB) { r.RequireBW(tb, 1e12, workload.DirWrite) },
			logged:  "stortest: mix: bw write floor not judged" + cut},
		{name: "steady state not attained", modify: withSteady,
			check:   func(r *Result, tb testing.TB) bool { return r.CheckSteady(tb) },
			require: func(r *Result, tb testing.TB) { r.RequireSteady(tb) },
			logged:  "stortest: mix: steady state not judged" + cut},
		{name: "steady state without its options is still a mistake",
			check:    func(r *Result, tb testing.TB) bool { return r.CheckSteady(tb) },
			require:  func(r *Result, tb testing.TB) { r.RequireSteady(tb) },
			failures: []string{"mix: steady-state detection is off: set Job.SS and Job.SSDur (fio's steadystate and ss_dur)"},
			logged:   "stortest: mix: steady state not judged" + cut},
		{name: "verify pass not reached", modify: withVerify(0, 0),
			check:   func(r *Result, tb testing.TB) bool { return r.CheckVerify(tb) },
			require: func(r *Result, tb testing.TB) { r.RequireVerify(tb) },
			logged:  "stortest: mix: verify not judged" + cut},
		{name: "verify pass cut short", modify: withVerify(100, 0),
			check:   func(r *Result, tb testing.TB) bool { return r.CheckVerify(tb) },
			require: func(r *Result, tb testing.TB) { r.RequireVerify(tb) },
			logged:  "stortest: mix: verify not judged" + cut},
		{name: "verify off is still a mistake",
			check:    func(r *Result, tb testing.TB) bool { return r.CheckVerify(tb) },
			require:  func(r *Result, tb testing.TB) { r.RequireVerify(tb) },
			failures: []string{"mix: verify is off: set Job.Verify to check the data"},
			logged:   "stortest: mix: verify not judged" + cut},
		{name: "blocks read back wrong are judged", modify: withVerify(100, 2),
			check:    func(r *Result, tb testing.TB) bool { return r.CheckVerify(tb) },
			require:  func(r *Result, tb testing.TB) { r.RequireVerify(tb) },
			failures: []string{"mix: verify: 2 of 100 blocks read back do not match what was written"}},
		{name: "failed I/Os are judged", modify: withErrors,
			check:    func(r *Result, tb testing.TB) bool { return r.CheckNoErrors(tb) },
			require:  func(r *Result, tb testing.TB) { r.RequireNoErrors(tb) },
			failures: []string{"mix: 1 failed I/Os (EIO x1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkCut(t, tc.modify, tc.check)
			assert.False(t, o.ok, "returned")
			assert.False(t, o.stopped, "Check* stopped the test")
			if diff := cmp.Diff(tc.failures, o.errors); diff != "" {
				t.Errorf("t.Errorf (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.failures, o.recorded); diff != "" {
				t.Errorf("JUnit failures (-want +got):\n%s", diff)
			}
			var want []string
			if tc.logged != "" {
				want = []string{tc.logged}
			}
			if diff := cmp.Diff(want, o.logs); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}

			o = checkCut(t, tc.modify, func(r *Result, tb testing.TB) bool { tc.require(r, tb); return true })
			assert.True(t, o.stopped, "Require* went on")
			if diff := cmp.Diff(tc.failures, o.recorded); diff != "" {
				t.Errorf("Require*: JUnit failures (-want +got):\n%s", diff)
			}
		})
	}
}

// The same checks judge the same run when it was not cut short: the
// tests above are not vacuous.
func TestChecksOnRunCutShortWouldFail(t *testing.T) {
	o := checkOn(t, nil, func(r *Result, tb testing.TB) bool { return r.CheckPercentile(tb, Clat, 99.9, time.Nanosecond) })
	assert.NotEmpty(t, o.recorded, "a percentile over its limit")
	o = checkOn(t, nil, func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1e9) })
	assert.NotEmpty(t, o.recorded, "iops under the floor")
}

// The log names what cut the run short: a signal or the test binary's
// timeout, and the job's planned time when it has one.
func TestCutShortString(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    cutShort
		want string
	}{
		{"signal", cutShort{cause: interruptError{syscall.SIGTERM}, elapsed: 1234567 * time.Microsecond, planned: 30 * time.Second},
			"cut short by SIGTERM after 1.235s of 30s"},
		{"timeout", cutShort{cause: timeoutError{5 * time.Second}, elapsed: 4 * time.Second, planned: time.Minute},
			"cut short by the test binary's -timeout (5s) after 4s of 1m0s"},
		{"no runtime", cutShort{cause: interruptError{syscall.SIGINT}, elapsed: 2 * time.Second},
			"cut short by SIGINT after 2s"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.c.String()) })
	}
}

func TestPlannedTime(t *testing.T) {
	job := workload.Job{RampTime: 5 * time.Second, Runtime: time.Minute}
	t.Setenv(EnvUpdate, "")
	for _, tc := range []struct {
		name   string
		job    workload.Job
		cfg    runConfig
		update bool
		want   time.Duration
	}{
		{name: "ramp and runtime", job: job, want: 65 * time.Second},
		{name: "size only", job: workload.Job{Size: 1 << 20}, want: 0},
		{name: "extended", job: job, cfg: runConfig{extend: &extendConfig{limit: 2 * time.Minute}}, want: 125 * time.Second},
		{name: "extension shorter than the job", job: job, cfg: runConfig{extend: &extendConfig{limit: time.Second}}, want: 65 * time.Second},
		{name: "repeats while recording", job: job, cfg: runConfig{repeats: 3}, update: true, want: 195 * time.Second},
		{name: "repeats do nothing otherwise", job: job, cfg: runConfig{repeats: 3}, want: 65 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.update {
				t.Setenv(EnvUpdate, "1")
			}
			assert.Equal(t, tc.want, plannedTime(tc.job, &tc.cfg))
		})
	}
}

// A run cut short is neither compared with its baseline (no verdict in
// the report or Main's summary, even in strict mode) nor recorded as
// one; bad options still fail.
func TestCheckBaselineOnRunCutShort(t *testing.T) {
	settingsOff(t)
	dir := syntheticBaseline(t)
	r := syntheticResult()
	cutBySIGINT(r)
	f := newFake(t)
	var ok bool
	f.run(func(tb testing.TB) { ok = CheckBaseline(tb, r, BaselineDir(dir), Strict()) })
	assert.False(t, ok)
	assert.Empty(t, f.errors)
	assert.Equal(t, []string{"stortest: mix: baseline not compared: run cut short by SIGINT after 3.2s of 1m0s"}, f.logs)
	assert.Empty(t, r.rec.run.Failures)
	assert.Empty(t, r.rec.run.Baselines, "a verdict in the report")
	for _, c := range notedComparisons() {
		assert.NotEqual(t, t.Name(), c.test, "a verdict in Main's summary")
	}

	f = newFake(t)
	returned := false
	f.run(func(tb testing.TB) {
		RequireBaseline(tb, r, BaselineDir(dir))
		returned = true
	})
	assert.False(t, returned, "RequireBaseline went on")
	assert.Empty(t, f.errors)

	_, errs, _ := checkBaselineFake(t, r, BaselineDir(dir), Tolerances("*.iops=nonsense"))
	assert.True(t, anyContains(errs, "mix: baseline options"), "%q", errs)

	t.Setenv(EnvUpdate, "1")
	empty := t.TempDir()
	ok, errs, logs := checkBaselineFake(t, r, BaselineDir(empty))
	assert.False(t, ok)
	assert.Empty(t, errs)
	assert.Equal(t, []string{"stortest: mix: baseline not recorded: run cut short by SIGINT after 3.2s of 1m0s"}, logs)
	_, err := os.Stat(baselines.Path(empty, t.Name(), "mix"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a baseline recorded from a run cut short")
}
