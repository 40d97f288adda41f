package histlog

import (
	"math"
	"strconv"
	"strings"
)

// pyRepr formats x as Python 3's str(float) and repr(float) do: the
// shortest digits that round-trip, in positional notation when the
// decimal exponent is from -4 to 15 (with ".0" for whole numbers), else
// in exponent notation with at least two exponent digits ("1e-05").
func pyRepr(x float64) string {
	return string(appendPyRepr(nil, x))
}

func appendPyRepr(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "nan"...)
	case math.IsInf(x, 1):
		return append(dst, "inf"...)
	case math.IsInf(x, -1):
		return append(dst, "-inf"...)
	case x == 0:
		if math.Signbit(x) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], x, 'e', -1, 64)
	i := strings.LastIndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[i+1:]))
	if exp < -4 || exp >= 16 {
		return append(dst, e...) // Go writes "1e-05" and "1.5e+16" as Python does
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// pyPercentiles computes get_pctiles of fio-histo-log-pctiles.py over
// buckets b (non-zero only within [lo, hi]) with bucket ranges
// [rmin[i], rmax[i]): wanted percentiles are walked in the order given;
// p < 100 takes the first bucket whose cumulative percentage exceeds p,
// p = 100 the first reaching 99.9999, and the value is interpolated
// linearly inside the bucket. out[i] receives wanted[i]'s value. It
// returns false when the buckets are empty (the tool prints blanks).
// Every operation is the tool's, in its order, so results are equal to
// the bit.
func pyPercentiles(b []float64, lo, hi int, wanted, rmin, rmax, out []float64) bool {
	total := 0.0
	for i := lo; i <= hi; i++ {
		total += b[i]
	}
	if total == 0 {
		return false
	}
	const almost100 = 99.9999
	k := 0
	next := wanted[0]
	pct, soFar := 0.0, 0.0
	for i := lo; i <= hi && k < len(wanted); i++ {
		c := b[i]
		if c == 0 {
			continue
		}
		soFar += c
		last := pct
		pct = 100.0 * soFar / total
		for (next == 100 && pct >= almost100) || (next < 100 && pct > next) {
			frac := (next - last) / (pct - last)
			out[k] = rmin[i] + float64(frac*(rmax[i]-rmin[i]))
			k++
			if k == len(wanted) {
				break
			}
			next = wanted[k]
		}
	}
	return k == len(wanted)
}
