package history

import (
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of SplitConfig's zero fields.
const (
	// DefaultAlpha is the significance level a change point must reach:
	// Otava's default p-value threshold. A history of 60 unchanged runs
	// then reports a change in under 1% of histories (the acceptance test
	// measures it over 100 seeds), while a 20% step in 5% noise has a p
	// far below it.
	DefaultAlpha = 0.001
	// DefaultMinSize is the fewest runs a segment may hold: three, so
	// that one odd run is not a segment of its own and the last runs
	// must agree before the history says the device changed.
	DefaultMinSize = 3
)

// roundingRel is the relative difference within which two values are
// one figure rounded differently: 2^-32 (2.3e-10, 2^20 units in the last
// place), above the rounding of a mean summed in float64 over a million
// figures in any order ((n-1)·2^-53 of the sum for n terms), far below
// any change a storage device shows.
const roundingRel = 0x1p-32

// SplitConfig configures Split. The zero value is the defaults.
type SplitConfig struct {
	// Alpha is the two-sided p-value below which a candidate is a change
	// point; 0 means DefaultAlpha.
	Alpha float64
	// MinSize is the fewest points of a segment; 0 means DefaultMinSize,
	// and it is at least 2 (a t-test needs a variance).
	MinSize int
	// MinChange is the smallest change of the segments' means that counts,
	// in the series' units (for Changes' log values, log(1.02) is 2%): on
	// a history of thousands of runs a shift far below any tolerance is
	// significant. 0 keeps every significant change (Otava's
	// min_magnitude, as a difference of logs).
	MinChange float64
	// Resolution is the smallest difference of values that is more than
	// rounding, in the series' units; it is at least 2^-32 of the
	// largest magnitude of the values compared, which 0 leaves it at.
	// Segments whose means differ by no more than it do not differ, and
	// a spread below it counts as it: runs that differ by rounding alone
	// (the same baseline added again, a mean summed in another order)
	// have means an ulp apart over a variance of an ulp², which
	// Student's t finds significant, and more so the more runs agree.
	// Changes sets it to 2^-32 for its log values, the rounding of the
	// values themselves, which the log of a value near 1 cannot show.
	Resolution float64
}

// resolution is the Resolution for values of magnitude up to scale.
func (c SplitConfig) resolution(scale float64) float64 {
	return max(c.Resolution, roundingRel*scale)
}

func (c SplitConfig) withDefaults() SplitConfig {
	if !(c.Alpha > 0 && c.Alpha < 1) {
		c.Alpha = DefaultAlpha
	}
	if c.MinSize <= 0 {
		c.MinSize = DefaultMinSize
	}
	c.MinSize = max(c.MinSize, 2)
	return c
}

// Split is one change point of a series: the index of the first point
// of the new segment, the divergence that chose it and the test that
// kept it.
type Split struct {
	Index int     // first point after the change
	Q     float64 // E-divisive divergence Q̂ of the two sides at the split
	P     float64 // two-sided p-value of Student's t between the neighbouring segments
	T     float64 // the t statistic (positive: the values rose)
}

// Split finds the change points of xs with E-divisive means (Matteson
// and James, 2014, with α = 1) and Student's t-test in place of their
// permutation test (as Hunter and Apache Otava do, which makes the result
// deterministic and cheap).
//
// Ties are exact: the distances are summed from each point's difference
// to the segment's least value, so that identical values are all at
// distance 0 and Q̂ is 0, and a segment whose Q̂ is nowhere above 0 has
// no candidate. Student's t is taken beyond Resolution (see there), so
// that values which differ by rounding alone have no change point, and a
// side without spread (ties: a percentile that stayed in one histogram
// bin) lends the pooled variance no degrees of freedom.
//
// For a segment Z[s:e), the candidate split τ maximises
//
//	Q̂(τ) = m·k/(m+k) · ( 2/(m·k)·Σ|x-y| − Σ|x-x'|/C(m,2) − Σ|y-y'|/C(k,2) )
//
// over the m = τ-s points x before τ and the k = e-τ points y from τ on
// (between-segment distances against the within-segment ones). The
// within sums of every prefix and suffix come from one pass each over a
// Fenwick tree of ranks (adding a point adds its distances to the points
// already in: count and sum of those below and above it), and the
// between sum is the whole segment's within sum minus the two sides', so
// a scan of n points costs O(n log n) rather than the O(n²) of the
// recurrences over a distance matrix. The end of the right side is the
// segment's end: Matteson and James also search it (κ), which costs
// another factor of n; the hierarchical splitting below, and the
// re-test of every change point against its neighbours, recover what a
// tail muddies.
//
// The candidate is a change point when Student's t between the two
// sides has p < Alpha; then both sides are split in turn. Finally, as
// Otava does with its weak change points, every change point is tested
// again against the segments between its neighbours, and the weakest one
// above Alpha is dropped until all hold. NaN values are not allowed; xs
// is not modified. The result is ordered by Index.
func (c SplitConfig) Split(xs []float64) []Split {
	c = c.withDefaults()
	if len(xs) < 2*c.MinSize {
		return nil
	}
	var s splitter
	s.init(xs)
	var cps []int
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		tau, _ := s.best(lo, hi, c.MinSize)
		if tau < 0 {
			return
		}
		if !c.holds(xs[lo:tau], xs[tau:hi]) {
			return
		}
		cps = append(cps, tau)
		walk(lo, tau)
		walk(tau, hi)
	}
	walk(0, len(xs))
	slices.Sort(cps)
	// Re-test each against its neighbours; drop the weakest failing.
	for {
		worst, worstP := -1, 0.0
		for i, cp := range cps {
			lo, hi := segment(cps, i, len(xs))
			if _, p := c.tTest(xs[lo:cp], xs[cp:hi]); !c.holds(xs[lo:cp], xs[cp:hi]) && (worst < 0 || p > worstP) {
				worst, worstP = i, p
			}
		}
		if worst < 0 {
			break
		}
		cps = slices.Delete(cps, worst, worst+1)
	}
	out := make([]Split, len(cps))
	for i, cp := range cps {
		lo, hi := segment(cps, i, len(xs))
		t, p := c.tTest(xs[lo:cp], xs[cp:hi])
		out[i] = Split{Index: cp, Q: s.q(lo, hi, cp), P: p, T: t}
	}
	return out
}

// segment returns the segment [lo, hi) of n points that change point
// cps[i] splits: from the change point before it (or 0) to the one after
// it (or n). The re-test of each change point and the Split it yields
// read the same segment.
func segment(cps []int, i, n int) (lo, hi int) {
	lo, hi = 0, n
	if i > 0 {
		lo = cps[i-1]
	}
	if i+1 < len(cps) {
		hi = cps[i+1]
	}
	return lo, hi
}

// holds reports whether a and b differ: Student's t with p < Alpha, by
// at least MinChange.
func (c SplitConfig) holds(a, b []float64) bool {
	if _, p := c.tTest(a, b); !(p < c.Alpha) {
		return false
	}
	if c.MinChange > 0 {
		ma, _ := meanVar(a)
		mb, _ := meanVar(b)
		return math.Abs(mb-ma) >= c.MinChange
	}
	return true
}

// splitter holds the scratch space of the scans, reused across segments.
type splitter struct {
	xs          []float64
	all         []int     // indices of the whole series by value
	order       []int     // indices of a segment by value
	rank        []int     // rank of each point of the segment
	cnt         []float64 // Fenwick tree of counts by rank
	sum         []float64 // Fenwick tree of values by rank
	pre, suf    []float64 // within sums of each prefix and suffix
	least       float64   // the segment's least value, subtracted from each
	segLo, segN int       // the segment the ranks and sums are for
}

func (s *splitter) init(xs []float64) {
	n := len(xs)
	s.xs = xs
	s.all = make([]int, n)
	for i := range s.all {
		s.all[i] = i
	}
	sortByValue(s.all, xs)
	s.order = make([]int, n)
	s.rank = make([]int, n)
	s.cnt = make([]float64, n+1)
	s.sum = make([]float64, n+1)
	s.pre = make([]float64, n+1)
	s.suf = make([]float64, n+1)
	s.segN = -1
}

// sortByValue sorts indices into xs by value, ties by index.
func sortByValue(idx []int, xs []float64) {
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return a - b
	})
}

// prepare computes, for xs[lo:hi], the within sums of every prefix
// (pre[m]: the first m points) and suffix (suf[k]: the last k points).
func (s *splitter) prepare(lo, hi int) {
	if s.segLo == lo && s.segN == hi-lo {
		return
	}
	n := hi - lo
	seg := s.xs[lo:hi]
	if n*bits.Len(uint(n)) > len(s.xs) {
		// Cheaper to filter the whole series' order than to sort.
		r := 0
		for _, i := range s.all {
			if i >= lo && i < hi {
				if r == 0 {
					s.least = s.xs[i]
				}
				r++
				s.rank[i-lo] = r // Fenwick trees count from 1
			}
		}
	} else {
		order := s.order[:n]
		for i := range order {
			order[i] = i
		}
		sortByValue(order, seg)
		for r, i := range order {
			s.rank[i] = r + 1
		}
		s.least = seg[order[0]]
	}
	s.scan(seg, s.pre[:n+1], func(i int) int { return i })
	s.scan(seg, s.suf[:n+1], func(i int) int { return n - 1 - i })
	s.segLo, s.segN = lo, n
}

// scan adds the points of seg in the order at(0), at(1)... and records
// in out[j] the within sum of the first j added. It sums each point's
// excess over the segment's least value, which the distances do not
// change: tied values add exactly 0, where their own sums would leave
// rounding that makes Q̂ of identical values pick a split at random.
func (s *splitter) scan(seg []float64, out []float64, at func(int) int) {
	n := len(seg)
	clear(s.cnt[:n+1])
	clear(s.sum[:n+1])
	var total, w float64
	for j := range n {
		i := at(j)
		x, r := seg[i]-s.least, s.rank[i]
		var cLess, sLess float64
		for k := r - 1; k > 0; k -= k & -k {
			cLess += s.cnt[k]
			sLess += s.sum[k]
		}
		cMore, sMore := float64(j)-cLess, total-sLess
		w += x*cLess - sLess + sMore - x*cMore
		out[j+1] = w
		for k := r; k <= n; k += k & -k {
			s.cnt[k]++
			s.sum[k] += x
		}
		total += x
	}
	out[0] = 0
}

// q is Q̂ of the split of xs[lo:hi] at tau.
func (s *splitter) q(lo, hi, tau int) float64 {
	s.prepare(lo, hi)
	n := hi - lo
	return qhat(tau-lo, n-(tau-lo), s.pre[tau-lo], s.suf[n-(tau-lo)], s.pre[n])
}

// best returns the split of xs[lo:hi] with the largest Q̂ leaving at
// least minSize points on each side, or -1 when there is none or no Q̂
// is above 0 (the sides are no farther apart than within: identical
// values have Q̂ 0 everywhere).
func (s *splitter) best(lo, hi, minSize int) (int, float64) {
	n := hi - lo
	if n < 2*minSize {
		return -1, 0
	}
	s.prepare(lo, hi)
	bestTau, bestQ := -1, math.Inf(-1)
	for m := minSize; m <= n-minSize; m++ {
		if q := qhat(m, n-m, s.pre[m], s.suf[n-m], s.pre[n]); q > bestQ {
			bestTau, bestQ = lo+m, q
		}
	}
	if !(bestQ > 0) {
		return -1, 0
	}
	return bestTau, bestQ
}

// qhat is Q̂ for sides of m and k points with within sums wl and wr and
// whole-segment within sum w (the between sum is w-wl-wr).
func qhat(m, k int, wl, wr, w float64) float64 {
	fm, fk := float64(m), float64(k)
	between := w - wl - wr
	e := 2 * between / (fm * fk)
	if m > 1 {
		e -= wl / (fm * (fm - 1) / 2)
	}
	if k > 1 {
		e -= wr / (fk * (fk - 1) / 2)
	}
	return fm * fk / (fm + fk) * e
}

// tTest is Student's two-sample t-test with pooled variance: t (positive
// when b's mean is above a's) and its two-sided p-value, both of the
// difference beyond the resolution. Means that differ by no more than
// the resolution give t = 0 and p = 1; a pooled spread below it counts
// as the resolution, so constant sides that differ by more give a t as
// large as the difference says and p near 0. When one side has spread
// and the other none, the variance is the first's alone.
func (c SplitConfig) tTest(a, b []float64) (t, p float64) {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	df := na + nb - 2
	if df < 1 {
		return 0, 1
	}
	res := c.resolution(max(maxAbs(a), maxAbs(b)))
	d := mb - ma
	beyond := math.Abs(d) - res
	if !(beyond > 0) { // NaN or ±Inf values included
		return 0, 1
	}
	// A side without spread (within the resolution) is ties, not a
	// measure of small noise: a figure of few values (a percentile's
	// histogram bin) is constant over a few runs by chance, and the
	// search picks the split that makes a side so. Its degrees of freedom
	// would dilute the other side's variance; the spread is that side's.
	var pooled float64
	switch spreadA, spreadB := va > res*res, vb > res*res; {
	case spreadA == spreadB:
		pooled = ((na-1)*va + (nb-1)*vb) / df
	case spreadA:
		pooled, df = va, na-1
	default:
		pooled, df = vb, nb-1
	}
	pooled = max(pooled, res*res)
	se := math.Sqrt(pooled * (1/na + 1/nb))
	if se == 0 || math.IsNaN(se) {
		return math.Copysign(math.Inf(1), d), 0
	}
	t = math.Copysign(beyond/se, d)
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return t, p
}

// meanVar returns the mean and the sample variance (n-1) of xs. It sums
// the differences from the first value, corrected by their own sum, so
// that identical values have exactly their value as mean and 0 as
// variance, and values an ulp apart a variance of ulps², not of the
// rounding of a sum of the values themselves.
func meanVar(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(len(xs))
	ref := xs[0]
	var s float64
	for _, x := range xs {
		s += x - ref
	}
	mean = ref + s/n
	if math.IsInf(s, 0) { // differences beyond float64's range
		mean = 0
		for _, x := range xs {
			mean += x / n
		}
	}
	if len(xs) < 2 {
		return mean, 0
	}
	var ss, c float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
		c += d
	}
	return mean, max(ss-c*c/n, 0) / (n - 1)
}

// maxAbs is the largest magnitude in xs.
func maxAbs(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	return m
}
