package stortest

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/iostat"
	"stortest.dev/regress"
	"stortest.dev/report"
	"stortest.dev/report/page"
)

// The run's page: an HTML file beside the other artifacts (extHTML),
// attached to the run's JUnit testcase, with the run's charts, its job
// and fingerprint, and the checks made on it. Run writes it as soon as
// the run ends, and again when the test ends, with the checks made by
// then.

// extHTML names the run's page.
const extHTML = ".html"

// noteCheck records a check made on the run for its page: passed,
// failed (with the findings' messages) or, when judged is false, not
// judged on a run cut short.
func (r *Result) noteCheck(name, limit string, findings []report.Failure, judged bool) {
	c := page.Check{Name: name, Limit: limit, Outcome: "pass"}
	var msgs []string
	for _, f := range findings {
		msgs = append(msgs, f.Message)
	}
	switch {
	case !judged:
		c.Outcome = "not judged"
		c.Message = "the run was cut short"
		if r.cut != nil {
			c.Message = "run " + r.cut.cause.after(r.cut.elapsed)
		}
	case len(findings) > 0:
		c.Outcome = "fail"
		c.Message = strings.Join(msgs, "; ")
	}
	collected.mu.Lock()
	r.checks = append(r.checks, c)
	collected.mu.Unlock()
}

// startPage writes the run's page now and registers a cleanup that
// rewrites it with the checks made by the end of the test. It returns
// the page's path, or "" when it could not be written: a page that
// cannot be written (a full disk) fails the test naming it (Errorf), as
// every artifact does; one that cannot be made (no figures) is logged.
func (r *Result) startPage(t testing.TB, dir, base string, host iostat.Host) string {
	t.Helper()
	path := filepath.Join(dir, base+extHTML)
	title := t.Name() + " / " + r.Job.Name
	write := func(first bool) bool {
		p, err := r.page(title, host)
		if err != nil {
			if first {
				t.Logf("stortest: %s: no HTML page: %v", r.Job.Name, err)
			} else {
				t.Logf("stortest: %s: HTML page: %v", r.Job.Name, err)
			}
			return false
		}
		if err := writeFile(path, func(w io.Writer) error { return page.WriteRun(w, p) }); err != nil {
			r.failArtifact(t, err)
			return false
		}
		return true
	}
	if !write(true) {
		return ""
	}
	t.Cleanup(func() { write(false) })
	return path
}

// page is the run's page as it stands.
func (r *Result) page(title string, host iostat.Host) (*page.Run, error) {
	p, err := page.NewRun(title, r.Result, r.fp)
	if err != nil {
		return nil, err
	}
	p.IOStat = r.IOStatSamples
	for _, w := range r.Warnings {
		p.Warnings = append(p.Warnings, w.Message)
	}
	if host.Nodename != "" {
		p.Notes = append(p.Notes, "host "+host.Nodename+", "+host.Sysname+" "+host.Release+" "+host.Machine)
	}
	if r.cut != nil {
		p.Warnings = append(p.Warnings, "run "+r.cut.cause.after(r.cut.elapsed)+": the figures are partial")
	}
	collected.mu.Lock()
	p.Checks = append([]page.Check(nil), r.checks...)
	collected.mu.Unlock()
	return p, nil
}

// writeDiffPage notes the comparison with the baseline among the run's
// checks, and writes it as a page beside the run's artifacts (the gate's
// picture of what changed), attached to the run's testcase. A page that
// cannot be written fails the test naming it.
func (r *Result) writeDiffPage(t testing.TB, old, cur *baselines.Baseline, rep regress.Report) {
	t.Helper()
	// The comparison is a check of the run too, with the gate's verdict.
	collected.mu.Lock()
	r.checks = append(r.checks, page.Check{Name: "baseline", Limit: "the tolerances", Outcome: rep.Verdict.String(), Message: rep.Summary()})
	collected.mu.Unlock()
	if r.Dir == "" {
		return
	}
	path := filepath.Join(r.Dir, strings.TrimSuffix(baselineDiffName(r), ".txt")+extHTML)
	d := &page.Diff{Base: old, Current: cur, Report: rep}
	if err := writeFile(path, func(w io.Writer) error { return page.WriteDiff(w, r.Job.Name+": baseline comparison", d) }); err != nil {
		r.failArtifact(t, err)
		return
	}
	r.Artifacts = append(r.Artifacts, path)
	if r.rec != nil {
		r.rec.addArtifact(path)
	}
}

// failArtifact reports an artifact that could not be written (nothing
// of it is left): t.Errorf and a JUnit failure of type "artifact", once
// the run is in the report.
func (r *Result) failArtifact(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s: %v", r.Job.Name, err)
	if r.rec != nil {
		r.rec.addFailure(report.Failure{Message: msg, Type: "artifact"}, true)
	}
	t.Errorf("stortest: %s", msg)
}
