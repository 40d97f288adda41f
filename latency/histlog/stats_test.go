package histlog

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStats(t *testing.T) {
	lo := []float64{0, 1, 2, 4, 8}
	hi := []float64{1, 2, 4, 8, 16}
	tests := []struct {
		name            string
		counts          []float64
		first, last     int
		ps              []float64
		samples, mn, mx float64
		want            []float64
	}{
		{"interpolated inside buckets", []float64{0, 10, 30, 0, 0}, 0, 4, []float64{0, 25, 50, 100},
			40, 1, 4, []float64{1, 2, 2 + 2.0/3, 4}},
		{"unsorted percentiles", []float64{0, 10, 30, 0, 0}, 1, 2, []float64{100, 50, 0},
			40, 1, 4, []float64{4, 2 + 2.0/3, 1}},
		{"fractional counts", []float64{0.5, 0, 0, 0, 1.5}, 0, 4, []float64{50},
			2, 0, 16, []float64{8 + 8.0/3}},
		{"a gap between buckets", []float64{4, 0, 0, 0, 4}, 0, 4, []float64{50, 50.0001},
			8, 0, 16, []float64{1, 8 + 8*0.000008/4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]float64, len(tc.ps))
			s := newStats(tc.ps, lo, hi)
			n, mn, mx := s.compute(tc.counts, tc.first, tc.last, out)
			if diff := cmp.Diff([]float64{tc.samples, tc.mn, tc.mx}, []float64{n, mn, mx}, approx); diff != "" {
				t.Errorf("samples, min, max (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, out, approx); diff != "" {
				t.Errorf("percentiles (-want +got):\n%s", diff)
			}
		})
	}
	out := []float64{1}
	s := newStats([]float64{50}, lo, hi)
	if n, mn, mx := s.compute(make([]float64, 5), 5, 4, out); n != 0 || !math.IsNaN(mn) || !math.IsNaN(mx) || !math.IsNaN(out[0]) {
		t.Errorf("empty: %v %v %v %v, want 0 and NaNs", n, mn, mx, out)
	}
}
