package runner

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// parseFile reads a job file's jobs with fiojob.Parse.
func parseFile(r io.Reader, name string) ([]workload.Job, error) {
	jobs, _, err := fiojob.Parse(r, name, fiojob.Config{})
	return jobs, err
}

// parseArgs reads a command line's jobs with fiojob.Parse.
func parseArgs(args []string) ([]workload.Job, error) {
	jobs, _, err := fiojob.Parse(nil, "", fiojob.Config{Args: args})
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

// norm returns the jobs normalized.
func norm(js ...workload.Job) []workload.Job {
	for i := range js {
		js[i] = js[i].Normalized()
	}
	return js
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

// dupFraction is the share of 4 KiB blocks equal to an earlier one.
func dupFraction(data []byte) float64 {
	seen := map[[32]byte]bool{}
	dups := 0
	for i := 0; i+4096 <= len(data); i += 4096 {
		h := sha256.Sum256(data[i : i+4096])
		if seen[h] {
			dups++
		}
		seen[h] = true
	}
	return float64(dups) / float64(len(data)/4096)
}

// flateRatio is the DEFLATE-compressed size over the size.
func flateRatio(t *testing.T, data []byte) float64 {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, 6)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return float64(b.Len()) / float64(len(data))
}
