package stortest

import (
	"cmp"
	"os"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/workload"
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
		path := baselines.Path(cmp.Or(BaselinesSetting(), baselines.DefaultDir), testName, job.Name)
		if _, err := os.Stat(path); err != nil {
			return 0 // nothing to compare with: fio's behaviour
		}
	}
	return max(job.SSDur, DefaultSteadyMeasure)
}
