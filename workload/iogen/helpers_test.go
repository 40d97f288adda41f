package iogen

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// parseFile reads a job file's jobs with fiojob.Parse.
func parseFile(r io.Reader, name string) ([]workload.Job, error) {
	jobs, _, err := fiojob.Parse(r, name, fiojob.Config{})
	return jobs, err
}

// roundTrip checks that fiojob.Parse reads j.String() back to
// j.Normalized().
func roundTrip(t *testing.T, j workload.Job) {
	t.Helper()
	s := j.String()
	got, err := parseFile(strings.NewReader(s), "string")
	if err != nil {
		t.Fatalf("parseFile(String()): %v\n%s", err, s)
	}
	if diff := cmp.Diff([]workload.Job{j.Normalized()}, got); diff != "" {
		t.Errorf("round trip of\n%s(-want +got):\n%s", s, diff)
	}
}
