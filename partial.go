package stortest

import (
	"fmt"
	"testing"
	"time"

	"stortest.dev/report"
	"stortest.dev/workload"
)

// A run that Main's interrupt (SIGINT, SIGTERM, or the test binary's
// -timeout about to expire) cut short has failed already: Run recorded
// the cancellation as an error of its testcase and of its test. Its
// figures are those of a few seconds, possibly of the ramp alone: a
// floor, a tail percentile, steady state or a baseline judged on them
// would report a regression of the device that is in fact one of the
// run's length. So the checks of measurements do not judge such a run:
// they log why ("randread: clat p99.9 not judged: run cut short by
// SIGINT after 3.2s of 1m0s"), record no failure, return false and, as
// Require*, stop the test. What a short run proves all the same is still
// reported: a failed I/O (CheckNoErrors), a block read back wrong
// (CheckVerify), and a mistake of the test itself (failures of type
// "usage", such as a percentile out of range).

// cutShort is how Main's interrupt cut a run short.
type cutShort struct {
	cause   interruptCause
	elapsed time.Duration // the run's wall time, up to the interrupt
	// planned is the wall time the run was to take at most: ramp and
	// runtime, times the repeats; 0 when only the job's size ends it.
	planned time.Duration
}

// String says how the run was cut short: "cut short by SIGINT after
// 3.2s of 1m0s".
func (c *cutShort) String() string {
	s := fmt.Sprintf("cut short by %s after %v", c.cause.by(), c.elapsed.Round(time.Millisecond))
	if c.planned > 0 {
		s += fmt.Sprintf(" of %v", c.planned)
	}
	return s
}

// plannedTime is the longest the job was to run under cfg, for
// cutShort: ramp plus runtime (ExtendWhileInconclusive's limit when
// longer), times the runs of Repeats (or the most of
// RepeatWhileInconclusive); 0 when the job has no runtime.
func plannedTime(job workload.Job, cfg *runConfig) time.Duration {
	if job.Runtime <= 0 {
		return 0
	}
	measured := job.Runtime
	if cfg.extend != nil && cfg.extend.limit > measured {
		measured = cfg.extend.limit
	}
	runs := 1
	if cfg.repeats > 1 && Update() {
		runs = cfg.repeats
	}
	if rc, err := repeatFor(cfg); err == nil && rc != nil && !Update() {
		runs = max(runs, rc.max)
	}
	return time.Duration(runs) * (job.RampTime + measured)
}

// anyCanceled reports whether a job of any of the results stopped early
// on its context.
func anyCanceled(results ...*workload.Result) bool {
	for _, res := range results {
		for _, j := range res.Jobs {
			if j.Canceled {
				return true
			}
		}
	}
	return false
}

// measured is emit for a check that judges the run's measurements: on
// a run cut short it calls notJudged instead. limit is the check's limit
// for the run's page ("≤ 2ms"); either way the check is noted there.
func (r *Result) measured(t testing.TB, stop bool, check, limit string, findings []report.Failure) bool {
	t.Helper()
	r.noteCheck(check, limit, findings, r.cut == nil)
	if r.cut == nil {
		return r.emit(t, stop, findings)
	}
	return r.notJudged(t, stop, check, findings)
}

// notJudged is what a check does on a run cut short instead of judging
// it: it reports the findings of type "usage" alone, logs that check was
// not judged, and returns false, after stopping the test (FailNow) when
// stop is set.
func (r *Result) notJudged(t testing.TB, stop bool, check string, findings []report.Failure) bool {
	t.Helper()
	var usage []report.Failure
	for _, f := range findings {
		if f.Type == "usage" {
			usage = append(usage, f)
		}
	}
	r.emit(t, false, usage)
	r.logCut(t, check+" not judged")
	if stop {
		t.FailNow()
	}
	return false
}

// logCut logs what a check did not do on a run cut short, and why:
// "randread: clat p99.9 not judged: run cut short by SIGINT after 3.2s
// of 1m0s".
func (r *Result) logCut(t testing.TB, what string) {
	t.Helper()
	t.Logf("stortest: %s: %s: run %s", r.Name(), what, r.cut)
}
