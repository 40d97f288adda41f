package steady

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadSamples(t *testing.T) {
	in := "# iops per second\n1000\n\n  1001 \n1002.9\n1e3\n0\n"
	type got struct {
		line int
		v    uint64
	}
	var gs []got
	err := ReadSamples(strings.NewReader(in), "in", func(line int, v uint64) error {
		gs = append(gs, got{line, v})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{2, 1000}, {4, 1001}, {5, 1002}, {6, 1000}, {7, 0}}
	if diff := cmp.Diff(want, gs, cmp.AllowUnexported(got{})); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestReadSamplesErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"word", "1\n2\nthree\n", "steady: in line 3: bad sample \"three\": want a number"},
		{"negative", "1\n-2\n", "line 2: bad sample \"-2\": want a number >= 0"},
		{"two columns", "1 2\n", "line 1: bad sample \"1 2\": want one number per line"},
		{"csv", "1,2\n", "want one number per line"},
		{"nan", "NaN\n", "line 1: bad sample \"NaN\": want a number"},
		{"inf", "\n+Inf\n", "line 2: bad sample \"+Inf\": want a number"},
		{"huge", "1e300\n", "line 1: bad sample \"1e300\": too large"},
		{"long line", "1\n" + strings.Repeat("9", maxLine+1), "line 2: longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ReadSamples(strings.NewReader(tt.in), "in", func(int, uint64) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// Errors of the callback carry the line; read errors say where.
	stop := errors.New("enough")
	err := ReadSamples(strings.NewReader("1\n2\n"), "in", func(line int, _ uint64) error {
		if line == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("callback error: %v", err)
	}
	err = ReadSamples(io.MultiReader(strings.NewReader("1\n"), errReader{}), "in", func(int, uint64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "read in after line 1") {
		t.Errorf("read error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }
