package stortest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"stortest.dev/report"
	"stortest.dev/steady"
	"stortest.dev/workload"
)

// CheckSteady checks that every clone of the job attained steady state
// by the job's criteria (Job.SS over windows of Job.SSDur, as fio's
// steadystate options) and was still in it at the end: a clone that
// lost steady state (measuring on after attainment, see
// MeasureAfterSteady) and never regained it fails, saying when it was
// lost. A job without steady-state options fails the check: there is
// nothing to attain. It reports with t.Errorf and continues.
//
// On a run cut short by Main's interrupt it does not judge steady state,
// attained or not: a window cut off is no verdict on the device. It logs
// so and returns false; a job without steady-state options still fails.
func (r *Result) CheckSteady(t testing.TB) bool {
	t.Helper()
	return r.measured(t, false, "steady state", r.Job.SS, r.steadyFindings())
}

// RequireSteady is CheckSteady that stops the test (FailNow): the
// measurements of a job that never settled say little, so further checks
// are usually pointless. It stops the test too when a run cut short
// leaves it unjudged.
func (r *Result) RequireSteady(t testing.TB) {
	t.Helper()
	r.measured(t, true, "steady state", r.Job.SS, r.steadyFindings())
}

func (r *Result) steadyFindings() []report.Failure {
	var out []report.Failure
	for _, j := range r.Jobs {
		name := r.Name()
		if r.Job.NumJobs > 1 {
			name = fmt.Sprintf("%s.%d", name, j.Clone)
		}
		s := j.Steady
		if s == nil {
			out = append(out, report.Failure{
				Message: name + ": steady-state detection is off: set Job.SS and Job.SSDur (fio's steadystate and ss_dur)",
				Type:    "usage"})
			continue
		}
		var detail []string
		for _, e := range s.Events {
			detail = append(detail, fmt.Sprintf("%v: %s: %s", e.T, e.Event, e.Reason))
		}
		switch {
		case s.Attained && !s.Steady:
			// The figures after the loss are not steady-state figures.
			out = append(out, report.Failure{
				Message: fmt.Sprintf("%s: steady state (%s over %v) attained at %v, lost at %v and not regained by the end (%v): %s",
					name, s.Criteria, s.Window, s.AttainedAt, lostAt(s), j.Runtime.Round(1e6), s.Last),
				Type:   "steady",
				Detail: strings.Join(detail, "\n"),
			})
		case !s.Attained:
			why := s.Last
			if s.Capped {
				why = "the PTS round cap was reached; " + why
			}
			out = append(out, report.Failure{
				Message: fmt.Sprintf("%s: steady state (%s over %v) not attained in %v: %s",
					name, s.Criteria, s.Window, j.Runtime.Round(1e6), why),
				Type:   "steady",
				Detail: strings.Join(detail, "\n"),
			})
		}
	}
	return out
}

// lostAt is when steady state was last lost: the start of the loss not
// regained, else of the last loss event.
func lostAt(s *workload.SteadyResult) time.Duration {
	for i := len(s.Losses) - 1; i >= 0; i-- {
		if s.Losses[i].End < 0 {
			return s.Losses[i].StartElapsed
		}
	}
	for i := len(s.Events) - 1; i >= 0; i-- {
		if s.Events[i].Event == steady.Lost {
			return s.Events[i].T
		}
	}
	return s.AttainedAt
}
