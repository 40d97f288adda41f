// Package jobtest holds what the tests of workload's sub-packages share:
// reading fio jobs with fiojob.Parse and back from fiojob.Format, walking
// decoded JSON, and measures of written data (running fio on a job file
// is internal/testenv's FioOn). Only tests import it.
//
// It does not import "testing" (nothing below the test API does; see
// internal/lint): its helpers take a TB, the part of testing.TB they use.
package jobtest

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"io"
	"strings"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// TB is the part of testing.TB that jobtest uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ParseFile reads a job file's jobs with fiojob.Parse.
func ParseFile(r io.Reader, name string) ([]workload.Job, error) {
	jobs, _, err := fiojob.Parse(r, name, fiojob.Config{})
	return jobs, err
}

// ParseArgs reads a command line's jobs with fiojob.Parse.
func ParseArgs(args []string) ([]workload.Job, error) {
	jobs, _, err := fiojob.Parse(nil, "", fiojob.Config{Args: args})
	return jobs, err
}

// RoundTrip checks that fiojob.Parse reads fiojob.Format(j) back to
// j.Normalized(): it stops the test (FailNow) when the text does not
// parse, and reports a difference and continues.
func RoundTrip(t TB, j workload.Job) {
	t.Helper()
	s := fiojob.Format(j)
	got, err := ParseFile(strings.NewReader(s), "string")
	if err != nil {
		t.Fatalf("parseFile(fiojob.Format()): %v\n%s", err, s)
	}
	if diff := cmp.Diff([]workload.Job{j.Normalized()}, got); diff != "" {
		t.Errorf("round trip of\n%s(-want +got):\n%s", s, diff)
	}
}

// RoundTripJob returns j as fiojob.Parse reads back what fiojob.Format(j)
// prints (after the job j waits for, if any); it stops the test
// (FailNow) when that does not parse.
func RoundTripJob(t TB, j workload.Job) workload.Job {
	t.Helper()
	text := fiojob.Format(j)
	if j.WaitFor != "" {
		text = "[" + j.WaitFor + "]\n" + text
	}
	back, err := ParseFile(strings.NewReader(text), "back.fio")
	if err != nil {
		t.Fatalf("%s: %v\n%s", j.Name, err, text)
	}
	return back[len(back)-1]
}

// Norm returns the jobs normalized.
func Norm(js ...workload.Job) []workload.Job {
	for i := range js {
		js[i] = js[i].Normalized()
	}
	return js
}

// At walks a decoded JSON document: a key for an object, "0", "1"... for
// an array. It returns nil where the path leads nowhere.
func At(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = 10*i + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// DupFraction is the share of 4 KiB blocks equal to an earlier one.
func DupFraction(data []byte) float64 {
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

// FlateRatio is the DEFLATE-compressed size over the size; it stops the
// test (FailNow) when the compressor fails.
func FlateRatio(t TB, data []byte) float64 {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, 6)
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatalf("flate: %v", err)
	}
	return float64(b.Len()) / float64(len(data))
}
