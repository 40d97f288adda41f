package history

import (
	"math"
	"math/rand/v2"
	"testing"
)

// qBrute is Q̂ straight from its definition.
func qBrute(xs []float64, tau int) float64 {
	x, y := xs[:tau], xs[tau:]
	m, k := float64(len(x)), float64(len(y))
	var between, wx, wy float64
	for _, a := range x {
		for _, b := range y {
			between += math.Abs(a - b)
		}
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			wx += math.Abs(x[i] - x[j])
		}
	}
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			wy += math.Abs(y[i] - y[j])
		}
	}
	e := 2 * between / (m * k)
	if m > 1 {
		e -= wx / (m * (m - 1) / 2)
	}
	if k > 1 {
		e -= wy / (k * (k - 1) / 2)
	}
	return m * k / (m + k) * e
}

// The O(n log n) scan computes the same Q̂ as the definition, ties
// included, for every split of segments anywhere in a series.
func TestQhatMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 2 + r.IntN(40)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Round(r.NormFloat64()*3) / 2 // ties on purpose
			if i > n/2 {
				xs[i] += float64(trial % 3)
			}
		}
		var s splitter
		s.init(xs)
		lo := r.IntN(n - 1)
		hi := lo + 2 + r.IntN(n-lo-1)
		for tau := lo + 1; tau < hi; tau++ {
			got, want := s.q(lo, hi, tau), qBrute(xs[lo:hi], tau-lo)
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("trial %d: Q(%d:%d at %d) = %v, want %v", trial, lo, hi, tau, got, want)
			}
		}
	}
}

func TestSplitFindsSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 300)
	for i := range xs {
		level := 0.0
		switch {
		case i >= 200:
			level = 0.5
		case i >= 100:
			level = 0.2
		}
		xs[i] = level + 0.05*r.NormFloat64()
	}
	got := SplitConfig{}.Split(xs)
	if len(got) != 2 || abs(got[0].Index-100) > 1 || abs(got[1].Index-200) > 1 {
		t.Fatalf("splits %+v, want near 100 and 200", got)
	}
	for _, s := range got {
		if !(s.T > 0) || !(s.P < DefaultAlpha) || !(s.Q > 0) {
			t.Errorf("split %+v: want a rise with p < %v", s, DefaultAlpha)
		}
	}
}

func TestSplitEdges(t *testing.T) {
	cases := []struct {
		name string
		xs   []float64
		want []int
	}{
		{"empty", nil, nil},
		{"short", []float64{1, 2, 3, 4, 5}, nil},
		{"constant", []float64{7, 7, 7, 7, 7, 7, 7, 7}, nil},
		{"constant step", []float64{1, 1, 1, 1, 2, 2, 2, 2}, []int{4}},
		{"step at the last allowed run", []float64{1, 1.01, 0.99, 1, 1.02, 0.98, 1, 2, 2.01, 1.99}, []int{7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SplitConfig{}.Split(c.xs)
			var idx []int
			for _, s := range got {
				idx = append(idx, s.Index)
			}
			if len(idx) != len(c.want) {
				t.Fatalf("got %v, want %v", idx, c.want)
			}
			for i := range idx {
				if idx[i] != c.want[i] {
					t.Fatalf("got %v, want %v", idx, c.want)
				}
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FuzzSplit: any series gives ordered change points inside it, each
// segment at least MinSize long, with p below Alpha, never a panic.
func FuzzSplit(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 200, 201, 202, 203, 204, 205}, uint8(3))
	f.Add([]byte{7, 7, 7, 7, 7, 7, 7, 7}, uint8(2))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, minSize uint8) {
		xs := make([]float64, len(data))
		for i, b := range data {
			xs[i] = float64(b) / 8
		}
		cfg := SplitConfig{MinSize: int(minSize % 8)}
		got := cfg.Split(xs)
		c := cfg.withDefaults()
		prev := 0
		for _, s := range got {
			if s.Index-prev < c.MinSize || !(s.P < c.Alpha) {
				t.Fatalf("split %+v after %d: segment below %d runs or p not below %v", s, prev, c.MinSize, c.Alpha)
			}
			prev = s.Index
		}
		if len(got) > 0 && len(xs)-prev < c.MinSize {
			t.Fatalf("last segment from %d of %d: below %d runs", prev, len(xs), c.MinSize)
		}
	})
}
