package stortest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/steady"
	"stortest.dev/workload"
)

func TestCheckSteady(t *testing.T) {
	crit := steady.MustParseSet("iops_slope:0.3%")
	for _, tc := range []struct {
		name   string
		modify func(*Result)
		want   []string
	}{
		{"detection off", nil, []string{"mix: steady-state detection is off: set Job.SS and Job.SSDur (fio's steadystate and ss_dur)"}},
		{"attained", func(r *Result) {
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second, Attained: true, AttainedAt: 41 * time.Second, Steady: true}
		}, nil},
		{"lost and regained", func(r *Result) {
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second, Attained: true, AttainedAt: 41 * time.Second,
				Steady: true, Losses: []steady.Loss{{Start: 50, End: 53, StartElapsed: 50 * time.Second, EndElapsed: 53 * time.Second}}}
		}, nil},
		{"lost and not regained", func(r *Result) {
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second, Attained: true, AttainedAt: 41 * time.Second,
				Losses: []steady.Loss{
					{Start: 45, End: 47, StartElapsed: 45 * time.Second, EndElapsed: 47 * time.Second},
					{Start: 52, End: -1, StartElapsed: 52 * time.Second},
				},
				Last: "sample 59 at 1m0s: not steady: iops_slope 0.52% >= 0.3%"}
		}, []string{"mix: steady state (iops_slope:0.3% over 30s) attained at 41s, lost at 52s and not regained by the end (2s): " +
			"sample 59 at 1m0s: not steady: iops_slope 0.52% >= 0.3%"}},
		{"lost, told by its event", func(r *Result) {
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second, Attained: true, AttainedAt: 41 * time.Second,
				Events: []workload.SteadyEvent{{Event: steady.Attained, T: 41 * time.Second}, {Event: steady.Lost, T: 55 * time.Second}},
				Last:   "x"}
		}, []string{"mix: steady state (iops_slope:0.3% over 30s) attained at 41s, lost at 55s and not regained by the end (2s): x"}},
		{"not attained", func(r *Result) {
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second,
				Last: "sample 59 at 1m0s: not steady: iops_slope 0.52% >= 0.3%"}
		}, []string{"mix: steady state (iops_slope:0.3% over 30s) not attained in 2s: sample 59 at 1m0s: not steady: iops_slope 0.52% >= 0.3%"}},
		{"clones are judged each", func(r *Result) {
			r.Job.NumJobs = 2
			clone := *r.Jobs[0]
			clone.Clone = 1
			clone.Steady = &workload.SteadyResult{Criteria: crit, Window: 30 * time.Second, Capped: true, Last: "x"}
			r.Jobs[0].Steady = &workload.SteadyResult{Criteria: crit, Attained: true, Steady: true}
			r.Jobs = append(r.Jobs, &clone)
		}, []string{"mix.1: steady state (iops_slope:0.3% over 30s) not attained in 2s: the PTS round cap was reached; x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool { return r.CheckSteady(tb) })
			if diff := cmp.Diff(tc.want, o.recorded); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if o.ok != (tc.want == nil) || o.stopped {
				t.Errorf("returned %v, stopped %v", o.ok, o.stopped)
			}
			o = checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool { r.RequireSteady(tb); return true })
			if o.stopped != (tc.want != nil) {
				t.Errorf("Require stopped %v", o.stopped)
			}
		})
	}
}
