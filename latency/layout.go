package latency

import (
	"fmt"
	"math/bits"
)

// fio's log-linear bucket layout: values below 2^(BucketBits+1) get one
// bucket each; above that every power-of-two range ("group") is split into
// 2^BucketBits equal buckets, so the relative width of a bucket is at most
// 1/64 (about 1.6%, so ~0.78% error from the midpoint).
const (
	BucketBits      = 6
	BucketsPerGroup = 1 << BucketBits // 64

	// FioGroups is fio's group count (FIO_IO_U_PLAT_GROUP_NR): values at or
	// above 2^34 ns (17.18 s) all land in the last bucket.
	FioGroups = 29
	// FioBuckets is the number of buckets of fio's histogram (1856).
	FioBuckets = FioGroups * BucketsPerGroup

	// LongGroups keeps stalls up to 2^41 ns (about 36.6 minutes) apart.
	LongGroups = 36

	// MaxGroups puts the ceiling at 2^63 ns (292 years) and keeps every
	// bucket bound inside uint64.
	MaxGroups = 64 - BucketBits // 58
	minGroups = 2
)

// Layout is a histogram layout with a number of groups; the zero Layout is
// invalid, use NewLayout or FioLayout.
type Layout struct {
	groups int
}

// FioLayout is fio's 29-group layout (1856 buckets).
var FioLayout = Layout{groups: FioGroups}

// NewLayout returns a layout with the given number of groups, from 2 to
// MaxGroups. 29 is fio's; more groups raise the ceiling (Ceiling) by a
// factor of two each.
func NewLayout(groups int) (Layout, error) {
	if groups < minGroups || groups > MaxGroups {
		return Layout{}, fmt.Errorf("latency: %d groups: want %d to %d", groups, minGroups, MaxGroups)
	}
	return Layout{groups: groups}, nil
}

// LayoutForBuckets returns the layout with n buckets (n a multiple of 64),
// e.g. 1856 for fio's.
func LayoutForBuckets(n int) (Layout, error) {
	if n%BucketsPerGroup != 0 {
		return Layout{}, fmt.Errorf("latency: %d buckets is not a multiple of %d", n, BucketsPerGroup)
	}
	return NewLayout(n / BucketsPerGroup)
}

// Groups returns the number of groups.
func (l Layout) Groups() int { return l.groups }

// Buckets returns the number of buckets (groups * 64).
func (l Layout) Buckets() int { return l.groups * BucketsPerGroup }

// Ceiling returns the smallest value that lands in the last bucket whatever
// its size: 2^(groups+5), 2^34 ns for fio's layout. Values at or above it
// are clipped and counted by Histogram.Clipped.
func (l Layout) Ceiling() uint64 {
	return 1 << (l.groups + BucketBits - 1)
}

// Index returns the bucket of value v (fio's plat_val_to_idx, extended to
// any group count). Values past the last bucket go into the last bucket.
func (l Layout) Index(v uint64) int {
	if v < 2*BucketsPerGroup {
		return int(v)
	}
	msb := bits.Len64(v) - 1
	e := msb - BucketBits
	idx := (e+1)<<BucketBits + int((v>>e)&(BucketsPerGroup-1))
	if n := l.groups * BucketsPerGroup; idx >= n {
		return n - 1
	}
	return idx
}

// Value returns the value fio reports for bucket idx: idx itself in the
// first two groups, else the midpoint of the bucket's range. Because of the
// midpoint a reported percentile can exceed the largest sample.
func (l Layout) Value(idx int) uint64 {
	if idx < 2*BucketsPerGroup {
		return uint64(idx)
	}
	lo, hi := l.Bounds(idx)
	return lo + (hi-lo)/2
}

// Bounds returns the half-open range [lo, hi) of values that map to bucket
// idx under the layout's width rule. The last bucket also holds every value
// at or above the ceiling.
func (l Layout) Bounds(idx int) (lo, hi uint64) {
	if idx < 2*BucketsPerGroup {
		return uint64(idx), uint64(idx) + 1
	}
	e := uint(idx>>BucketBits) - 1
	k := uint64(idx & (BucketsPerGroup - 1))
	lo = 1<<(e+BucketBits) + k<<e
	return lo, lo + 1<<e
}

// MustLayout is NewLayout for constant group counts; it panics on an
// invalid count, a programming error.
func MustLayout(groups int) Layout {
	l, err := NewLayout(groups)
	if err != nil {
		panic(err)
	}
	return l
}
