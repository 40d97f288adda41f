package stortest

import (
	"errors"
	"flag"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/history"
)

// flagHistory is the history store every Run appends to.
var flagHistory = flag.String("stortest.history", "",
	"directory of the run history: every Run appends its results as a file of its own (env STORTEST_HISTORY); "+
		"empty: no history; read it with `stortest history changes DIR`")

// EnvHistory names the history directory, as -stortest.history does.
const EnvHistory = "STORTEST_HISTORY"

// HistorySetting returns the history directory given with
// -stortest.history or STORTEST_HISTORY, or "" when runs are not kept.
//
// There is no default. A history is worth keeping only where it lives on
// from run to run and from machine to machine, and that is a CI
// artifact, a cache or a shared volume the team chooses; a default in
// the package directory would add a file to every developer's working
// tree on every go test run. Relative paths are relative to the test's
// package directory; CI should give an absolute one.
func HistorySetting() string { return stringSetting("stortest.history", flagHistory, EnvHistory) }

// appendHistory appends the run to the history store, when there is one:
// the run's baseline (package baselines' format, with its seconds,
// slices and histograms) as a file of its own under
// <dir>/<TestName>/<job>/. A run cut short or failed is not appended
// (its numbers are no run of the job: logged); a store that cannot be
// written fails the test (Errorf), since the history asked for is lost.
func (r *Result) appendHistory(t testing.TB) {
	t.Helper()
	dir := HistorySetting()
	if dir == "" {
		return
	}
	if r.cut != nil {
		t.Logf("stortest: %s: not appended to the history: run cut short", r.Job.Name)
		return
	}
	b, err := baselines.FromResult(r.Result, r.fp)
	if errors.Is(err, baselines.ErrPartial) {
		t.Logf("stortest: %s: not appended to the history: %v", r.Job.Name, err)
		return
	}
	if err == nil {
		var path string
		if path, err = history.Append(dir, t.Name(), b); err == nil {
			t.Logf("stortest: %s: run appended to the history: %s", r.Job.Name, path)
			return
		}
	}
	t.Errorf("stortest: %s: history: %v", r.Job.Name, err)
}
