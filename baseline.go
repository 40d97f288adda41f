package stortest

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/internal/durable"
	"stortest.dev/regress"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// BaselineOption configures CheckBaseline.
type BaselineOption func(*baselineConfig)

type baselineConfig struct {
	dir string
	cfg regress.Config
	// rules are the Tolerances options as given, recorded in the
	// baselines that -stortest.update writes.
	rules  []string
	strict bool
	err    error
}

// BaselineDir stores baselines under dir instead of testdata/baselines.
func BaselineDir(dir string) BaselineOption {
	return func(c *baselineConfig) { c.dir = dir }
}

// Tolerances overrides per-metric tolerances in regress.ParseRules syntax,
// e.g. "*.iops=5%,read.clat.p99=15%:2us,*.clat.p99.99=off". The rules
// apply after those stored in the baseline and before -stortest.tolerance
// (the last matching rule wins), and are stored in the baselines that
// -stortest.update records.
func Tolerances(rules string) BaselineOption {
	return func(c *baselineConfig) {
		rs, err := regress.ParseRules(rules)
		if err != nil {
			c.err = err
			return
		}
		c.cfg.Rules = append(c.cfg.Rules, rs...)
		c.rules = append(c.rules, rules)
	}
}

// RegressConfig replaces the whole comparison configuration, the rules of
// earlier Tolerances options included. Its Rules apply as Tolerances'
// do, but are not stored in recorded baselines: give rules that should
// travel with the baseline with Tolerances, after RegressConfig.
func RegressConfig(cfg regress.Config) BaselineOption {
	return func(c *baselineConfig) {
		c.cfg = cfg
		c.rules = nil
	}
}

// AssumeRunSpread sets the run-to-run spread assumed of every metric
// before the baseline's own runs measure it (regress.Config.RunSpread):
// a log-scale standard deviation, 0.02 for a device known to hold within
// about 2% from run to run. The defaults (regress.DefaultRunSpread, 10%
// for IOPS up to 20% for p99.99) are a shared CI host's.
func AssumeRunSpread(s float64) BaselineOption {
	return func(c *baselineConfig) {
		c.cfg.RunSpread = s
		if s == 0 {
			c.cfg.RunSpread = -1 // none
		}
	}
}

// Strict makes CheckBaseline fail on an inconclusive comparison, as
// -stortest.strict (or STORTEST_STRICT=1) does for every test.
func Strict() BaselineOption {
	return func(c *baselineConfig) { c.strict = true }
}

// CheckBaseline compares res with the baseline stored for this test and
// job, testdata/baselines/<TestName>/<job>.json (the directory can be
// moved with -stortest.baselines or BaselineDir), and reports every
// regression with t.Errorf (and as a JUnit failure); the test goes on.
//
// Every comparison ends in a verdict: pass, improvement, inconclusive (too
// few samples, or too noisy, to tell a change beyond tolerance from none)
// or regression. The verdict is logged, and it is the property
// "baseline.verdict" of the run's testcase in the JUnit report, whose
// output says why; Main prints every comparison that was not a plain pass
// at the end of the test binary. An inconclusive comparison fails only in
// strict mode (-stortest.strict, STORTEST_STRICT=1 or the Strict option):
// one t.Errorf and JUnit failure of type "inconclusive" per finding,
// "<job>: inconclusive (strict): <reason>".
//
// Tolerances apply in this order, the last matching rule winning: the
// defaults (regress.DefaultRules), the rules stored in the baseline, the
// test's own (Tolerances, RegressConfig), then -stortest.tolerance (or
// STORTEST_TOLERANCE).
//
// A baseline belongs to the device it was recorded on: when the device's
// model, serial, size or a loop device's backing file differ
// (baselines.Fingerprint.DeviceMismatch), CheckBaseline fails without
// comparing, with the command that records a baseline for this device.
// A changed fingerprint of the same device (say "firmware 1.2 -> 1.3") is
// logged and the comparison made anyway: that change is what the gate
// exists for.
//
// With -stortest.update (or STORTEST_UPDATE=1) it records the baseline
// instead, with the rules of the Tolerances options and of
// -stortest.tolerance, so that they travel with it. go test -count=N
// -stortest.update records N runs in one baseline: the first recording
// of a baseline in the test binary replaces the file (the replaced one is
// kept in <job>.history.jsonl), each later one adds its run to it, so
// that the verdicts account for the spread from run to run, not only
// within one run. With -stortest.update=append (or STORTEST_UPDATE=append)
// the first recording of the process adds this session's run to the
// baseline instead of replacing it (baselines.Grow): runs of separate
// sessions measure the whole spread from run to run, which runs of one
// process measure only in part. The baseline keeps the last
// -stortest.keep (STORTEST_KEEP, 10) sessions, the oldest going first,
// and the full data (histograms, seconds, slices) of the newest; a
// baseline of another job, workload or device, or one that cannot be
// read, is refused with what differs. Plain -stortest.update starts
// over, as after an intended change. A test that has failed already
// records nothing and fails. A missing baseline fails with the command that records it; a
// corrupt one fails and is left as it is. The comparison, as text, is
// also an artifact of the run. It returns whether the comparison passed:
// no regression, and in strict mode nothing inconclusive.
//
// A run cut short by Main's interrupt (SIGINT, SIGTERM, the test
// binary's -timeout about to expire) is neither compared nor recorded:
// seconds of a job are no match for its baseline, and no reference for
// later runs. CheckBaseline logs so ("randread-4k: baseline not
// compared: run cut short by SIGINT after 3.2s of 1m0s") and returns
// false, leaving the failure to the cancellation error Run recorded; no
// verdict goes into the report or Main's summary. Bad options still
// fail.
func CheckBaseline(t testing.TB, res *Result, opts ...BaselineOption) bool {
	t.Helper()
	ok, _ := checkBaseline(t, res, opts)
	return ok
}

// RequireBaseline is CheckBaseline that stops the test (FailNow) when
// the comparison does not pass or the baseline cannot be read or
// recorded, or a run cut short is not compared.
func RequireBaseline(t testing.TB, res *Result, opts ...BaselineOption) {
	t.Helper()
	if ok, _ := checkBaseline(t, res, opts); !ok {
		t.FailNow()
	}
}

func checkBaseline(t testing.TB, res *Result, opts []BaselineOption) (bool, *regress.Report) {
	t.Helper()
	c := baselineConfig{dir: cmp.Or(BaselinesSetting(), baselines.DefaultDir), cfg: regress.DefaultConfig(), strict: StrictSetting()}
	for _, o := range opts {
		o(&c)
	}
	if c.err != nil {
		res.fail(t, "baseline", "%s: baseline options: %v", res.Job.Name, c.err)
		return false, nil
	}
	flagRules, err := regress.ParseRules(ToleranceSetting())
	if err != nil {
		res.fail(t, "baseline", "%s: -stortest.tolerance (or %s): %v", res.Job.Name, EnvTolerance, err)
		return false, nil
	}
	if res.cut != nil {
		if Update() {
			res.logCut(t, "baseline not recorded")
		} else {
			res.logCut(t, "baseline not compared")
		}
		return false, nil
	}
	path := baselines.Path(c.dir, t.Name(), res.Job.Name)
	cur, err := baselines.FromResult(res.Result, res.fp)
	if err != nil {
		res.fail(t, "baseline", "%s: no baseline from this run: %v", res.Job.Name, err)
		return false, nil
	}
	cur.Shared = res.shared()
	cur.Session = thisSession()
	if mode := UpdateSetting(); mode != UpdateOff {
		keep, err := KeepSetting()
		if err != nil {
			res.fail(t, "baseline", "%s: %v", res.Job.Name, err)
			return false, nil
		}
		if !res.addRuns(t, cur, res.repeats) {
			return false, nil
		}
		cur.Tolerances = joinRules(append(c.rules, ToleranceSetting())...)
		return res.recordBaseline(t, path, cur, mode, keep), nil
	}
	if p := res.again; p != nil {
		// The runs RepeatWhileInconclusive made, judged together as one
		// session at the look the repeat ended on.
		if !res.addRuns(t, cur, p.again) {
			return false, nil
		}
		setLook(&c.cfg, p.runs(), p.looks)
	}
	return res.compareBaseline(t, path, cur, c, flagRules)
}

// compareBaseline compares cur, the run's baseline, with the one stored
// at path, under c's rules after the stored ones and before flagRules.
func (r *Result) compareBaseline(t testing.TB, path string, cur *baselines.Baseline, c baselineConfig, flagRules []regress.Rule) (bool, *regress.Report) {
	t.Helper()
	old, err := baselines.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.fail(t, "baseline", "%s: no baseline at %s; record it with:\n\t%s",
			r.Job.Name, path, updateCommand(t.Name()))
		return false, nil
	case err != nil:
		r.fail(t, "baseline", "%s: baseline unreadable (left as it is; rewrite it with -stortest.update): %v", r.Job.Name, err)
		return false, nil
	}
	if ch := old.Fingerprint.DeviceMismatch(cur.Fingerprint); len(ch) > 0 {
		// Another device's figures are no reference; firmware and kernel
		// changes of this one are what the gate compares across.
		r.fail(t, "baseline", "%s: the baseline at %s was recorded on another device (%s): not compared; "+
			"record one for this device in its place (or keep each device's apart with -stortest.baselines) with:\n\t%s",
			r.Job.Name, path, joinChanges(ch), updateCommand(t.Name()))
		return false, nil
	}
	cfg, err := c.compareConfig(old, flagRules)
	if err != nil {
		r.fail(t, "baseline", "%s: the tolerances stored in %s: %v (rewrite it with -stortest.update)", r.Job.Name, path, err)
		return false, nil
	}
	rep := regress.Compare(old, cur, cfg)
	r.writeDiffPage(t, old, cur, rep)
	return r.judge(t, rep, c.strict), &rep
}

// compareConfig is the configuration comparing with old: the rules
// stored in it, then the test's own, then flagRules (the last matching
// rule wins).
func (c baselineConfig) compareConfig(old *baselines.Baseline, flagRules []regress.Rule) (regress.Config, error) {
	stored, err := regress.ParseRules(old.Tolerances)
	if err != nil {
		return regress.Config{}, err
	}
	cfg := c.cfg
	cfg.Rules = slices.Concat(stored, cfg.Rules, flagRules)
	return cfg, nil
}

// fail reports a failed check of the run: t.Errorf and a JUnit failure
// of type typ.
func (r *Result) fail(t testing.TB, typ, format string, args ...any) {
	t.Helper()
	r.emit(t, false, []report.Failure{{Message: fmt.Sprintf(format, args...), Type: typ}})
}

// recordBaseline writes cur, the run's baseline, to path, and reports
// whether it did. The first write of a path in this process replaces the
// file (keeping the old baseline in its history), or with UpdateAppend
// adds this session to it (baselines.Grow, keeping keep sessions); later
// ones, as go test -count=N -stortest.update makes, add their run to it.
func (r *Result) recordBaseline(t testing.TB, path string, cur *baselines.Baseline, mode UpdateMode, keep int) bool {
	t.Helper()
	if t.Failed() {
		// A run that broke its limits, or erred, is no reference.
		r.fail(t, "baseline", "%s: not recording a baseline: the test has failed (see above)", r.Job.Name)
		return false
	}
	w, err := writeBaseline(path, cur, mode, keep)
	if err != nil {
		kept := " (the baseline and its history are as they were)"
		if errors.Is(err, durable.ErrUnsynced) {
			kept = " (the baseline is written, but a crash could yet undo it)"
		}
		r.fail(t, "baseline", "%s: update baseline: %v%s", r.Job.Name, err, kept)
		return false
	}
	up := w.up
	if up.Dropped > 0 {
		t.Logf("stortest: %s: %s ended in a partial entry of %d bytes (an update that failed or crashed): replaced by the baseline kept now",
			r.Job.Name, baselines.HistoryPath(path), up.Dropped)
	}
	if up.Kept || up.Dropped > 0 {
		logHistoryDamage(t, r.Job.Name, baselines.HistoryPath(path))
	}
	switch {
	case w.grown != nil:
		msg := fmt.Sprintf("stortest: %s: this session added to the baseline at %s: %s (%s)",
			r.Job.Name, path, plural(len(w.grown.Sessions), "session"), plural(w.runs, "run"))
		if n := len(w.grown.Evicted); n > 0 {
			msg += fmt.Sprintf("; the oldest %s (%s) evicted to keep %d (-stortest.keep)",
				plural(n, "session"), plural(w.grown.EvictedRuns, "run"), keep)
		}
		t.Logf("%s", msg)
	case mode == UpdateAppend && w.sessions > 1:
		t.Logf("stortest: %s: baseline written to %s (%s, %s)", r.Job.Name, path, plural(w.sessions, "session"), plural(w.runs, "run"))
	case w.runs > 1:
		t.Logf("stortest: %s: baseline written to %s (%d runs)", r.Job.Name, path, w.runs)
	default:
		t.Logf("stortest: %s: baseline written to %s", r.Job.Name, path)
	}
	return true
}

// plural prints "1 session", "3 sessions".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// logHistoryDamage logs what reading the history at path skips or
// fails on: damage that earlier versions left on a full disk is read
// past, but not silently.
func logHistoryDamage(t testing.TB, job, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Logf("stortest: %s: history: %v", job, err)
		return
	}
	defer f.Close()
	_, skipped, err := baselines.ReadHistory(f, path)
	for _, s := range skipped {
		t.Logf("stortest: %s: history: %s", job, s)
	}
	if err != nil {
		t.Logf("stortest: %s: history unreadable past an entry: %v", job, err)
	}
}

// appendPause is called between reading a baseline and writing it back
// with this session added: tests stand in for a slow process there.
var appendPause = func() {}

// thisSession is the session recorded in the baselines this process
// writes: baselines.ProcessSession; tests stand in for other processes.
var thisSession = baselines.ProcessSession

// written holds the baselines this process has recorded, by absolute
// path.
var written struct {
	mu    sync.Mutex
	paths map[string]bool
}

// wrote says what writeBaseline did.
type wrote struct {
	runs, sessions int // what the baseline holds now
	up             baselines.Updated
	grown          *baselines.Grown // when this session was added to an earlier baseline
}

// writeBaseline records cur at path. On the first write of path in this
// process it replaces the file there (UpdateReplace) or adds cur's
// session to it, keeping keep sessions (UpdateAppend, baselines.Grow; as
// a replacement when there is none yet); the baseline replaced is kept
// in the history either way. A later write of path in the process adds
// cur as one more run of the same session (baselines.Baseline.AddRun),
// so that the verdicts of later comparisons account for the spread
// between runs. A failed write leaves the baseline and its history as
// they were. An append refuses a baseline it cannot read, or of another
// job, workload or device, naming the file and what differs: plain
// -stortest.update starts over.
func writeBaseline(path string, cur *baselines.Baseline, mode UpdateMode, keep int) (w wrote, err error) {
	key, err := filepath.Abs(path)
	if err != nil {
		return w, err
	}
	written.mu.Lock()
	defer written.mu.Unlock()
	if mode == UpdateAppend || written.paths[key] {
		// Read, changed and written back: other processes appending to
		// it wait (and it waits for them), so that none loses a session.
		unlock, err := baselines.Lock(path)
		if err != nil {
			return w, err
		}
		defer unlock()
	}
	if !written.paths[key] {
		b := cur
		if mode == UpdateAppend {
			old, err := baselines.Load(path)
			appendPause()
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return w, fmt.Errorf("cannot add this session to %s: %w (start over with plain -stortest.update)", path, err)
			default:
				grown, g, err := baselines.Grow(old, cur, keep)
				if err != nil {
					return w, fmt.Errorf("cannot add this session to %s: %w (start over with plain -stortest.update, "+
						"or keep each device's baselines apart with -stortest.baselines)", path, err)
				}
				b, w.grown = grown, &g
			}
		}
		if w.up, err = baselines.Update(path, b, true); err != nil {
			return w, err
		}
		if written.paths == nil {
			written.paths = map[string]bool{}
		}
		written.paths[key] = true
		w.runs, w.sessions = len(b.RunSummaries()), len(b.Sessions())
		return w, nil
	}
	b, err := baselines.Load(path)
	if err != nil {
		return w, fmt.Errorf("add this run to the baseline written earlier in this process: %w", err)
	}
	if err := b.AddRun(cur); err != nil {
		return w, err
	}
	b.Tolerances = cur.Tolerances
	if err := baselines.WriteFile(path, b); err != nil {
		return w, err
	}
	w.runs, w.sessions = len(b.RunSummaries()), len(b.Sessions())
	return w, nil
}

// joinRules joins rules in regress.ParseRules syntax into one such
// string, in order.
func joinRules(rules ...string) string {
	var parts []string
	for _, r := range rules {
		if r = strings.Trim(strings.TrimSpace(r), ","); r != "" {
			parts = append(parts, r)
		}
	}
	return strings.Join(parts, ",")
}

// joinChanges prints changes as "model A -> B, serial X -> Y".
func joinChanges(ch []baselines.Change) string {
	var parts []string
	for _, c := range ch {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, ", ")
}

// judge reports a comparison with the baseline: its verdict and changes
// in the log, the diff as an artifact, the verdict in the JUnit report
// and Main's summary, a failure per regression and, when strict, per
// inconclusive finding. It returns whether the comparison passed.
func (r *Result) judge(t testing.TB, rep regress.Report, strict bool) bool {
	t.Helper()
	for _, ch := range rep.Fingerprint {
		t.Logf("stortest: %s: fingerprint changed since the baseline: %s", r.Job.Name, ch)
	}
	for _, ch := range rep.Job {
		t.Logf("stortest: %s: job changed since the baseline: %s", r.Job.Name, ch)
	}
	r.writeDiff(t, rep)
	t.Logf("stortest: baseline comparison %s", rep.Summary())
	if r.rec != nil {
		r.rec.addBaseline(rep)
	}
	noteComparison(t.Name(), rep)
	inconclusive := rep.Inconclusive()
	for _, f := range inconclusive {
		if strict {
			r.fail(t, "inconclusive", "%s: inconclusive (strict): %s", r.Job.Name, f.Reason)
		} else {
			t.Logf("stortest: %s: inconclusive: %s", r.Job.Name, f.Reason)
		}
	}
	for _, f := range rep.Findings {
		if f.Verdict == regress.NotCompared {
			// Neither a pass nor inconclusive, so strict does not fail
			// on it; the reason says what would make it comparable.
			t.Logf("stortest: %s: %s", r.Job.Name, f.Reason)
		}
	}
	regs := rep.Regressions()
	for _, f := range regs {
		r.fail(t, "regression", "%s: %s", r.Job.Name, f.Reason)
	}
	return len(regs) == 0 && !(strict && len(inconclusive) > 0)
}

// writeDiff writes the comparison as text beside the run's artifacts;
// one that cannot be written fails the test naming it.
func (r *Result) writeDiff(t testing.TB, rep regress.Report) {
	t.Helper()
	if r.Dir == "" {
		return
	}
	diff := filepath.Join(r.Dir, baselineDiffName(r))
	if err := writeFile(diff, func(w io.Writer) error {
		if r.again != nil {
			// How many runs the verdict rests on, first.
			if _, err := fmt.Fprintf(w, "%s: %s\n\n", r.Job.Name, r.again.note); err != nil {
				return err
			}
		}
		return regress.WriteText(w, rep)
	}); err != nil {
		r.failArtifact(t, err)
		return
	}
	r.Artifacts = append(r.Artifacts, diff)
	if r.rec != nil {
		r.rec.addArtifact(diff)
	}
}

func baselineDiffName(res *Result) string {
	for _, a := range res.Artifacts {
		if base, ok := strings.CutSuffix(filepath.Base(a), extFioJSON); ok {
			return base + ".baseline-diff.txt"
		}
	}
	return safeName(res.Job.Name) + ".baseline-diff.txt"
}

// updateCommand is the shell command that records a test's baselines as
// this test binary would have: go test runs a package's tests in its
// directory, so that is where to go, with the device, baseline
// directory, tolerances and destructive-write permission it was given.
func updateCommand(test string) string {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	top := strings.SplitN(test, "/", 2)[0]
	var env string
	if v := os.Getenv(EnvAllowDestructive); v != "" {
		env = EnvAllowDestructive + "=" + shellQuote(v) + " "
	}
	args := []string{"-run", shellQuote("^" + regexp.QuoteMeta(top) + "$"), "-stortest.update"}
	for _, s := range []struct{ flag, value string }{
		{"stortest.device", DeviceSetting()},
		{"stortest.baselines", BaselinesSetting()},
		{"stortest.tolerance", ToleranceSetting()},
	} {
		if s.value != "" {
			args = append(args, "-"+s.flag+"="+shellQuote(s.value))
		}
	}
	return fmt.Sprintf("(cd %s && %sgo test %s)", shellQuote(dir), env, strings.Join(args, " "))
}

// shellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// addRuns adds the runs of this session besides the first (Repeats while
// recording, RepeatWhileInconclusive's) to cur as runs of cur's session;
// the device's counters cover them too, so they share its Shared. It
// fails the test and returns false when one cannot be added.
func (res *Result) addRuns(t testing.TB, cur *baselines.Baseline, runs []*workload.Result) bool {
	t.Helper()
	for _, x := range runs {
		b, err := baselines.FromResult(x, res.fp)
		if err == nil {
			b.Shared, b.Session = cur.Shared, cur.Session
			err = cur.AddRun(b)
		}
		if err != nil {
			res.fail(t, "baseline", "%s: a repeated run: %v", res.Job.Name, err)
			return false
		}
	}
	return true
}
