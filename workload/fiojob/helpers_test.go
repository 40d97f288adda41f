package fiojob

import (
	"strings"
	"testing"

	"stortest.dev/workload"
)

// roundTripJob returns j as Parse reads back what j.String() prints.
func roundTripJob(t *testing.T, j workload.Job) workload.Job {
	t.Helper()
	text := j.String()
	if j.WaitFor != "" {
		text = "[" + j.WaitFor + "]\n" + text
	}
	back, err := parseFile(strings.NewReader(text), "back.fio")
	if err != nil {
		t.Fatalf("%s: %v\n%s", j.Name, err, text)
	}
	return back[len(back)-1]
}
