package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
	"stortest.dev/workload/internal/jobtest"
)

// The helpers shared with the other packages' tests.
var (
	parseFile    = jobtest.ParseFile
	parseArgs    = jobtest.ParseArgs
	norm         = jobtest.Norm
	dupFraction  = jobtest.DupFraction
	at           = jobtest.At
	flateRatio   = jobtest.FlateRatio
	roundTrip    = jobtest.RoundTrip
	roundTripJob = jobtest.RoundTripJob
	fioOn        = testenv.FioOn
)

// fioBinary is the installed fio; it skips the test without one.
func fioBinary(t *testing.T) string {
	return testenv.Fio(t, "the comparison with fio's own parser")
}

// fioJSON runs fio 3.33 on text as a job file with --output-format=json
// (and args) and returns its decoded output; it stops the test (FailNow)
// when fio fails.
func fioJSON(t *testing.T, fio, text string, args ...string) map[string]any {
	t.Helper()
	ok, out := fioOn(t, fio, text, append([]string{"--output-format=json"}, args...)...)
	if !ok {
		t.Fatalf("fio failed on\n%s\n%s", text, out)
	}
	return jsonDoc(t, []byte(out))
}

// runJobFile parses text as a job file and runs its jobs; it stops the
// test (FailNow) on an error of the parse, of the run or of any job.
func runJobFile(t *testing.T, text string) *workload.Result {
	t.Helper()
	jobs, err := parseFile(strings.NewReader(text), "t.fio")
	require.NoError(t, err)
	res, err := RunJobs(t.Context(), jobs, workload.Options{})
	require.NoError(t, err)
	for _, j := range res.Jobs {
		require.NoError(t, j.Err, "job %s", j.Name)
	}
	return res
}

// summary is fio's normal output (fioout.WriteSummary) of a run of the
// one job r; it stops the test (FailNow) when that fails.
func summary(t *testing.T, r *workload.JobResult) string {
	t.Helper()
	var sum bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&sum, &workload.Result{Jobs: []*workload.JobResult{r}}))
	return sum.String()
}

// allocsPerIO runs job once with loops=1 and once with loops=many (Run
// must not fail) and returns what each I/O of the added loops allocated:
// the difference of the two runs' allocations over (many-1)*ios, ios
// being the I/Os of one loop. It logs the figures.
func allocsPerIO(t *testing.T, job workload.Job, ios, many int) float64 {
	t.Helper()
	allocs := func(loops int) float64 {
		job.Loops = loops
		return testing.AllocsPerRun(1, func() {
			_, err := Run(t.Context(), job, workload.Options{})
			require.NoError(t, err)
		})
	}
	one, more := allocs(1), allocs(many)
	perIO := (more - one) / float64((many-1)*ios)
	t.Logf("allocations: %v for %d I/Os, %v for %d: %.6f per I/O", one, ios, more, many*ios, perIO)
	return perIO
}

// formatJobs prints each job with fiojob.Format, to compare jobs as the
// job files they print as.
func formatJobs(js []workload.Job) []string {
	s := make([]string, len(js))
	for i, j := range js {
		s[i] = fiojob.Format(j)
	}
	return s
}
