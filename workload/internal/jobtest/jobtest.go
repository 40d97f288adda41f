// Package jobtest holds what the tests of workload's sub-packages share:
// reading fio jobs with fiojob.Parse, walking decoded JSON, and measures
// of written data. Only tests import it.
package jobtest

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"io"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

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

// FlateRatio is the DEFLATE-compressed size over the size.
func FlateRatio(data []byte) (float64, error) {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, 6)
	if err != nil {
		return 0, err
	}
	if _, err := w.Write(data); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return float64(b.Len()) / float64(len(data)), nil
}
