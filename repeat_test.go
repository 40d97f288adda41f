package stortest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/regress"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// fakeLoop is a repeatLoop whose looks give steps in turn (the last one
// again once they run out) and whose runs each take 10 s of a fake
// clock.
func fakeLoop(max int, budget time.Duration, steps ...lookStep) (*repeatLoop, *[]string, *[]int) {
	var logs []string
	var looks []int
	now := time.Unix(1e9, 0)
	l := &repeatLoop{job: "mix", max: max, budget: budget,
		look: func(runs []*workload.Result) (lookStep, error) {
			looks = append(looks, len(runs))
			return steps[min(len(looks), len(steps))-1], nil
		},
		run: func() (*workload.Result, error) {
			now = now.Add(10 * time.Second)
			return &workload.Result{Jobs: []*workload.JobResult{{Name: "mix", Runtime: 10 * time.Second}}}, nil
		},
		now:  func() time.Time { return now },
		logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
		done: func() bool { return false },
	}
	return l, &logs, &looks
}

func firstRun() *workload.Result {
	return &workload.Result{Jobs: []*workload.JobResult{{Name: "mix", Runtime: 10 * time.Second}}}
}

var (
	stepUnsure  = lookStep{rep: regress.Report{Name: "mix", Verdict: regress.Inconclusive}, again: true}
	stepStuck   = lookStep{rep: regress.Report{Name: "mix", Verdict: regress.Inconclusive}, again: false}
	stepPass    = lookStep{rep: regress.Report{Name: "mix", Verdict: regress.Pass}}
	stepRegress = lookStep{rep: regress.Report{Name: "mix", Verdict: regress.Regression}}
)

// The repeat runs the job again while the comparison is inconclusive
// and another run could settle it, and stops when it is decided, when
// another run would not settle it, at the most runs allowed, at the
// budget or when a run fails; the log says how many runs it took.
func TestRepeatLoop(t *testing.T) {
	t.Run("decided", func(t *testing.T) {
		l, logs, looks := fakeLoop(5, 0, stepUnsure, stepUnsure, stepRegress)
		p := l.loop(firstRun())
		assert.Len(t, p.again, 2)
		assert.Equal(t, 3, p.runs())
		assert.Equal(t, 5, p.looks)
		assert.Equal(t, []int{1, 2, 3}, *looks, "each look judges the runs so far")
		assert.Equal(t, "decided after 3 runs: mix: regression", p.note)
		assert.Equal(t, []string{
			"stortest: mix: inconclusive after 1 run, and another run could settle it: run 2 of at most 5",
			"stortest: mix: inconclusive after 2 runs, and another run could settle it: run 3 of at most 5",
			"stortest: mix: decided after 3 runs: mix: regression",
		}, *logs)
	})
	t.Run("decided-at-once", func(t *testing.T) {
		l, logs, _ := fakeLoop(5, 0, stepPass)
		p := l.loop(firstRun())
		assert.Empty(t, p.again)
		assert.Equal(t, []string{"stortest: mix: decided after 1 run: mix: pass"}, *logs)
	})
	t.Run("most-runs", func(t *testing.T) {
		l, logs, _ := fakeLoop(4, 0, stepUnsure)
		p := l.loop(firstRun())
		assert.Len(t, p.again, 3)
		assert.Equal(t, "still inconclusive after 4 runs (the most runs allowed (4)): mix: inconclusive", p.note)
		assert.Equal(t, "stortest: mix: "+p.note, (*logs)[len(*logs)-1])
	})
	t.Run("budget", func(t *testing.T) {
		// Runs of 10 s: the first and one more fit in 25 s, a third not.
		l, _, _ := fakeLoop(10, 25*time.Second, stepUnsure)
		p := l.loop(firstRun())
		assert.Len(t, p.again, 1)
		assert.Equal(t, "still inconclusive after 2 runs (another run would pass the budget of 25s): mix: inconclusive", p.note)
	})
	t.Run("would-not-settle", func(t *testing.T) {
		l, _, _ := fakeLoop(10, 0, stepUnsure, stepStuck)
		p := l.loop(firstRun())
		assert.Len(t, p.again, 1)
		assert.Equal(t, "still inconclusive after 2 runs (another run of this session would not settle it): mix: inconclusive", p.note)
	})
	t.Run("run-fails", func(t *testing.T) {
		l, _, _ := fakeLoop(10, 0, stepUnsure)
		l.run = func() (*workload.Result, error) { return nil, errors.New("device gone") }
		p := l.loop(firstRun())
		assert.Empty(t, p.again)
		assert.Equal(t, "still inconclusive after 1 run: run 2 failed: device gone", p.note)
	})
}

// -stortest.repeat (STORTEST_REPEAT) repeats the comparisons of the tests
// that do not give RepeatWhileInconclusive; the option wins.
func TestRepeatSetting(t *testing.T) {
	for v, want := range map[string]string{"": "0", "3": "3", "x": `STORTEST_REPEAT="x": want a number of runs`, "-2": "STORTEST_REPEAT=-2: want a number of runs"} {
		t.Setenv(EnvRepeat, v)
		n, err := RepeatSetting()
		got := fmt.Sprint(n)
		if err != nil {
			got = err.Error()
		}
		assert.Equal(t, want, got, "STORTEST_REPEAT=%q", v)
	}
	t.Setenv(EnvRepeat, "1")
	rc, err := repeatFor(&runConfig{})
	require.NoError(t, err)
	assert.Nil(t, rc, "one run is no repeat")
	t.Setenv(EnvRepeat, "4")
	rc, err = repeatFor(&runConfig{})
	require.NoError(t, err)
	assert.Equal(t, &repeatConfig{max: 4}, rc)
	// Its budget: -stortest.repeat.budget (STORTEST_REPEAT_BUDGET).
	t.Setenv(EnvRepeatBudget, "90s")
	rc, err = repeatFor(&runConfig{})
	require.NoError(t, err)
	assert.Equal(t, &repeatConfig{max: 4, budget: 90 * time.Second}, rc)
	for v, want := range map[string]string{"": "0s", "2m": "2m0s", "x": `STORTEST_REPEAT_BUDGET="x": want a duration such as 2m`,
		"-1s": "STORTEST_REPEAT_BUDGET=-1s: want a duration of 0 or more"} {
		t.Setenv(EnvRepeatBudget, v)
		d, err := RepeatBudgetSetting()
		got := d.String()
		if err != nil {
			got = err.Error()
		}
		assert.Equal(t, want, got, "STORTEST_REPEAT_BUDGET=%q", v)
	}
	t.Setenv(EnvRepeatBudget, "x")
	_, err = repeatFor(&runConfig{})
	assert.ErrorContains(t, err, "STORTEST_REPEAT_BUDGET")
	t.Setenv(EnvRepeatBudget, "")
	var c runConfig
	RepeatWhileInconclusive(2, time.Minute)(&c)
	rc, err = repeatFor(&c)
	require.NoError(t, err)
	assert.Equal(t, 2, rc.max)
	assert.Equal(t, time.Minute, rc.budget)
	RepeatWhileInconclusive(0, time.Minute)(&c)
	_, err = repeatFor(&c)
	assert.ErrorContains(t, err, "RepeatWhileInconclusive(0, ...): at least 1 run")
}

// logsWith returns the logs that contain sub.
func logsWith(logs []string, sub string) []string {
	var out []string
	for _, l := range logs {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// propValue returns the value of the property named name, or "".
func propValue(props []report.Property, name string) string {
	for _, p := range props {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// A real repeat: Run compares each run with the stored baseline and
// runs the job again while another run could settle it, up to the most
// allowed; the log, the JUnit property and the comparison's text
// artifact say how many runs it took, and CheckBaseline judges them all.
// A halving of the rate is decided by the first run.
func TestRepeatWhileInconclusiveRuns(t *testing.T) {
	settingsOff(t)
	dev := File(t, 16<<20)
	dir := t.TempDir()
	job := ratedRead(2 * time.Second)
	t.Setenv(EnvUpdate, "1")
	base := Run(t, dev, job(1000))
	ok, errs, _ := checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.True(t, ok, "%q", errs)
	t.Setenv(EnvUpdate, "")
	defer forgetComparisons(t.Name())

	for _, tc := range []struct {
		name string
		iops int
	}{{"unchanged", 1000}, {"halved", 500}} {
		f := newFake(t)
		var res *Result
		f.run(func(tb testing.TB) {
			res = Run(tb, dev, job(tc.iops), RepeatWhileInconclusive(3, time.Minute, BaselineDir(dir), shortRuns()), ProgressEvery(0))
			CheckBaseline(tb, res, BaselineDir(dir), shortRuns())
		})
		require.NotNil(t, res, tc.name)
		require.NotNil(t, res.again, tc.name)
		n := res.again.runs()
		require.GreaterOrEqual(t, n, 1, tc.name)
		require.LessOrEqual(t, n, 3, "%s: at most 3 runs", tc.name)
		ends := append(logsWith(f.logs, ": decided after "), logsWith(f.logs, ": still inconclusive after ")...)
		require.Len(t, ends, 1, "%s: one line says how it ended: %q", tc.name, f.logs)
		assert.Contains(t, ends[0], fmt.Sprintf(" after %s", plural(n, "run")), tc.name)
		t.Logf("%s: %s", tc.name, ends[0])
		assert.Len(t, logsWith(f.logs, "another run could settle it: run "), n-1, tc.name)
		assert.Equal(t, fmt.Sprint(n), propValue(res.rec.run.Fingerprint, RunsProperty), "%s: the JUnit property", tc.name)
		diff, err := os.ReadFile(res.Artifacts[len(res.Artifacts)-1])
		if !strings.HasSuffix(res.Artifacts[len(res.Artifacts)-1], ".baseline-diff.txt") {
			diff, err = os.ReadFile(res.Artifacts[len(res.Artifacts)-2])
		}
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(diff), "rated-read: "+strings.TrimPrefix(ends[0], "stortest: rated-read: ")+"\n"),
			"%s: the diff artifact starts with how it ended: %q", tc.name, diff)
		if tc.iops == 500 {
			assert.Equal(t, 1, n, "a halving is decided at once")
			assert.Contains(t, ends[0], "decided after 1 run: rated-read: regression")
			assert.True(t, f.Failed())
		}
		f.finish()
	}
}

// A finding not compared (a metric that varies more from session to
// session than its tolerance holds) is logged with its reason, and fails
// nothing, strict or not.
func TestJudgeLogsNotCompared(t *testing.T) {
	r := syntheticResult()
	reason := "read clat p50 200µs vs baseline (5 sessions) 168µs (+18.7%): not compared: clat p50 varies 15.4% from session to session"
	rep := regress.Report{Name: "mix", Verdict: regress.Pass, Findings: []regress.Finding{
		{Metric: "read.iops", Verdict: regress.Pass, Reason: "read iops ...: pass"},
		{Metric: "read.clat.p50", Verdict: regress.NotCompared, Reason: reason},
	}}
	f := newFake(t)
	var ok bool
	f.run(func(tb testing.TB) { ok = r.judge(tb, rep, true) })
	defer forgetComparisons(t.Name())
	assert.True(t, ok)
	assert.Empty(t, f.errors)
	assert.Contains(t, f.logs, "stortest: mix: "+reason)
}
