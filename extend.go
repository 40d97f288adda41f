package stortest

import (
	"cmp"
	"context"
	"math"
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// ExtendWhileInconclusive lets Run measure longer while the comparison
// with the test's stored baseline is inconclusive and more seconds would
// decide it. When the job ends, Run compares its result with the
// baseline (as CheckBaseline will, with opts); while the verdict is
// inconclusive and its findings say how many more seconds (or I/Os, or
// slices) each run needs, Run runs the job on for that long, as a
// continuation with no ramp and no steady-state stop, and folds it into
// the result, until the verdict is decided or the measured time reaches
// limit. A finding that needs more baseline runs, not more seconds,
// ends the extension. Nothing is extended while recording
// (-stortest.update) or without a baseline.
//
// A longer run narrows only the noise within the run (its seconds,
// slices, I/Os): it cannot shrink the spread from run to run (a device
// that reads 3% faster one run than the next, however long each is),
// which the baseline's runs measure and which often decides the
// interval. Only more runs do that: RepeatWhileInconclusive runs the job
// again, and a baseline grown over sessions (-stortest.update=append)
// learns how far runs of the device spread.
//
// The continuation is a second run of the job right after the first:
// its seconds follow the first's on one time line, its I/Os start over
// where the job's own offsets start (a sequential job begins again at
// its start), and a verify pass is not repeated.
func ExtendWhileInconclusive(limit time.Duration, opts ...BaselineOption) Option {
	return func(c *runConfig) { c.extend = &extendConfig{limit: limit, opts: opts} }
}

type extendConfig struct {
	limit time.Duration
	opts  []BaselineOption
}

// extendRun extends wres as ExtendWhileInconclusive says, and returns
// it.
func extendRun(ctx context.Context, t testing.TB, job workload.Job, wopts workload.Options, wres *workload.Result, e *extendConfig) *workload.Result {
	t.Helper()
	if Update() || len(wres.Jobs) == 0 {
		return wres
	}
	old, cfg, ok := loadComparison(t, job, e.opts)
	if !ok {
		return wres // CheckBaseline will say why
	}
	for ctx.Err() == nil {
		cur, err := baselines.FromResult(wres, baselines.Fingerprint{})
		if err != nil {
			return wres
		}
		rep := regress.Compare(old, cur, cfg)
		measured := wres.Jobs[0].Runtime
		need := moreSeconds(rep, cur)
		if rep.Verdict != regress.Inconclusive || need <= 0 || measured >= e.limit {
			if rep.Verdict == regress.Inconclusive && measured < e.limit && need <= 0 {
				t.Logf("stortest: %s: inconclusive after %v, and more seconds would not decide it", job.Name, measured.Round(time.Millisecond))
			}
			return wres
		}
		// Whole milliseconds: job runtimes are whole microseconds, as fio's.
		more := min(need, e.limit-measured).Truncate(time.Millisecond)
		if more <= 0 {
			return wres
		}
		t.Logf("stortest: %s: inconclusive after %v; measuring %v more (up to %v)",
			job.Name, measured.Round(time.Millisecond), more.Round(time.Millisecond), e.limit)
		cont := job
		cont.Runtime, cont.TimeBased, cont.RampTime = more, true, 0
		cont.SS, cont.SSDur, cont.SSRamp = "", 0, 0
		cont.Verify = workload.VerifyNone
		copts := wopts
		copts.HistLogPrefix, copts.SteadyMeasure = "", 0
		next, err := runner.Run(ctx, cont.Normalized(), copts)
		if err != nil {
			t.Logf("stortest: %s: extending the run: %v", job.Name, err)
			return wres
		}
		for i, j := range wres.Jobs {
			if i < len(next.Jobs) {
				if err := j.Append(next.Jobs[i]); err != nil {
					t.Logf("stortest: %s: extending the run: %v", job.Name, err)
					return wres
				}
			}
		}
	}
	return wres
}

// moreSeconds is how much longer the current run should measure, by the
// inconclusive findings of rep that more of this run would settle (those
// where the run, not the baseline, has the fewer samples): the
// largest of their needs, in seconds (I/Os converted at the run's rate),
// at least a second; 0 when none says.
func moreSeconds(rep regress.Report, cur *baselines.Baseline) time.Duration {
	var need float64
	for _, f := range rep.Inconclusive() {
		// Only where this run is the side short of samples: more of it
		// cannot make up for a short baseline.
		if f.More == 0 || f.Samples.Current > f.Samples.Base {
			continue
		}
		switch f.Samples.Kind {
		case "seconds":
			need = math.Max(need, float64(f.More))
		case "slices":
			need = math.Max(need, float64(f.More)*cur.SliceInterval.Seconds())
		case "I/Os":
			if d := cur.Dir(regress.MetricDir(f.Metric)); d != nil && d.IOPS > 0 {
				need = math.Max(need, float64(f.More)/d.IOPS)
			}
		}
	}
	if need <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(math.Max(1, need))) * time.Second
}

// loadComparison loads the test's baseline of job and the configuration
// CheckBaseline with opts would compare a run with it; ok is false when
// it cannot (no baseline, bad options or tolerances: CheckBaseline says
// why).
func loadComparison(t testing.TB, job workload.Job, opts []BaselineOption) (old *baselines.Baseline, cfg regress.Config, ok bool) {
	c := baselineConfig{dir: cmp.Or(BaselinesSetting(), baselines.DefaultDir), cfg: regress.DefaultConfig()}
	for _, o := range opts {
		o(&c)
	}
	old, err := baselines.Load(baselines.Path(c.dir, t.Name(), job.Name))
	if err != nil || c.err != nil {
		return nil, cfg, false
	}
	flagRules, err := regress.ParseRules(ToleranceSetting())
	if err != nil {
		return nil, cfg, false
	}
	cfg, err = c.compareConfig(old, flagRules)
	if err != nil {
		return nil, cfg, false
	}
	return old, cfg, true
}
