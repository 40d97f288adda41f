package steady

import "math"

// This file holds fio's steady-state arithmetic (steadystate.c in fio
// 3.33), reimplemented so that every value comes out bit for bit as fio
// computes it: integer per-second samples, integer sums, the mean as a
// double, least squares with x = 0..n-1, and the slope percentage divided
// by the floor of the mean. Explicit float64 conversions around products
// keep the compiler from fusing them into FMAs, which would round
// differently.

// WindowStats are the statistics of one full window of n per-second
// samples, oldest first.
type WindowStats struct {
	N    int
	SumY uint64 // sum of the samples, modulo 2^64 as fio keeps it
	// SumXY is sum(i * y_i) for i = 0..n-1, modulo 2^64.
	SumXY uint64
	// Mean is SumY/N as a double.
	Mean float64
	// MaxDeviation is max |y_i - Mean|.
	MaxDeviation float64
	// Slope is the least-squares slope per sample (per second), x = 0..n-1.
	Slope float64
}

// FioStats computes the window statistics of samples y (oldest first) the
// way fio does. It allocates nothing.
func FioStats(y []uint64) WindowStats {
	var sumY, sumXY uint64
	for i, v := range y {
		sumY += v
		sumXY += uint64(i) * v
	}
	st := WindowStats{N: len(y), SumY: sumY, SumXY: sumXY}
	if len(y) == 0 {
		return st
	}
	st.Mean = float64(sumY) / float64(len(y))
	st.MaxDeviation = maxDeviation(y, st.Mean)
	st.Slope = fioSlope(sumXY, sumY, len(y))
	return st
}

// maxDeviation is max |y_i - mean| over y in any order.
func maxDeviation(y []uint64, mean float64) float64 {
	dev := 0.0
	for _, v := range y {
		d := float64(v) - mean
		if d < 0 {
			d = -d
		}
		dev = max(dev, d)
	}
	return dev
}

// fioSlope is (sum_xy - sum_x*sum_y/n) / (sum_x^2 - sum_x*sum_x/n) with
// sum_x = n(n-1)/2 and sum_x^2 = (n-1)n(2n-1)/6 computed in integers, as
// fio does (the x values are taken as exactly one second apart).
func fioSlope(sumXY, sumY uint64, n int) float64 {
	un := uint64(n)
	sumX := un * (un - 1) / 2
	sumXSq := (un - 1) * un * (2*un - 1) / 6
	num := float64(sumXY) - float64(float64(sumX)*float64(sumY))/float64(n)
	den := float64(sumXSq) - float64(float64(sumX)*float64(sumX))/float64(n)
	return fioDiv(num, den)
}

// fioNaN is the NaN that x86-64 produces for 0/0 (sign bit set), which
// glibc prints as "-nan". Go's 0/0 gives whatever the CPU gives; fixing
// the bits makes the output the same on every architecture.
var fioNaN = math.Float64frombits(0xfff8000000000000)

// fioDiv divides as IEEE 754 does, with x86's NaN for 0/0.
func fioDiv(a, b float64) float64 {
	if b == 0 && (a == 0 || math.IsNaN(a)) {
		return fioNaN
	}
	return a / b
}

// Value returns the criterion value fio compares with the limit, from the
// window's statistics: the deviation or slope, as a percentage of the mean
// when c.Percent (the slope's percentage divides by floor(SumY/N)). It
// is only meaningful for the Deviation and Slope methods.
func (c Criterion) Value(st WindowStats) float64 {
	switch c.Method {
	case Slope:
		if !c.Percent {
			return st.Slope
		}
		var floorMean uint64
		if st.N > 0 {
			floorMean = st.SumY / uint64(st.N)
		}
		return fioDiv(100*st.Slope, float64(floorMean))
	default:
		if !c.Percent {
			return st.MaxDeviation
		}
		return fioDiv(100*st.MaxDeviation, st.Mean)
	}
}

// Holds reports whether a criterion value is within the limit as fio
// decides it: value < limit for a deviation, |value| < limit for a slope.
// NaN never holds.
func (c Criterion) Holds(value float64) bool {
	if c.Method == Slope {
		return math.Abs(value) < c.Limit
	}
	return value < c.Limit
}

// Evaluate judges one full window of per-second samples (oldest first)
// against a Deviation or Slope criterion, exactly as fio would at the
// moment that window was complete.
func Evaluate(c Criterion, y []uint64) Result {
	st := FioStats(y)
	v := c.Value(st)
	return Result{
		Criterion:    c,
		Evaluated:    len(y) > 0,
		Attained:     len(y) > 0 && c.Holds(v),
		Value:        v,
		Mean:         st.Mean,
		MaxDeviation: st.MaxDeviation,
		Slope:        st.Slope,
	}
}
