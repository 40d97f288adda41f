package latency

// fio's latency ranges: besides its log-linear histogram, fio counts each
// completion latency in one of 32 coarse ranges of the exact value and
// prints each range's share of the I/Os as "latency_ns", "latency_us" and
// "latency_ms" (JSON) and the "lat (usec)   : 250=..." lines (normal
// output). A range is named by its upper bound: "250" under "latency_us"
// holds 100 us <= clat < 250 us. The bounds do not fall on histogram
// bucket edges (a bucket near 750 ns spans 744-751 ns), so they are
// counted from the exact values as they are added.

// Range groups in Histogram.Ranges: ns, us and ms, in that order.
const (
	RangesNs  = 10 // "2" .. "1000": values below 1 us
	RangesUs  = 10 // "2" .. "1000": 1 us to below 1 ms
	RangesMs  = 12 // "2" .. "2000", ">=2000": 1 ms and up
	NumRanges = RangesNs + RangesUs + RangesMs
)

// RangeKeys are the names fio gives the ranges of one group, in order;
// the ns and us groups use the first ten.
var RangeKeys = [RangesMs]string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"}

// rangeUpper are the exclusive upper bounds of the ranges of one group,
// in the group's unit; a value at or past the last lands in the last.
var rangeUpper = [RangesMs - 1]uint64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000}

// RangeIndex returns the range of a value in ns, 0 .. NumRanges-1. A
// value is scaled to the largest unit in which it is at least 1, then
// truncated (1999 ns is 1 us), as fio does. It is on the per-I/O path:
// a division and a table look-up.
func RangeIndex(ns uint64) int {
	switch {
	case ns < 1000:
		return int(rangeOf[ns])
	case ns < 1_000_000:
		return RangesNs + int(rangeOf[ns/1000])
	}
	ms := ns / 1_000_000
	if ms >= uint64(len(rangeOf)) {
		return NumRanges - 1
	}
	return RangesNs + RangesUs + int(rangeOf[ms])
}

// rangeOf is the range within a group of a value below 2000 in the
// group's unit.
var rangeOf = func() (t [2000]uint8) {
	r := 0
	for x := range t {
		for r < len(rangeUpper) && uint64(x) >= rangeUpper[r] {
			r++
		}
		t[x] = uint8(r)
	}
	return t
}()

// Ranges returns the counts of fio's latency ranges (see RangeIndex):
// exact for values given to Add, by the bucket's value for AddBin.
func (h *Histogram) Ranges() [NumRanges]uint64 { return h.ranges }

// RangePercents are fio's shares of the ranges: count*100/total, and at
// least 0.01 for a range that counted anything; all 0 when total is 0.
// fio divides by the job's I/Os of all directions (its "total_ios"), not
// by the number of latencies.
func RangePercents(counts *[NumRanges]uint64, total uint64) [NumRanges]float64 {
	var out [NumRanges]float64
	if total == 0 {
		return out
	}
	for i, c := range counts {
		p := float64(c) / float64(total) * 100
		if c > 0 && p < 0.01 {
			p = 0.01
		}
		out[i] = p
	}
	return out
}
