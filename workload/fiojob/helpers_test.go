package fiojob

import (
	"errors"
	"strings"
	"testing"

	"stortest.dev/workload"
)

// wantError checks a parse that must fail: it stops the test when err is
// nil (jobs were read), and fails it unless err matches is and its text
// contains msg.
func wantError(t *testing.T, jobs []workload.Job, err, is error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got %d jobs, want an error", len(jobs))
	}
	if !errors.Is(err, is) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q\nwant it to contain %q and match %v", err, msg, is)
	}
}

// formatJobs prints each job with Format, to compare jobs as the job
// files they print as.
func formatJobs(js []workload.Job) []string {
	s := make([]string, len(js))
	for i, j := range js {
		s[i] = Format(j)
	}
	return s
}

// roundTripJob returns j as Parse reads back what Format(j) prints.
func roundTripJob(t *testing.T, j workload.Job) workload.Job {
	t.Helper()
	text := Format(j)
	if j.WaitFor != "" {
		text = "[" + j.WaitFor + "]\n" + text
	}
	back, err := parseFile(strings.NewReader(text), "back.fio")
	if err != nil {
		t.Fatalf("%s: %v\n%s", j.Name, err, text)
	}
	return back[len(back)-1]
}
