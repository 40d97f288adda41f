package iogen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/internal/jobtest"
)

// roundTrip checks that fiojob.Parse reads fiojob.Format(j) back to
// j.Normalized().
func roundTrip(t *testing.T, j workload.Job) {
	t.Helper()
	s := fiojob.Format(j)
	got, err := parseFile(strings.NewReader(s), "string")
	if err != nil {
		t.Fatalf("parseFile(fiojob.Format()): %v\n%s", err, s)
	}
	if diff := cmp.Diff([]workload.Job{j.Normalized()}, got); diff != "" {
		t.Errorf("round trip of\n%s(-want +got):\n%s", s, diff)
	}
}

// The helpers shared with the other packages' tests.
var (
	parseFile   = jobtest.ParseFile
	dupFraction = jobtest.DupFraction
)

// flateRatio is the DEFLATE-compressed size over the size.
func flateRatio(t *testing.T, data []byte) float64 {
	t.Helper()
	r, err := jobtest.FlateRatio(data)
	require.NoError(t, err)
	return r
}
