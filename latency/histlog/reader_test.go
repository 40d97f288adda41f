package histlog

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/latency"
)

type gotRecord struct {
	Line   int
	Time   uint64
	Dir    Direction
	BS     uint64
	Counts []uint64
}

func readAll(t *testing.T, r io.Reader, opt ReaderOptions) ([]gotRecord, Format, error) {
	t.Helper()
	rd := NewReader(r, "test.log", opt)
	var out []gotRecord
	for rd.Scan() {
		rec := rd.Record()
		out = append(out, gotRecord{rec.Line, rec.Time, rec.Dir, rec.BlockSize, append([]uint64(nil), rec.Counts...)})
	}
	return out, rd.Format(), rd.Err()
}

func TestReaderAccepts(t *testing.T) {
	c1 := coarse(0, 5, 28, 7)
	c2 := coarse(3, 1)
	line := func(s string) string { return s }
	tests := []struct {
		name string
		in   string
		want []gotRecord
	}{
		{"fio's spacing", logRow(1000, Read, c1...) + logRow(1000, Write, c2...),
			[]gotRecord{{1, 1000, Read, 4096, c1}, {2, 1000, Write, 4096, c2}}},
		{"CRLF line ends", strings.ReplaceAll(logRow(1000, Read, c1...)+logRow(2000, Read, c2...), "\n", "\r\n"),
			[]gotRecord{{1, 1000, Read, 4096, c1}, {2, 2000, Read, 4096, c2}}},
		{"trailing separator", strings.Replace(logRow(5, Trim, c1...), "\n", ", \n", 1) + strings.Replace(logRow(6, Trim, c2...), "\n", ",\n", 1),
			[]gotRecord{{1, 5, Trim, 4096, c1}, {2, 6, Trim, 4096, c2}}},
		{"no spaces and tabs", strings.ReplaceAll(logRow(7, Write, c1...), ", ", ",") + strings.ReplaceAll(logRow(8, Write, c2...), ", ", " ,\t"),
			[]gotRecord{{1, 7, Write, 4096, c1}, {2, 8, Write, 4096, c2}}},
		{"blank lines count", "\n  \n" + logRow(1, Read, c1...) + "\r\n\n" + logRow(2, Read, c2...),
			[]gotRecord{{3, 1, Read, 4096, c1}, {6, 2, Read, 4096, c2}}},
		{"no final newline", strings.TrimSuffix(logRow(9, Read, c1...), "\n"),
			[]gotRecord{{1, 9, Read, 4096, c1}}},
		{"equal times in a direction", logRow(9, Read, c1...) + logRow(9, Read, c2...),
			[]gotRecord{{1, 9, Read, 4096, c1}, {2, 9, Read, 4096, c2}}},
		{"directions keep their own clocks", logRow(2000, Read, c1...) + logRow(1000, Write, c2...),
			[]gotRecord{{1, 2000, Read, 4096, c1}, {2, 1000, Write, 4096, c2}}},
		{"largest count", line(strings.Replace(logRow(1, Read, c2...), ", 1,", ", 18446744073709551615,", 1)),
			[]gotRecord{{1, 1, Read, 4096, coarse(3, 18446744073709551615)}}},
		{"empty input", "", nil},
		{"only blank lines", "\n\r\n \n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := readAll(t, strings.NewReader(tc.in), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	ok := logRow(1000, Read, coarse()...)
	tests := []struct {
		name     string
		in       string
		line     int
		column   int
		sentinel error
		text     string // in the message
	}{
		{"letters in a count", strings.Replace(ok, ", 0, 0, 0", ", 0, 1a, 0", 1), 1, 5, ErrSyntax, `"1a"`},
		{"negative count", strings.Replace(ok, ", 0, 0, 0", ", 0, -3, 0", 1), 1, 5, ErrNegative, `"-3"`},
		{"negative time", "-12" + ok[4:], 1, 1, ErrNegative, `"-12"`},
		{"fractional count", strings.Replace(ok, ", 0, 0, 0", ", 1.5, 0, 0", 1), 1, 4, ErrSyntax, `"1.5"`},
		{"empty field", strings.Replace(ok, ", 0, 0, 0", ", 0, , 0", 1), 1, 5, ErrSyntax, "empty field"},
		{"two trailing separators", strings.Replace(ok, "\n", ", ,\n", 1), 1, 33, ErrSyntax, "empty field"},
		{"space inside a number", strings.Replace(ok, ", 0, 0, 0", ", 1 2, 0, 0", 1), 1, 4, ErrSyntax, `"1 2"`},
		{"count out of range", strings.Replace(ok, ", 0, 0, 0", ", 18446744073709551616, 0, 0", 1), 1, 4, ErrSyntax, "out of range"},
		{"time not a number", "x" + ok[4:], 1, 1, ErrSyntax, `"x"`},
		{"fewer counts than the first row", ok + logRow(2000, Read, make([]uint64, 28)...), 2, 0, ErrColumns, "28 counts, want 29"},
		{"more counts than the first row", ok + logRow(2000, Read, make([]uint64, 31)...), 2, 0, ErrColumns, "31 counts, want 29"},
		{"too few fields", "0, 0\n", 1, 0, ErrColumns, "2 fields"},
		{"no counts", "1000, 0, 4096\n", 1, 0, ErrColumns, "3 fields"},
		{"undetectable column count", logRow(1000, Read, make([]uint64, 30)...), 1, 0, ErrColumns, "30 counts"},
		{"too many groups", logRow(1000, Read, make([]uint64, 64*59)...), 1, 0, ErrColumns, "3776 counts"},
		{"direction 3", strings.Replace(ok, ", 0, 4096", ", 3, 4096", 1), 1, 2, ErrDirection, "invalid direction 3"},
		{"time going back in a direction", logRow(2000, Write, coarse()...) + logRow(2500, Read, coarse()...) + logRow(1999, Write, coarse()...),
			3, 1, ErrTimeBackwards, "write row at 1999 ms after one at 2000 ms"},
		{"line numbers count blank and CRLF lines", "\r\n\n" + ok + "\r\n" + "1000, 0, 4096, z\r\n", 5, 4, ErrSyntax, `"z"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(t, strings.NewReader(tc.in), ReaderOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			got := [3]any{pe.File, pe.Line, pe.Column}
			if want := [3]any{"test.log", tc.line, tc.column}; got != want {
				t.Errorf("file, line, column = %v, want %v", got, want)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("error %v is not %v", err, tc.sentinel)
			}
			if !strings.Contains(err.Error(), tc.text) || !strings.HasPrefix(err.Error(), "histlog: test.log:") {
				t.Errorf("error %q: want the prefix histlog: test.log: and %q", err, tc.text)
			}
		})
	}
}

func TestReaderLongRowsInSmallReads(t *testing.T) {
	// 58 groups of 20-digit counts: 82 KB rows, past the initial buffer,
	// read one byte at a time.
	counts := make([]uint64, 64*58)
	for i := range counts {
		counts[i] = 18446744073709551615 - uint64(i)
	}
	in := logRow(1, Read, counts...) + logRow(2, Read, counts...)
	got, f, err := readAll(t, iotest.OneByteReader(strings.NewReader(in)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || f.Layout.Groups() != 58 || f.Coarseness != 0 {
		t.Fatalf("%d records of %v, want 2 of 58 groups", len(got), f)
	}
	if diff := cmp.Diff(counts, got[1].Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestReaderLineTooLong(t *testing.T) {
	in := "1, 0, 1, " + strings.Repeat("0", MaxLineBytes) + "\n"
	_, _, err := readAll(t, strings.NewReader(in), ReaderOptions{})
	var pe *ParseError
	if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("error %v: want ErrLineTooLong at line 1", err)
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := readAll(t, io.MultiReader(strings.NewReader(logRow(1, Read, coarse()...)), iotest.ErrReader(boom)), ReaderOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v: want the read error", err)
	}
}

func TestReaderAllocatesNothingPerRow(t *testing.T) {
	one := logRow(1000, Read, make([]uint64, 1856)...)
	rd := NewReader(strings.NewReader(strings.Repeat(one, 400)), "x", ReaderOptions{})
	rd.Scan()
	allocs := testing.AllocsPerRun(300, func() {
		if !rd.Scan() {
			t.Fatal(rd.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per row, want 0", allocs)
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		opt     ReaderOptions
		groups  int
		coarse  int
		version int
	}{
		{"fio 3", 1856, ReaderOptions{}, 29, 0, 3},
		{"fio 3 coarseness 1", 928, ReaderOptions{}, 29, 1, 3},
		{"fio 3 coarseness 4", 116, ReaderOptions{}, 29, 4, 3},
		{"fio 3 coarseness 6", 29, ReaderOptions{}, 29, 6, 3},
		{"fio 2", 1216, ReaderOptions{}, 19, 0, 2},
		{"fio 2 coarseness 3", 152, ReaderOptions{}, 19, 3, 2},
		{"fio 2 said", 608, ReaderOptions{FioVersion: 2}, 19, 1, 2},
		{"19 groups of nanoseconds", 1216, ReaderOptions{FioVersion: 3}, 19, 0, 3},
		{"36 groups", 2304, ReaderOptions{}, 36, 0, 3},
		{"58 groups", 3712, ReaderOptions{}, 58, 0, 3},
		{"36 groups coarseness 1 given the groups", 1152, ReaderOptions{Groups: 36}, 36, 1, 3},
		{"29 groups said", 464, ReaderOptions{Groups: 29, FioVersion: 3}, 29, 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := DetectFormat(tc.n, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]int{f.Layout.Groups(), f.Coarseness, f.FioVersion(), f.Columns()}
			if want := [4]int{tc.groups, tc.coarse, tc.version, tc.n}; got != want {
				t.Errorf("groups, coarseness, version, columns = %v, want %v", got, want)
			}
		})
	}
	for _, bad := range []struct {
		n   int
		opt ReaderOptions
	}{{0, ReaderOptions{}}, {100, ReaderOptions{}}, {64, ReaderOptions{}}, {1000, ReaderOptions{Groups: 29}},
		{1856, ReaderOptions{Groups: 29 * 128}}, {14, ReaderOptions{Groups: 29}}, {1856, ReaderOptions{FioVersion: 4}}} {
		if f, err := DetectFormat(bad.n, bad.opt); err == nil {
			t.Errorf("DetectFormat(%d, %+v) = %v, want an error", bad.n, bad.opt, f)
		}
	}
}

func TestFormatBounds(t *testing.T) {
	tests := []struct {
		name   string
		f      Format
		col    int
		lo, hi uint64
	}{
		{"exact bucket", FioFormat, 5, 5, 6},
		{"third group", FioFormat, 128, 128, 130},
		{"last bucket", FioFormat, 1855, 17045651456, 17179869184},
		{"coarseness 1 in the first group", Format{Layout: latency.FioLayout, Coarseness: 1, Unit: 1}, 3, 6, 8},
		{"coarseness 1 in the third group", Format{Layout: latency.FioLayout, Coarseness: 1, Unit: 1}, 64, 128, 132},
		{"coarseness 6: a whole group", Format{Layout: latency.FioLayout, Coarseness: 6, Unit: 1}, 3, 256, 512},
		{"fio 2 microseconds", Format{Layout: latency.MustLayout(19), Unit: 1000}, 128, 128000, 130000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := tc.f.Bounds(tc.col)
			if lo != tc.lo || hi != tc.hi {
				t.Errorf("Bounds(%d) = [%d, %d), want [%d, %d)", tc.col, lo, hi, tc.lo, tc.hi)
			}
		})
	}
}
