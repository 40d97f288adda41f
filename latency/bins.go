package latency

import (
	"fmt"
	"strconv"
)

// Bin is one non-empty bucket as fio's json+ output prints it: the bucket's
// representative value (Layout.Value) and its count.
type Bin struct {
	Value uint64
	Count uint64
}

// Bins returns the non-empty buckets in ascending order, as json+ "bins".
func (h *Histogram) Bins() []Bin {
	var bins []Bin
	for i, c := range h.counts {
		if c != 0 {
			bins = append(bins, Bin{Value: h.layout.Value(i), Count: c})
		}
	}
	return bins
}

// AddBin adds count values to the bucket holding value, as read from a
// json+ "bins" object. The exact values are unknown, so the statistics
// (Min, Max, Mean, Stddev) treat them as equal to value: they become
// bucket-resolution estimates. Clipped values cannot be told apart in
// bins: the last bucket's value is below the ceiling, so Clipped counts
// only values given at or above it.
func (h *Histogram) AddBin(value, count uint64) {
	if count == 0 {
		return
	}
	h.counts[h.layout.Index(value)] += count
	h.ranges[RangeIndex(value)] += count
	if value >= h.layout.Ceiling() {
		h.clipped += count
	}
	h.min = min(h.min, value)
	h.max = max(h.max, value)
	h.mean, h.s = mergeMoments(h.n, h.mean, h.s, count, float64(value), 0)
	h.n += count
}

// FromBins builds a histogram with layout l from json+ bins. A key that is
// not the representative value of its bucket is an error: it would mean
// the bins came from another layout. Keys at or past l's ceiling (from a
// histogram of more groups) land in the last bucket and count as clipped,
// as fio would have recorded them.
func FromBins(l Layout, bins []Bin) (*Histogram, error) {
	h := New(l)
	for _, b := range bins {
		if got := l.Value(l.Index(b.Value)); got != b.Value && b.Value < l.Ceiling() {
			return nil, fmt.Errorf("latency: bin %d is not a bucket value of a %d-group histogram (nearest %d)", b.Value, l.groups, got)
		}
		h.AddBin(b.Value, b.Count)
	}
	return h, nil
}

// AppendBinsJSON appends the histogram's json+ "bins" object, keys in
// ascending bucket order as fio prints them: {"129":3,"131":1}.
func (h *Histogram) AppendBinsJSON(dst []byte) []byte {
	dst = append(dst, '{')
	first := true
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = strconv.AppendUint(dst, h.layout.Value(i), 10)
		dst = append(dst, '"', ':')
		dst = strconv.AppendUint(dst, c, 10)
	}
	return append(dst, '}')
}
