package histlog

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var sentinels = []error{ErrSyntax, ErrNegative, ErrColumns, ErrDirection, ErrTimeBackwards, ErrLineTooLong}

// fuzzSeeds are rows of real and synthetic logs, cut short so the fuzzer
// works on small inputs, plus malformed rows.
func fuzzSeeds(f *testing.F) []string {
	b, err := os.ReadFile("testdata/fio/h_clat_hist.1.log")
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	seeds := []string{
		lines[0] + lines[1],
		strings.ReplaceAll(lines[0]+lines[1], "\n", "\r\n"),
		logRow(1000, Read, coarse(3, 7)...) + logRow(1000, Write, coarse(5, 1)...) + logRow(2000, Trim, coarse(1, 2)...),
		logRow(1700000000123, Read, coarse(3, 7)...) + logRow(1700000001123, Read, coarse(3, 7)...),
		strings.Replace(logRow(1000, Read, coarse(3, 7)...), "\n", ", \n", 1),
		logRow(1000, Read, make([]uint64, 19)...) + logRow(2000, Write, make([]uint64, 19)...),
		"1000, 0, 4096, 1, -2, 3\n",
		"1000, 3, 4096, 1\n",
		"2000, 0, 4096" + strings.Repeat(", 1", 29) + "\n1000, 0, 4096" + strings.Repeat(", 1", 29) + "\n",
		"1000, 0, 4096, 1, 2, ,\n",
		"99999999999999999999999, 0, 1, 2\n",
		"\n\n \r\n",
	}
	return seeds
}

// FuzzReader feeds the reader arbitrary bytes: it must never panic,
// every record must have the detected number of counts, and every error
// must be a *ParseError naming the file and a line, wrapping a sentinel.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add([]byte(s), uint8(0), uint8(0))
	}
	f.Add([]byte("1, 0, 1"+strings.Repeat(", 0", 152)+"\n"), uint8(2), uint8(19))
	f.Fuzz(func(t *testing.T, data []byte, version, groups uint8) {
		opt := ReaderOptions{FioVersion: []int{0, 2, 3}[version%3], Groups: int(groups % 64)}
		rd := NewReader(bytes.NewReader(data), "fuzz.log", opt)
		prev := 0
		var last [NumDirections]uint64
		for rd.Scan() {
			rec := rd.Record()
			if rec.Line <= prev || rec.Dir >= NumDirections || len(rec.Counts) != rd.Format().Columns() {
				t.Fatalf("record %+v after line %d, format %v", rec, prev, rd.Format())
			}
			if rec.Time < last[rec.Dir] {
				t.Fatalf("line %d: time went back", rec.Line)
			}
			prev, last[rec.Dir] = rec.Line, rec.Time
		}
		checkTwice(t, data, opt)
		err := rd.Err()
		if err == nil {
			return
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "fuzz.log" || pe.Line < 1 || pe.Line <= prev {
			t.Fatalf("error %v: want a *ParseError past line %d", err, prev)
		}
		found := false
		for _, s := range sentinels {
			found = found || errors.Is(err, s)
		}
		if !found {
			t.Fatalf("error %v wraps no sentinel", err)
		}
	})
}

// FuzzMerge merges two arbitrary logs both ways (native and as the
// Python tool): no panics, and errors carry the package prefix.
func FuzzMerge(f *testing.F) {
	seeds := fuzzSeeds(f)
	for i := range seeds {
		f.Add(seeds[i], seeds[(i+2)%len(seeds)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, knobs uint8) {
		inputs := []Input{memInput("a", a), streamInput("b", b)}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		q := time.Duration(1+knobs%3) * 500 * time.Millisecond
		check := func(err error) {
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !strings.HasPrefix(err.Error(), "histlog: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
		}
		forceWindow = int(knobs>>4) % 3
		defer func() { forceWindow = 0 }()
		_, err := Merge(ctx, inputs, Config{Quantum: q, ByInput: true}, NewCSVSink(&bytes.Buffer{}, Microsecond))
		check(err)
		check(FioPctiles(ctx, &bytes.Buffer{}, inputs, FioOptions{BucketGroups: 29, TimeQuantum: 1 + int(knobs%2)}))
	})
}

// checkTwice reads the first line of data twice: the first time through
// the general parser (the first row sets the column count), the second
// through the fast path. Both must agree on the row or on its error.
func checkTwice(t *testing.T, data []byte, opt ReaderOptions) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rd := NewReader(bytes.NewReader(append(append(append([]byte(nil), line...), '\n'), append(line, '\n')...)), "twice", opt)
	if !rd.Scan() {
		return
	}
	first := *rd.Record()
	first.Counts = append([]uint64(nil), first.Counts...)
	if !rd.Scan() {
		t.Fatalf("the row %q parsed once but not twice: %v", line, rd.Err())
	}
	second := rd.Record()
	if first.Time != second.Time || first.Dir != second.Dir || first.BlockSize != second.BlockSize ||
		first.nzLo != second.nzLo || first.nzHi != second.nzHi || !slices.Equal(first.Counts, second.Counts) {
		t.Fatalf("row %q: general %+v, fast %+v", line, first, *second)
	}
}
