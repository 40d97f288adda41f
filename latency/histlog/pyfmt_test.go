package histlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPyRepr(t *testing.T) {
	// Python 3.11: str(x) for each x.
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {123456789012345678, "1.2345678901234568e+17"},
		{499122.17599998415, "499122.17599998415"}, {0.0005759999999999999, "0.0005759999999999999"},
		{2.0 / 3, "0.6666666666666666"}, {1e300, "1e+300"}, {5e-324, "5e-324"}, {99.95, "99.95"},
	}
	for _, tc := range tests {
		if got := pyRepr(tc.x); got != tc.want {
			t.Errorf("pyRepr(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestPyPercentiles(t *testing.T) {
	// The tool's own unit test test_e1_get_pctiles_flat_histo: 128 equal
	// buckets of time_ranges(4, 32).
	rmin, rmax := make([]float64, 128), make([]float64, 128)
	var base, width float64 = 0, 1
	i := 0
	for g := range 4 {
		for range 32 {
			rmin[i], rmax[i] = base/1000, (base+width)/1000
			base += width
			i++
		}
		if g != 0 {
			width *= 2
		}
	}
	b := make([]float64, 128)
	for i := range b {
		b[i] = 100
	}
	out := make([]float64, 3)
	if !pyPercentiles(b, 0, 127, []float64{0, 50, 100}, rmin, rmax, out) {
		t.Fatal("no percentiles")
	}
	if diff := cmp.Diff([]float64{0, 0.064, 0.256}, out); diff != "" {
		t.Errorf("percentiles (-want +got):\n%s", diff)
	}
	if pyPercentiles(make([]float64, 128), 0, 127, []float64{50}, rmin, rmax, out) {
		t.Error("empty buckets gave percentiles")
	}
}
