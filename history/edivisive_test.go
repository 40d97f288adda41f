package history

import (
	"fmt"
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

// ulps returns x moved k units in the last place (k may be negative).
func ulps(x float64, k int) float64 {
	for ; k > 0; k-- {
		x = math.Nextafter(x, math.Inf(1))
	}
	for ; k < 0; k++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}

// Series whose values differ by rounding alone have no change point:
// identical values (every distance 0, Q̂ 0, both sides' variance 0, so
// a mean summed from them must not differ by an ulp and make t huge),
// values a few ulps apart, constant segments an ulp apart, and the same
// mean summed in different orders. Each at several magnitudes and at
// 60 and 400 points, the lengths of the histories that showed it.
func TestSplitRoundingIsNoChange(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type series struct {
		name string
		xs   []float64
		zero bool // values about 0, ulps apart
	}
	var cases []series
	for _, n := range []int{60, 400} {
		for _, v := range []float64{math.Log(138553.46), math.Log(224076.6), 11.8, 0.1, 1e-9, 3e12, -7.3, 0} {
			same := make([]float64, n)
			jitter := make([]float64, n)
			steps := make([]float64, n)
			for i := range same {
				same[i] = v
				jitter[i] = ulps(v, r.IntN(9)-4)
				steps[i] = v
				if i >= n/3 {
					steps[i] = ulps(v, 1)
				}
				if i >= 2*n/3 {
					steps[i] = ulps(v, 3)
				}
			}
			cases = append(cases,
				series{fmt.Sprintf("identical %v n=%d", v, n), same, false},
				series{fmt.Sprintf("±4 ulps %v n=%d", v, n), jitter, v == 0},
				series{fmt.Sprintf("constant segments ulps apart %v n=%d", v, n), steps, v == 0})
		}
		// A mean latency in ns summed from 65536 I/Os in a different
		// order each run: the same figure up to the sums' rounding.
		lat := make([]float64, 1<<16)
		for i := range lat {
			lat[i] = 20e3 + 1e5*r.ExpFloat64()
		}
		sums := make([]float64, n)
		for i := range sums {
			r.Shuffle(len(lat), func(a, b int) { lat[a], lat[b] = lat[b], lat[a] })
			var s float64
			for _, x := range lat {
				s += x
			}
			sums[i] = math.Log(s / float64(len(lat)))
		}
		cases = append(cases, series{fmt.Sprintf("mean summed in shuffled orders n=%d", n), sums, false})
	}
	for _, c := range cases {
		for _, cfg := range []SplitConfig{{}, {Alpha: 0.5}, {MinSize: 2}, {Resolution: roundingRel}} {
			if c.zero && cfg.Resolution == 0 {
				// Near 0 the values' own magnitude says nothing of
				// their rounding: the caller's Resolution does.
				continue
			}
			if got := cfg.Split(c.xs); len(got) != 0 {
				t.Errorf("%s, %+v: change points %+v, want none", c.name, cfg, got)
			}
		}
	}
}

// Identical values are all at distance 0: Q̂ is exactly 0 at every
// split, so no split is a candidate, and Student's t says p = 1.
func TestSplitTiesExact(t *testing.T) {
	xs := make([]float64, 400)
	for i := range xs {
		xs[i] = math.Log(138553.46)
	}
	var s splitter
	s.init(xs)
	for tau := 1; tau < len(xs); tau++ {
		if q := s.q(0, len(xs), tau); q != 0 {
			t.Fatalf("Q̂ at %d = %g, want exactly 0", tau, q)
		}
	}
	if tau, q := s.best(0, len(xs), DefaultMinSize); tau >= 0 {
		t.Errorf("best split %d (Q̂ %g) of identical values, want none", tau, q)
	}
	for _, n := range []int{3, 7, 60, 197, 400} {
		if m, v := meanVar(xs[:n]); m != xs[0] || v != 0 {
			t.Errorf("mean and variance of %d identical values: %v, %v, want %v, 0", n, m, v, xs[0])
		}
		if tt, p := (SplitConfig{}).tTest(xs[:n], xs[n:]); p != 1 || tt != 0 {
			t.Errorf("t-test of identical sides %d and %d long: t %v p %v, want 0 and 1", n, len(xs)-n, tt, p)
		}
	}
}

// A real step is still found however small the noise: between constant
// segments (no variance at all), between segments tied on few values,
// and a step of a millionth between constant segments, far above
// rounding.
func TestSplitFindsStepsWithoutNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	mk := func(n, at int, f func(i int, after bool) float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = f(i, i >= at)
		}
		return xs
	}
	level := func(before, after float64) func(int, bool) float64 {
		return func(_ int, a bool) float64 {
			if a {
				return after
			}
			return before
		}
	}
	cases := []struct {
		name string
		xs   []float64
		want int
	}{
		{"constant 296960 -> 329728", mk(60, 40, level(296960, 329728)), 40},
		{"log constant 296960 -> 329728", mk(60, 40, level(math.Log(296960), math.Log(329728))), 40},
		{"constant step of a millionth", mk(60, 20, level(math.Log(138553.46), math.Log(138553.46*(1+1e-6)))), 20},
		{"constant 400 runs", mk(400, 250, level(1, 2)), 250},
		{"constant, then mostly the next bin", mk(60, 40, func(_ int, a bool) float64 {
			if a && r.IntN(10) > 0 {
				return math.Log(301056)
			}
			return math.Log(296960)
		}), 40},
		{"constant, then the next bin but one run", mk(60, 40, func(i int, a bool) float64 {
			if a && i != 50 {
				return math.Log(301056)
			}
			return math.Log(296960)
		}), 40},
		{"two tied values, their mix shifts", mk(60, 30, func(_ int, a bool) float64 {
			// p99 from a histogram: one of two bins, the upper one
			// mostly after the step.
			p := 0.1
			if a {
				p = 0.9
			}
			if r.Float64() < p {
				return math.Log(301056)
			}
			return math.Log(296960)
		}), 30},
	}
	for _, c := range cases {
		got := SplitConfig{}.Split(c.xs)
		if len(got) != 1 || abs(got[0].Index-c.want) > 2 || !(got[0].P < DefaultAlpha) {
			t.Errorf("%s: change points %+v, want one at %d", c.name, got, c.want)
		}
	}
}

// Integer figures with few distinct values (percentiles from histogram
// bins) tie heavily; without a change they must not give change points
// more often than Gaussian noise does (the search picks the best split
// of each segment, so more than alpha of those), series of one value but
// for a rare run included, whose segments are often constant: such a
// side's zero variance is ties, not small noise.
func TestSplitHeavyTiesNoFalseChange(t *testing.T) {
	const trials, n = 2000, 60
	bins := []float64{math.Log(296960), math.Log(301056), math.Log(305152)}
	kinds := []struct {
		name string
		gen  func(r *rand.Rand) float64
	}{
		{"gaussian", func(r *rand.Rand) float64 { return bins[0] + 0.01*r.NormFloat64() }},
		{"three bins", func(r *rand.Rand) float64 { return bins[r.IntN(3)] }},
		{"two bins", func(r *rand.Rand) float64 { return bins[r.IntN(2)] }},
		{"the next bin 1 run in 30", func(r *rand.Rand) float64 { return bins[min(r.IntN(30), 1)] }},
		{"the next bin 1 run in 100", func(r *rand.Rand) float64 { return bins[min(r.IntN(100), 1)] }},
		{"the next bin 1 run in 300", func(r *rand.Rand) float64 { return bins[min(r.IntN(300), 1)] }},
	}
	falses := make([]int, len(kinds))
	for k, kind := range kinds {
		r := rand.New(rand.NewPCG(9, uint64(k)))
		xs := make([]float64, n)
		for range trials {
			for i := range xs {
				xs[i] = kind.gen(r)
			}
			if len(SplitConfig{}.Split(xs)) > 0 {
				falses[k]++
			}
		}
		t.Logf("%s: a change point in %d of %d unchanged series", kind.name, falses[k], trials)
	}
	// No more often than Gaussian noise, give or take the count's own
	// sampling error (about √35 of 35).
	ref := falses[0]
	for k, kind := range kinds[1:] {
		if falses[k+1] > ref*5/4 {
			t.Errorf("%s: change points in %d of %d unchanged series, Gaussian noise %d: want no more", kind.name, falses[k+1], trials, ref)
		}
	}
}
