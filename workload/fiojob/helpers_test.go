package fiojob

import (
	"strings"
	"testing"

	"stortest.dev/workload"
)

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
