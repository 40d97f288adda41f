package workload

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

func TestStringRoundTrip(t *testing.T) {
	rate := fullJob()
	rate.RateIOPS = [3]int{}
	for _, j := range []Job{
		fullJob(),
		rate,
		{Name: "x"},
		{Name: "r", RW: RandRead, BlockSizeRange: BlockSizeRange{512, 8192}, RandomDistribution: Distribution{Kind: DistPareto, Param: 0.9}},
		{Name: "w", RW: Write, Rate: [3]int64{0, 3 << 20, 0}, Filename: `C:\x:y`, RateIOPS: [3]int{}},
		{Name: "t", RW: ReadWrite, RWMixRead: 100, Runtime: 1500 * time.Microsecond, RampTime: 90 * time.Minute, SS: DefaultSS},
		{Name: "s", SSDur: time.Minute, SS: DefaultSS, RandomDistribution: Distribution{Kind: DistNormal, Param: 12.5, Center: 0.1, HasCenter: true}},
		{Name: "[odd] name", Rate: [3]int64{1, 2, 0}, RateIOPS: [3]int{}},
		{Name: "u", Rate: [3]int64{5, 5, 0}},
		{Name: "v", RateIOPS: [3]int{0, 0, 9}},
	} {
		t.Run(j.Name, func(t *testing.T) {
			if err := ValidateJob(&j); err != nil {
				t.Fatal(err)
			}
			roundTrip(t, j)
		})
	}
}

// ParseJobs stands for fiojob.Parse with Config{Args: args}: package
// workload/fiojob imports this one, so this package's tests that read
// fio jobs reach it through ParseJobs, which hooks_test.go sets.
var ParseJobs func(r io.Reader, name string, args []string) ([]Job, *FioGiven, error)

// FormatJob stands for fiojob.Format, which prints a Job as a fio job
// file; hooks_test.go sets it too.
var FormatJob func(Job) string

// ValidateJob stands for validate.Job, which checks a Job from a package
// of its own that imports this one; hooks_test.go sets it too.
var ValidateJob func(*Job) error

// parseFile reads a job file's jobs with Parse.
func parseFile(r io.Reader, name string) ([]Job, error) {
	jobs, _, err := ParseJobs(r, name, nil)
	return jobs, err
}

// parseArgs reads a command line's jobs with Parse.
func parseArgs(args []string) ([]Job, error) {
	jobs, _, err := ParseJobs(nil, "", args)
	return jobs, err
}

// parseFileArgs reads a job file's jobs with a command line's options
// around it with Parse.
func parseFileArgs(r io.Reader, name string, args []string) ([]Job, error) {
	jobs, _, err := ParseJobs(r, name, args)
	return jobs, err
}

// roundTrip checks that Parse reads FormatJob(j) back to j.Normalized().
func roundTrip(t *testing.T, j Job) {
	t.Helper()
	s := FormatJob(j)
	got, err := parseFile(strings.NewReader(s), "string")
	if err != nil {
		t.Fatalf("parseFile(FormatJob()): %v\n%s", err, s)
	}
	if diff := cmp.Diff([]Job{j.Normalized()}, got); diff != "" {
		t.Errorf("round trip of\n%s(-want +got):\n%s", s, diff)
	}
}

// norm returns the jobs normalized.
func norm(js ...Job) []Job {
	for i := range js {
		js[i] = js[i].Normalized()
	}
	return js
}

// fioBinary is the installed fio; it skips the test without one.
func fioBinary(t *testing.T) string {
	return testenv.Fio(t, "the comparison with fio's own parser")
}
