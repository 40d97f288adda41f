package histlog

import (
	"math"
	"sort"
)

// stats computes Merge's figures over summed fractional counts.
type stats struct {
	ps     []float64
	order  []int // indices of ps, ascending
	lo, hi []float64
}

func newStats(ps, lo, hi []float64) *stats {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	return &stats{ps: ps, order: order, lo: lo, hi: hi}
}

// compute returns the completions, min and max of counts b (non-zero
// only within [first, last]) and writes the percentiles into out: the
// rank p/100*total falls in the first bucket whose running total reaches
// it, at the position interpolated linearly between the bucket's bounds.
// Without completions every figure is NaN and samples 0.
func (s *stats) compute(b []float64, first, last int, out []float64) (samples, lo, hi float64) {
	total := 0.0
	for i := first; i <= last; i++ {
		total += b[i]
	}
	if total == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return 0, math.NaN(), math.NaN()
	}
	for b[first] == 0 {
		first++
	}
	for b[last] == 0 {
		last--
	}
	k := 0
	cum := 0.0
	for i := first; i <= last && k < len(s.order); i++ {
		c := b[i]
		if c == 0 {
			continue
		}
		prev := cum
		cum += c
		for k < len(s.order) {
			rank := s.ps[s.order[k]] / 100 * total
			if cum < rank && i < last {
				break
			}
			f := min(max((rank-prev)/c, 0), 1)
			out[s.order[k]] = s.lo[i] + f*(s.hi[i]-s.lo[i])
			k++
		}
	}
	return total, s.lo[first], s.hi[last]
}
