package latency

import (
	"errors"
	"fmt"
	"math"
)

// ErrLayoutMismatch is returned when two histograms with different layouts
// are combined.
var ErrLayoutMismatch = errors.New("latency: histogram layouts differ")

// Histogram counts values (nanoseconds, by convention) in fio's log-linear
// buckets and keeps fio's running statistics of the exact values: count,
// min, max, and mean and variance by Welford's method. A Histogram is not
// safe for concurrent use; the runner gives each job its own and merges.
type Histogram struct {
	layout  Layout
	counts  []uint64
	n       uint64
	min     uint64
	max     uint64
	mean    float64
	s       float64 // sum of squared deviations from the mean (Welford's M2)
	clipped uint64  // values at or above the layout's ceiling
	ranges  [NumRanges]uint64
}

// New returns an empty histogram with the given layout.
func New(l Layout) *Histogram {
	if l.groups == 0 {
		panic("latency: New with the zero Layout")
	}
	return &Histogram{layout: l, counts: make([]uint64, l.Buckets()), min: math.MaxUint64}
}

// NewFio returns an empty histogram with fio's layout (29 groups).
func NewFio() *Histogram { return New(FioLayout) }

// Layout returns the histogram's layout.
func (h *Histogram) Layout() Layout { return h.layout }

// Add records one value. It allocates nothing.
func (h *Histogram) Add(v uint64) {
	h.counts[h.layout.Index(v)]++
	h.ranges[RangeIndex(v)]++
	if v >= h.layout.Ceiling() {
		h.clipped++
	}
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	// Welford's update, in the order fio uses so means and deviations
	// agree to the last bit for the same sequence of values.
	x := float64(v)
	if d := x - h.mean; d != 0 {
		h.mean += d / float64(h.n+1)
		h.s += d * (x - h.mean)
	}
	h.n++
}

// Reset empties the histogram, keeping its layout and memory.
func (h *Histogram) Reset() {
	clear(h.counts)
	*h = Histogram{layout: h.layout, counts: h.counts, min: math.MaxUint64}
}

// Clone returns a deep copy.
func (h *Histogram) Clone() *Histogram {
	c := *h
	c.counts = append([]uint64(nil), h.counts...)
	return &c
}

// CopyFrom makes h an exact copy of src without allocating. The layouts
// must match.
func (h *Histogram) CopyFrom(src *Histogram) error {
	if h.layout != src.layout {
		return ErrLayoutMismatch
	}
	counts := h.counts
	copy(counts, src.counts)
	*h = *src
	h.counts = counts
	return nil
}

// Count returns the number of values recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Min returns the smallest value recorded, 0 when empty.
func (h *Histogram) Min() uint64 {
	if h.n == 0 {
		return 0
	}
	return h.min
}

// Max returns the largest value recorded, 0 when empty.
func (h *Histogram) Max() uint64 { return h.max }

// Mean returns the mean of the values, 0 when empty.
func (h *Histogram) Mean() float64 { return h.mean }

// Stddev returns the sample standard deviation sqrt(S/(n-1)) as fio
// reports it: 0 for fewer than two values.
func (h *Histogram) Stddev() float64 {
	if h.n < 2 {
		return 0
	}
	return math.Sqrt(h.s / float64(h.n-1))
}

// Clipped returns how many values were at or above the layout's ceiling
// and so were counted in the last bucket (their exact values still count
// in Max, Mean and Stddev).
func (h *Histogram) Clipped() uint64 { return h.clipped }

// Bucket returns the count of bucket idx.
func (h *Histogram) Bucket(idx int) uint64 { return h.counts[idx] }

// Counts returns the bucket counts; the slice is the histogram's own and
// must not be modified.
func (h *Histogram) Counts() []uint64 { return h.counts }

// Merge adds o's values to h: bucket counts add, and the statistics combine
// with the parallel form of Welford's method (Chan et al.), as fio sums
// the stats of jobs in a group. It allocates nothing.
func (h *Histogram) Merge(o *Histogram) error {
	if h.layout != o.layout {
		return ErrLayoutMismatch
	}
	if o.n == 0 {
		return nil
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.clipped += o.clipped
	for i, c := range o.ranges {
		h.ranges[i] += c
	}
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
	h.mean, h.s = mergeMoments(h.n, h.mean, h.s, o.n, o.mean, o.s)
	h.n += o.n
	return nil
}

func mergeMoments(na uint64, meanA, sA float64, nb uint64, meanB, sB float64) (mean, s float64) {
	if na == 0 {
		return meanB, sB
	}
	a, b := float64(na), float64(nb)
	d := meanB - meanA
	mean = (meanA*a + meanB*b) / (a + b)
	s = sA + sB + d*d*a*b/(a+b)
	return mean, s
}

// Sub sets h to a minus b, where b is an earlier snapshot of the same
// histogram (every bucket of b at most a's): the values recorded between
// the two snapshots. Count, Mean and Stddev of the difference are exact
// (the inverse of Merge, up to rounding); Min and Max are not recoverable
// from two snapshots and are set to the bounds of the lowest and highest
// non-empty buckets, clamped to a's Min and Max. h may be a or b. It
// allocates nothing.
func (h *Histogram) Sub(a, b *Histogram) error {
	if a.layout != b.layout || h.layout != a.layout {
		return ErrLayoutMismatch
	}
	if b.n > a.n {
		return fmt.Errorf("latency: subtracting a histogram of %d values from one of %d", b.n, a.n)
	}
	for i := range a.counts {
		if b.counts[i] > a.counts[i] {
			return fmt.Errorf("latency: bucket %d: %d > %d: not an earlier snapshot", i, b.counts[i], a.counts[i])
		}
	}
	n := a.n - b.n
	var mean, s float64
	if n > 0 && b.n > 0 {
		// Invert the parallel merge: a = merge(b, d).
		fa, fb, fd := float64(a.n), float64(b.n), float64(n)
		mean = (a.mean*fa - b.mean*fb) / fd
		dm := mean - b.mean
		s = a.s - b.s - dm*dm*fb*fd/fa
		if s < 0 {
			s = 0 // rounding
		}
	} else if n > 0 {
		mean, s = a.mean, a.s
	}
	amin, amax, clipped := a.min, a.max, a.clipped-b.clipped
	for i := range h.counts {
		h.counts[i] = a.counts[i] - b.counts[i]
	}
	for i := range h.ranges {
		h.ranges[i] = a.ranges[i] - b.ranges[i]
	}
	h.n, h.mean, h.s, h.clipped = n, mean, s, clipped
	h.min, h.max = math.MaxUint64, 0
	if n == 0 {
		return nil
	}
	for i, c := range h.counts {
		if c != 0 {
			lo, _ := h.layout.Bounds(i)
			h.min = max(lo, amin)
			break
		}
	}
	for i := len(h.counts) - 1; i >= 0; i-- {
		if h.counts[i] != 0 {
			_, hi := h.layout.Bounds(i)
			h.max = amax
			if i < len(h.counts)-1 && hi-1 < amax {
				h.max = hi - 1
			}
			break
		}
	}
	return nil
}
