package stortest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"stortest.dev/regress"
	"stortest.dev/report"
)

// collected holds every workload run of the test binary, for the JUnit
// report Main writes at the end. Runs of parallel tests and their checks
// add to it concurrently: every access holds mu.
var collected struct {
	mu    sync.Mutex
	runs  []*record
	tests map[testing.TB]*testState
	// bases counts the runs of each job name per test name, over the
	// whole binary: a second run of the same job, in the same test or in
	// the test's next round under go test -count, gets artifacts and a
	// testcase of its own (the report refuses two attachments of one
	// class with one base name).
	bases map[string]int
}

// record is one run as the report will show it. Its failures grow as
// checks on its Result fail. When its test ends, the run becomes its
// testcase and the Result (histograms of a few hundred KiB per job
// clone) is let go, so a long suite does not hold every run's memory.
type record struct {
	run  report.Run
	kase *report.Case // once the test has ended
	err  error        // from making the testcase
}

// testState is what stortest keeps per test while it runs.
type testState struct {
	runs []*record
	name string // the test's
	dir  string // the artifact directory, once made
	// tempDir is set when the artifacts go to a directory the testing
	// package removes after the test.
	tempDir bool
}

// stateOf returns t's state, made on first use with a cleanup that
// settles the test's records once it has finished: a test that failed
// for reasons no check recorded (a t.Errorf of its own, a panic) marks
// its last run failed, so the report never shows a failed test as
// passed; a test skipped after its runs marks them skipped.
func stateOf(t testing.TB) *testState {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	if st, ok := collected.tests[t]; ok {
		return st
	}
	if collected.tests == nil {
		collected.tests = map[testing.TB]*testState{}
	}
	st := &testState{name: t.Name()}
	collected.tests[t] = st
	t.Cleanup(func() { settle(t, st) })
	return st
}

func settle(t testing.TB, st *testState) {
	failed, skipped := t.Failed(), t.Skipped()
	collected.mu.Lock()
	defer collected.mu.Unlock()
	delete(collected.tests, t)
	if len(st.runs) == 0 {
		return
	}
	if skipped {
		for _, r := range st.runs {
			if r.run.Skipped == "" {
				r.run.Skipped = "skipped after the run (see the go test output)"
			}
		}
	}
	if failed {
		recorded := false
		for _, r := range st.runs {
			recorded = recorded || len(r.run.Failures) > 0 || len(r.run.Errors) > 0
		}
		if !recorded {
			last := st.runs[len(st.runs)-1]
			last.run.Failures = append(last.run.Failures, report.Failure{
				Message: t.Name() + " failed (see the go test output)",
				Type:    "test",
			})
		}
		if st.tempDir && st.dir != "" {
			t.Logf("stortest: the artifacts in %s are removed with the test; keep them with -test.artifacts, -stortest.out or %s=1", st.dir, EnvNoCleanup)
		}
	}
	for _, r := range st.runs {
		r.settle()
	}
}

// settle makes the record's testcase and drops its run. Callers hold
// collected.mu.
func (r *record) settle() {
	if r.kase != nil || r.err != nil {
		return
	}
	c, err := report.NewCase(r.run)
	if err != nil {
		r.err = fmt.Errorf("%s: %s: %w", r.run.Test, r.run.Job, err)
		return
	}
	r.kase = &c
	r.run = report.Run{Test: r.run.Test, Job: r.run.Job}
}

// add records a run.
func (st *testState) add(r *record) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	st.runs = append(st.runs, r)
	collected.runs = append(collected.runs, r)
}

// ran reports whether the test has recorded a run.
func (st *testState) ran() bool {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	return len(st.runs) > 0
}

// names returns the names of the next run of job name in the test: the
// base name of its artifacts ("randread-4k", then "randread-4k.2") and
// the name of its testcase ("randread-4k", then "randread-4k#2"). Runs
// of the test's earlier rounds (go test -count) count too.
func (st *testState) names(name string) (base, caseName string) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	safe := safeName(name)
	if collected.bases == nil {
		collected.bases = map[string]int{}
	}
	key := st.name + "\x00" + safe
	collected.bases[key]++
	if n := collected.bases[key]; n > 1 {
		return safe + "." + itoa(n), name + "#" + itoa(n)
	}
	return safe, name
}

// addFailure records a failed check on a run, also after its test ended
// (a check from a goroutine that outlived it).
func (r *record) addFailure(f report.Failure, isError bool) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	failures, errs := &r.run.Failures, &r.run.Errors
	if r.kase != nil {
		failures, errs = &r.kase.Failures, &r.kase.Errors
	}
	if isError {
		*errs = append(*errs, f)
	} else {
		*failures = append(*failures, f)
	}
}

// addProperty sets a property of the run's testcase, also after its
// test ended.
func (r *record) addProperty(name, value string) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	props := &r.run.Fingerprint
	if r.kase != nil {
		props = &r.kase.Properties
	}
	for i := range *props {
		if (*props)[i].Name == name {
			(*props)[i].Value = value
			return
		}
	}
	*props = append(*props, report.Property{Name: name, Value: value})
}

// addBaseline records the run's comparison with its baseline, also after
// its test ended.
func (r *record) addBaseline(rep regress.Report) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	if r.kase != nil {
		r.kase.AddBaseline(rep)
	} else {
		r.run.Baselines = append(r.run.Baselines, rep)
	}
}

// cases returns the testcases of the runs collected so far, in order,
// making those of tests still running, with the errors of the runs that
// could not be made into one.
func cases() ([]report.Case, error) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	var out []report.Case
	var errs []error
	for _, r := range collected.runs {
		if r.kase != nil {
			out = append(out, cloneCase(*r.kase))
			continue
		}
		if r.err == nil {
			c, err := report.NewCase(r.run)
			if err == nil {
				out = append(out, c)
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %s: %w", r.run.Test, r.run.Job, err))
			continue
		}
		errs = append(errs, r.err)
	}
	return out, errors.Join(errs...)
}

func cloneCase(c report.Case) report.Case {
	c.Failures = slices.Clone(c.Failures)
	c.Errors = slices.Clone(c.Errors)
	c.Properties = slices.Clone(c.Properties)
	c.Attachments = slices.Clone(c.Attachments)
	return c
}

// addArtifact attaches one more file to a run's testcase, also after its
// test ended.
func (r *record) addArtifact(path string) {
	collected.mu.Lock()
	defer collected.mu.Unlock()
	if r.kase != nil {
		r.kase.Attachments = append(r.kase.Attachments, path)
	} else {
		r.run.Artifacts = append(r.run.Artifacts, path)
	}
}
