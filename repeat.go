package stortest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// RepeatWhileInconclusive lets Run run the job again while the comparison
// with the test's stored baseline is inconclusive and another run could
// settle it, up to max runs in all or until another run would pass
// budget (the wall time of all the runs; 0: no budget). After each run,
// Run compares the mean of the runs so far, as one session
// (baselines.Baseline.AddRun), with the baseline, as CheckBaseline will
// with opts; while regress says another run of this session could
// settle an inconclusive finding (regress.Report.RunAgain), it runs the
// job again. Each look is a look of a sequential test
// (regress.Config.Look and Looks): the false-alarm rate over all the
// looks stays at the level one comparison states, however many it takes.
//
// The log says how many runs it took ("randread-4k: decided after 3
// runs: randread-4k: regression (1 regression, 5 pass)"), and so do the
// property "baseline.runs" of the run's JUnit testcase and the
// comparison's text artifact. The Result is the first run's (its
// artifacts, metrics and history entry); CheckBaseline judges all the
// runs together, with the same looks. Nothing is repeated while recording
// (-stortest.update: see Repeats) or without a baseline.
//
// More runs narrow the part of the spread that lies within a session,
// not the part between sessions (the device's state from one day to the
// next): a baseline grown over sessions (-stortest.update=append) is what
// narrows that. -stortest.repeat=N (STORTEST_REPEAT) repeats so every
// comparison of a test that does not give this option, within the
// budget of -stortest.repeat.budget (STORTEST_REPEAT_BUDGET; none by
// default).
func RepeatWhileInconclusive(max int, budget time.Duration, opts ...BaselineOption) Option {
	return func(c *runConfig) { c.repeat = &repeatConfig{max: max, budget: budget, opts: opts} }
}

// RunsProperty names the property of a run's JUnit testcase that says
// how many runs RepeatWhileInconclusive (or -stortest.repeat) judged.
const RunsProperty = "baseline.runs"

type repeatConfig struct {
	max    int
	budget time.Duration
	opts   []BaselineOption
}

// repeatFor is the repeat Run makes: the option's, else the
// -stortest.repeat setting's (nil when neither asks for more than one
// run).
func repeatFor(c *runConfig) (*repeatConfig, error) {
	if c.repeat != nil {
		if c.repeat.max < 1 {
			return nil, fmt.Errorf("RepeatWhileInconclusive(%d, ...): at least 1 run", c.repeat.max)
		}
		return c.repeat, nil
	}
	n, err := RepeatSetting()
	if err != nil || n < 2 {
		return nil, err
	}
	budget, err := RepeatBudgetSetting()
	if err != nil {
		return nil, err
	}
	return &repeatConfig{max: n, budget: budget}, nil
}

// repeated is what the repeat did, for CheckBaseline and the report.
type repeated struct {
	// again are the runs after the first, judged with it.
	again []*workload.Result
	looks int    // the most runs the repeat could make (Config.Looks)
	note  string // "decided after 3 runs: ...", for the log, report and diff
}

// runs is how many runs the comparison judges.
func (p *repeated) runs() int { return 1 + len(p.again) }

// lookStep is one look of the repeat loop: the comparison of the runs
// so far, and whether another run could settle it.
type lookStep struct {
	rep   regress.Report
	again bool
}

// repeatLoop is the loop of RepeatWhileInconclusive, apart from what it
// runs and judges, so that its stops can be tested alone.
type repeatLoop struct {
	job    string
	max    int
	budget time.Duration
	// look compares the runs so far (len(runs) is the look, 1-based).
	look func(runs []*workload.Result) (lookStep, error)
	// run runs the job once more.
	run  func() (*workload.Result, error)
	now  func() time.Time
	logf func(format string, args ...any)
	done func() bool // the context ended
}

// loop runs first's job again while the comparison says another run
// could settle it, and returns the runs after the first and what it
// decided.
func (l *repeatLoop) loop(first *workload.Result) *repeated {
	p := &repeated{looks: l.max}
	runs := []*workload.Result{first}
	// The budget counts the first run too, which ended just now.
	start := l.now().Add(-firstRuntime(first))
	var last time.Duration // the last repeat's wall time
	for {
		step, err := l.look(runs)
		if err != nil {
			p.note = fmt.Sprintf("not repeated: %v", err)
			l.logf("stortest: %s: %s", l.job, p.note)
			return p
		}
		k := len(runs)
		decided := step.rep.Verdict != regress.Inconclusive
		var stop string
		switch {
		case decided:
			p.note = fmt.Sprintf("decided after %s: %s", plural(k, "run"), step.rep.Summary())
		case !step.again:
			stop = "another run of this session would not settle it"
		case k >= l.max:
			stop = fmt.Sprintf("the most runs allowed (%d)", l.max)
		case l.budget > 0 && l.now().Sub(start)+max(last, firstRuntime(first)) > l.budget:
			stop = fmt.Sprintf("another run would pass the budget of %v", l.budget)
		case l.done():
			stop = "the test's context ended"
		}
		if decided || stop != "" {
			if !decided {
				p.note = fmt.Sprintf("still inconclusive after %s (%s): %s", plural(k, "run"), stop, step.rep.Summary())
			}
			l.logf("stortest: %s: %s", l.job, p.note)
			return p
		}
		l.logf("stortest: %s: inconclusive after %s, and another run could settle it: run %d of at most %d",
			l.job, plural(k, "run"), k+1, l.max)
		t0 := l.now()
		next, err := l.run()
		if err != nil {
			p.note = fmt.Sprintf("still inconclusive after %s: run %d failed: %v", plural(k, "run"), k+1, err)
			l.logf("stortest: %s: %s", l.job, p.note)
			return p
		}
		last = l.now().Sub(t0)
		runs = append(runs, next)
		p.again = append(p.again, next)
	}
}

// firstRuntime is the measured time of a result's first job: what
// another run takes at least, before the first repeat has shown it.
func firstRuntime(res *workload.Result) time.Duration {
	if len(res.Jobs) == 0 {
		return 0
	}
	return res.Jobs[0].Runtime
}

// repeatRun runs the job again for RepeatWhileInconclusive (or
// -stortest.repeat) while the comparison with the test's baseline says
// another run could settle it, and returns what it did; nil when
// nothing is compared (recording, no baseline, bad options: CheckBaseline
// says why).
func repeatRun(ctx context.Context, t testing.TB, job workload.Job, wopts workload.Options, wres *workload.Result, fp baselines.Fingerprint, rc *repeatConfig) *repeated {
	t.Helper()
	if Update() || len(wres.Jobs) == 0 {
		return nil
	}
	old, cfg, ok := loadComparison(t, job, rc.opts)
	if !ok {
		return nil
	}
	wopts.HistLogPrefix = "" // the first run's logs are the artifacts
	session := thisSession()
	l := &repeatLoop{
		job: job.Name, max: rc.max, budget: rc.budget,
		look: func(runs []*workload.Result) (lookStep, error) {
			cur, err := sessionBaseline(runs, fp, session)
			if err != nil {
				return lookStep{}, err
			}
			lc := cfg
			setLook(&lc, len(runs), rc.max)
			rep := regress.Compare(old, cur, lc)
			return lookStep{rep: rep, again: runAgain(rep)}, nil
		},
		run:  func() (*workload.Result, error) { return runner.Run(ctx, job, wopts) },
		now:  time.Now,
		logf: t.Logf,
		done: func() bool { return ctx.Err() != nil },
	}
	return l.loop(wres)
}

// sessionBaseline is the baseline of runs made in one session: the first
// run's data, each run in Runs.
func sessionBaseline(runs []*workload.Result, fp baselines.Fingerprint, session string) (*baselines.Baseline, error) {
	var cur *baselines.Baseline
	for _, r := range runs {
		b, err := baselines.FromResult(r, fp)
		if err != nil {
			return nil, err
		}
		b.Session = session
		if cur == nil {
			cur = b
		} else if err := cur.AddRun(b); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// setLook makes cfg judge look of looks (regress.Config.Look, Looks):
// the sequential test of RepeatWhileInconclusive.
func setLook(cfg *regress.Config, look, looks int) { cfg.Look, cfg.Looks = look, looks }

// runAgain says whether another run of this session could settle what
// rep leaves inconclusive (regress.Report.RunAgain).
func runAgain(rep regress.Report) bool { return rep.RunAgain() }
