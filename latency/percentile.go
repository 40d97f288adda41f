package latency

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// DefaultPercentiles is fio's default percentile_list.
var DefaultPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// MaxPercentiles is the most entries fio accepts in a percentile_list.
const MaxPercentiles = 20

// ParsePercentileList parses fio's percentile_list syntax: values separated
// by ':' (',' is accepted too), each in [0, 100]. Like fio it keeps the
// entries before the first 0, at most MaxPercentiles, sorted ascending.
func ParsePercentileList(s string) ([]float64, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("latency: empty percentile list %q", s)
	}
	if len(fields) > MaxPercentiles {
		return nil, fmt.Errorf("latency: percentile list %q has %d entries, at most %d", s, len(fields), MaxPercentiles)
	}
	ps := make([]float64, 0, len(fields))
	for i, f := range fields {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return nil, fmt.Errorf("latency: percentile list %q: entry %d %q: want a number from 0 to 100", s, i+1, f)
		}
		if p == 0 {
			break
		}
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps, nil
}

// PercentileKey formats p as fio's JSON key does (printf "%f"): "99.900000".
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', 6, 64) }

// fioHundredth is 0.01 rounded to an x87 long double (64-bit significand):
// 0xA3D70A3D70A3D70A * 2^-70. fio 3.33 as built by Debian computes the
// percentile threshold p/100*N with -ffast-math on long doubles, which
// turns the division into a multiplication by this constant.
var fioHundredth = new(big.Float).SetPrec(64).SetMantExp(
	new(big.Float).SetPrec(64).SetUint64(0xA3D70A3D70A3D70A), -70)

// FioThreshold returns the smallest running count that reaches percentile
// p of n values under fio 3.33's arithmetic: T = RN64(p * RN64(n * C)) with
// RN64 rounding to a 64-bit significand (nearest even) and C = 0.01 as a
// long double; since counts are integers, the result is ceil(T). Plain
// float64 p/100*n differs from it for about one (p, n) pair in a thousand
// (e.g. n=25, p=60).
func FioThreshold(p float64, n uint64) uint64 {
	if p <= 0 || n == 0 {
		return 0
	}
	nf := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).SetUint64(n)
	t := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Mul(nf, fioHundredth)
	t.Mul(t, new(big.Float).SetPrec(64).SetFloat64(p)) // rounded to 64 bits again
	// Not t.Uint64's Accuracy: math/big reports Exact for any truncated
	// value of at most 64 bits of precision (672846.7086 gives Exact), so
	// ask IsInt.
	i, _ := t.Uint64()
	if !t.IsInt() { // t had a fraction: the next integer reaches it
		i++
	}
	return i
}

// Percentiles returns the value fio reports for each percentile in ps: the
// representative value (Layout.Value) of the first bucket whose running
// count reaches FioThreshold(p, Count()). ps need not be sorted. All values
// are 0 when the histogram is empty. It allocates only the result.
func (h *Histogram) Percentiles(ps []float64) []uint64 {
	out := make([]uint64, len(ps))
	h.PercentilesInto(out, ps)
	return out
}

// PercentilesInto is Percentiles writing into out (len(out) >= len(ps)).
func (h *Histogram) PercentilesInto(out []uint64, ps []float64) {
	for i, p := range ps {
		out[i] = h.Percentile(p)
	}
}

// Percentile returns fio's value for percentile p (see Percentiles).
func (h *Histogram) Percentile(p float64) uint64 {
	if h.n == 0 {
		return 0
	}
	want := FioThreshold(p, h.n)
	var sum uint64
	last := 0
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		sum += c
		last = i
		if sum >= want {
			return h.layout.Value(i)
		}
	}
	// Only when the threshold exceeds the count (it never does for p <= 100);
	// report the highest bucket rather than nothing.
	return h.layout.Value(last)
}

// PercentileInterpolated returns percentile p (0 < p <= 100) with linear
// interpolation inside the bucket that holds it: the rank p/100*N is placed
// proportionally between the bucket's bounds, assuming values spread evenly
// within the bucket. Unlike fio's value it never exceeds Max or falls below
// Min. It returns 0 for an empty histogram.
func (h *Histogram) PercentileInterpolated(p float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := p / 100 * float64(h.n)
	var cum float64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		next := cum + float64(c)
		if next >= rank {
			lo, hi := h.layout.Bounds(i)
			flo, fhi := float64(lo), float64(hi)
			if i == len(h.counts)-1 {
				fhi = float64(h.max) + 1 // the last bucket holds everything above
			}
			v := flo + (rank-cum)/float64(c)*(fhi-flo)
			return min(max(v, float64(h.Min())), float64(h.max))
		}
		cum = next
	}
	return float64(h.max)
}
