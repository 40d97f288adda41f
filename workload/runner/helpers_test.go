package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/internal/jobtest"
)

// formatJobs prints each job with fiojob.Format, to compare jobs as the
// job files they print as.
func formatJobs(js []workload.Job) []string {
	s := make([]string, len(js))
	for i, j := range js {
		s[i] = fiojob.Format(j)
	}
	return s
}

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

// fioBinary is the installed fio; it skips the test without one.
func fioBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("fio is not installed: skipping the comparison with fio's own parser")
	}
	return p
}

// The helpers shared with the other packages' tests.
var (
	parseFile   = jobtest.ParseFile
	parseArgs   = jobtest.ParseArgs
	norm        = jobtest.Norm
	dupFraction = jobtest.DupFraction
	at          = jobtest.At
)

// flateRatio is the DEFLATE-compressed size over the size.
func flateRatio(t *testing.T, data []byte) float64 {
	t.Helper()
	r, err := jobtest.FlateRatio(data)
	require.NoError(t, err)
	return r
}
