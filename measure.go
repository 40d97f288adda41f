package stortest

import (
	"context"
	"os"
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// DefaultSteadyMeasure is how long Run keeps measuring after steady
// state, by default, when the run will be compared with a baseline or
// recorded as one: ten seconds give a comparison ten per-second samples.
const DefaultSteadyMeasure = 10 * time.Second

// MeasureAfterSteady keeps a job with steady-state options (Job.SS)
// running for d after steady state is first attained, then stops it; the
// job's Runtime still caps the run. fio stops at attainment, with only
// the window that proved steady state measured; a comparison with a
// baseline wants more. 0 stops at attainment, as fio does.
//
// By default Run measures max(Job.SSDur, DefaultSteadyMeasure) after
// attainment when the run will meet a baseline (one is stored for the
// test and job, or -stortest.update is set), and stops at attainment
// otherwise.
func MeasureAfterSteady(d time.Duration) Option {
	return func(c *runConfig) { c.steadyMeasure = &d }
}

// steadyMeasure is how long after steady state the job runs: the
// MeasureAfterSteady option, else the default above.
func steadyMeasure(c *runConfig, testName string, job workload.Job) time.Duration {
	if c.steadyMeasure != nil {
		return max(0, *c.steadyMeasure)
	}
	if job.SS == "" {
		return 0
	}
	if !Update() {
		path := baselines.Path(c.baselineDir(), testName, job.Name)
		if _, err := os.Stat(path); err != nil {
			return 0 // nothing to compare with: fio's behaviour
		}
	}
	return max(job.SSDur, DefaultSteadyMeasure)
}

// Repeats makes Run, while recording baselines (-stortest.update), run
// the job n times in all, so that CheckBaseline records a baseline of n
// runs: the verdicts of later comparisons then account for the spread
// between runs, which one run cannot show. The Result is the first run's;
// the others only go into the baseline. Outside recording it does
// nothing. go test -count=n -stortest.update does the same for a whole
// test.
func Repeats(n int) Option { return func(c *runConfig) { c.repeats = n } }

// repeatRuns runs the job n-1 more times for Repeats and returns the
// results; a run that fails ends the repeats, logged.
func repeatRuns(ctx context.Context, t testing.TB, job workload.Job, wopts workload.Options, n int) []*workload.Result {
	t.Helper()
	wopts.HistLogPrefix = "" // the first run's logs are the artifacts
	var out []*workload.Result
	for i := 2; i <= n && ctx.Err() == nil; i++ {
		t.Logf("stortest: %s: recording run %d of %d", job.Name, i, n)
		res, err := runner.Run(ctx, job, wopts)
		if err != nil {
			t.Logf("stortest: %s: run %d of %d: %v", job.Name, i, n, err)
			break
		}
		out = append(out, res)
	}
	return out
}
