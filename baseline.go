package stortest

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/report"
)

// BaselineOption configures CheckBaseline.
type BaselineOption func(*baselineConfig)

type baselineConfig struct {
	dir string
	cfg regress.Config
	err error
}

// BaselineDir stores baselines under dir instead of testdata/baselines.
func BaselineDir(dir string) BaselineOption {
	return func(c *baselineConfig) { c.dir = dir }
}

// Tolerances overrides per-metric tolerances in regress.ParseRules syntax,
// e.g. "*.iops=5%,read.clat.p99=15%:2us,*.clat.p99.99=off".
func Tolerances(rules string) BaselineOption {
	return func(c *baselineConfig) {
		rs, err := regress.ParseRules(rules)
		if err != nil {
			c.err = err
			return
		}
		c.cfg.Rules = append(c.cfg.Rules, rs...)
	}
}

// RegressConfig replaces the whole comparison configuration.
func RegressConfig(cfg regress.Config) BaselineOption {
	return func(c *baselineConfig) { c.cfg = cfg }
}

// CheckBaseline compares res with the baseline stored for this test and
// job, testdata/baselines/<TestName>/<job>.json (the directory can be
// moved with -stortest.baselines or BaselineDir), and reports every
// regression with t.Errorf (and as a JUnit failure); the test goes on.
// Inconclusive metrics are logged, not failed: too few samples to tell.
// A changed fingerprint (say "firmware 1.2 -> 1.3") is logged and the
// comparison made anyway: that change is what the gate exists for.
//
// With -stortest.update (or STORTEST_UPDATE=1) it rewrites the baseline
// instead, keeping the replaced one in <job>.history.jsonl. A missing
// baseline fails with the command that records it; a corrupt one fails
// and is left as it is. The comparison, as text, is also an artifact of
// the run. It returns whether no regression was found.
func CheckBaseline(t testing.TB, res *Result, opts ...BaselineOption) bool {
	t.Helper()
	ok, _ := checkBaseline(t, res, opts)
	return ok
}

// RequireBaseline is CheckBaseline that stops the test (FailNow) on a
// regression or when the baseline cannot be read.
func RequireBaseline(t testing.TB, res *Result, opts ...BaselineOption) {
	t.Helper()
	if ok, _ := checkBaseline(t, res, opts); !ok {
		t.FailNow()
	}
}

func checkBaseline(t testing.TB, res *Result, opts []BaselineOption) (bool, *regress.Report) {
	t.Helper()
	c := baselineConfig{dir: cmp.Or(BaselinesSetting(), baselines.DefaultDir), cfg: regress.DefaultConfig()}
	for _, o := range opts {
		o(&c)
	}
	fail := func(typ, format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if res.rec != nil {
			res.rec.addFailure(report.Failure{Message: msg, Type: typ}, false)
		}
		t.Errorf("%s", msg)
	}
	if c.err != nil {
		fail("baseline", "%s: baseline options: %v", res.Job.Name, c.err)
		return false, nil
	}
	path := baselines.Path(c.dir, t.Name(), res.Job.Name)
	cur, err := baselines.FromResult(res.Result, res.fp)
	if err != nil {
		fail("baseline", "%s: no baseline from this run: %v", res.Job.Name, err)
		return false, nil
	}
	if Update() {
		if err := baselines.Update(path, cur, true); err != nil {
			fail("baseline", "%s: update baseline: %v", res.Job.Name, err)
			return false, nil
		}
		t.Logf("stortest: %s: baseline written to %s", res.Job.Name, path)
		return true, nil
	}
	old, err := baselines.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fail("baseline", "%s: no baseline at %s; record it with:\n\t%s",
			res.Job.Name, path, updateCommand(t.Name()))
		return false, nil
	case err != nil:
		fail("baseline", "%s: baseline unreadable (left as it is; rewrite it with -stortest.update): %v", res.Job.Name, err)
		return false, nil
	}
	rep := regress.Compare(old, cur, c.cfg)
	for _, ch := range rep.Fingerprint {
		t.Logf("stortest: %s: fingerprint changed since the baseline: %s", res.Job.Name, ch)
	}
	for _, ch := range rep.Job {
		t.Logf("stortest: %s: job changed since the baseline: %s", res.Job.Name, ch)
	}
	if res.Dir != "" {
		diff := filepath.Join(res.Dir, baselineDiffName(res))
		if f, err := os.Create(diff); err == nil {
			werr := regress.WriteText(f, rep)
			if cerr := f.Close(); werr == nil && cerr == nil {
				res.Artifacts = append(res.Artifacts, diff)
				if res.rec != nil {
					res.rec.addArtifact(diff)
				}
			}
		}
	}
	for _, f := range rep.Inconclusive() {
		t.Logf("stortest: %s: inconclusive: %s", res.Job.Name, f.Reason)
	}
	regs := rep.Regressions()
	for _, f := range regs {
		fail("regression", "%s: %s", res.Job.Name, f.Reason)
	}
	return len(regs) == 0, &rep
}

func baselineDiffName(res *Result) string {
	for _, a := range res.Artifacts {
		if base, ok := strings.CutSuffix(filepath.Base(a), extFioJSON); ok {
			return base + ".baseline-diff.txt"
		}
	}
	return safeName(res.Job.Name) + ".baseline-diff.txt"
}

// updateCommand is the shell command that records a test's baselines: go
// test runs a package's tests in its directory, so that is where to go.
func updateCommand(test string) string {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	top := strings.SplitN(test, "/", 2)[0]
	return fmt.Sprintf("(cd %q && go test -run '^%s$' -stortest.update)", dir, regexp.QuoteMeta(top))
}
