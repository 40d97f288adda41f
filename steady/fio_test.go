package steady

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/montanaflynn/stats"
)

// same compares floats to a relative 1e-12, NaN equal to NaN of the same
// sign and infinities exactly.
func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b) && math.Signbit(a) == math.Signbit(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) || a == b {
		return a == b
	}
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// Windows of 5 seconds with known statistics (worked by hand).
var (
	flat    = []uint64{1000, 1000, 1000, 1000, 1000} // mean 1000, dev 0, slope 0
	trend   = []uint64{1000, 1010, 1020, 1030, 1040} // mean 1020, dev 20, slope 10
	step    = []uint64{1000, 1000, 1000, 2000, 2000} // mean 1400, dev 600, slope 300
	outlier = []uint64{1000, 1000, 5000, 1000, 1000} // mean 1800, dev 3200, slope 0
	noise   = []uint64{1003, 997, 1001, 999, 1000}   // mean 1000, dev 3, slope -0.4
	floored = []uint64{1, 2, 2, 2, 2}                // mean 1.8 (floor 1), dev 0.8, slope 0.2
	zeros   = []uint64{0, 0, 0, 0, 0}
	oneIO   = []uint64{0, 0, 0, 0, 1} // floor of the mean is 0, slope 0.2
)

func TestFioStats(t *testing.T) {
	tests := []struct {
		name             string
		y                []uint64
		mean, dev, slope float64
		sumY, sumXY      uint64
	}{
		{"flat", flat, 1000, 0, 0, 5000, 10000},
		{"trend", trend, 1020, 20, 10, 5100, 10300},
		{"step", step, 1400, 600, 300, 7000, 17000},
		{"outlier", outlier, 1800, 3200, 0, 9000, 18000},
		{"noise", noise, 1000, 3, -0.4, 5000, 9996},
		{"floored", floored, 1.8, 0.8, 0.2, 9, 20},
		{"zeros", zeros, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := FioStats(tt.y)
			if st.N != len(tt.y) || st.SumY != tt.sumY || st.SumXY != tt.sumXY {
				t.Errorf("N, SumY, SumXY = %d, %d, %d; want %d, %d, %d", st.N, st.SumY, st.SumXY, len(tt.y), tt.sumY, tt.sumXY)
			}
			if !same(st.Mean, tt.mean) || !same(st.MaxDeviation, tt.dev) || !same(st.Slope, tt.slope) {
				t.Errorf("mean, dev, slope = %v, %v, %v; want %v, %v, %v", st.Mean, st.MaxDeviation, st.Slope, tt.mean, tt.dev, tt.slope)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name     string
		crit     string
		y        []uint64
		value    float64
		attained bool
	}{
		// iops: deviation from the mean.
		{"iops pct flat", "iops:1%", flat, 0, true},
		{"iops pct trend", "iops:1%", trend, 100.0 * 20 / 1020, false},
		{"iops pct trend loose", "iops:2%", trend, 100.0 * 20 / 1020, true},
		{"iops pct step", "iops:20%", step, 100.0 * 600 / 1400, false},
		{"iops pct noise", "iops:0.5%", noise, 0.3, true},
		{"iops pct outlier", "iops:50%", outlier, 100.0 * 3200 / 1800, false},
		{"iops abs noise", "iops:3", noise, 3, false}, // strict: 3 < 3 is false
		{"iops abs noise above", "iops:3.01", noise, 3, true},
		{"iops pct zeros is nan", "iops:5%", zeros, fioNaN, false},
		{"iops abs zeros", "iops:1", zeros, 0, true},
		// iops_slope: least squares.
		{"slope pct flat", "iops_slope:0.1%", flat, 0, true},
		{"slope pct trend", "iops_slope:0.5%", trend, 100.0 * 10 / 1020, false},
		{"slope pct trend loose", "iops_slope:1%", trend, 100.0 * 10 / 1020, true},
		{"slope pct step", "iops_slope:10%", step, 100.0 * 300 / 1400, false},
		{"slope blind to a centred outlier", "iops_slope:0.1%", outlier, 0, true},
		{"slope pct noise negative", "iops_slope:0.05%", noise, -0.04, true},
		{"slope pct noise tight", "iops_slope:0.04%", noise, -0.04, false},
		{"slope pct divides by the floor of the mean", "iops_slope:15%", floored, 20, false},
		{"slope pct zeros is nan", "iops_slope:1%", zeros, fioNaN, false},
		{"slope pct floor zero is inf", "iops_slope:1%", oneIO, math.Inf(1), false},
		{"slope abs trend", "iops_slope:10", trend, 10, false},
		{"slope abs trend loose", "iops_slope:10.5", trend, 10, true},
		{"slope abs negative", "iops_slope:0.5", noise, -0.4, true},
		// bw works the same on bytes/s.
		{"bw pct step", "bw:50%", step, 100.0 * 600 / 1400, true},
		{"bw_slope abs", "bw_slope:1k", trend, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustParse(tt.crit)
			r := Evaluate(c, tt.y)
			if !same(r.Value, tt.value) {
				t.Errorf("value = %v, want %v", r.Value, tt.value)
			}
			if r.Attained != tt.attained || !r.Evaluated {
				t.Errorf("attained, evaluated = %v, %v; want %v, true", r.Attained, r.Evaluated, tt.attained)
			}
			if r.Attained != c.Holds(r.Value) {
				t.Errorf("Holds(%v) disagrees with Attained", r.Value)
			}
		})
	}
}

// Against an independent implementation: the mean and the regression
// slope agree with github.com/montanaflynn/stats to 1e-9 on random
// windows (fio's formula differs only in rounding).
func TestFioStatsAgainstStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		n := 2 + rng.IntN(60)
		y := make([]uint64, n)
		pts := make(stats.Series, n)
		fl := make([]float64, n)
		base := rng.Uint64N(1_000_000)
		for i := range y {
			y[i] = base + rng.Uint64N(10_000) + uint64(i)*rng.Uint64N(50)
			pts[i] = stats.Coordinate{X: float64(i), Y: float64(y[i])}
			fl[i] = float64(y[i])
		}
		st := FioStats(y)
		mean, _ := stats.Mean(fl)
		line, err := stats.LinearRegression(pts)
		if err != nil {
			t.Fatal(err)
		}
		slope := (line[n-1].Y - line[0].Y) / float64(n-1)
		if math.Abs(st.Mean-mean) > 1e-9*mean {
			t.Fatalf("iter %d: mean %v, stats %v", iter, st.Mean, mean)
		}
		if math.Abs(st.Slope-slope) > 1e-6*math.Max(1, math.Abs(slope)) {
			t.Fatalf("iter %d: slope %v, stats %v (y=%v)", iter, st.Slope, slope, y)
		}
		dev := 0.0
		for _, v := range fl {
			dev = math.Max(dev, math.Abs(v-mean))
		}
		if math.Abs(st.MaxDeviation-dev) > 1e-6 {
			t.Fatalf("iter %d: max deviation %v, want %v", iter, st.MaxDeviation, dev)
		}
	}
}

func TestFioStatsEmpty(t *testing.T) {
	st := FioStats(nil)
	if st != (WindowStats{}) {
		t.Errorf("FioStats(nil) = %+v", st)
	}
	if r := Evaluate(MustParse("iops:5%"), nil); r.Evaluated || r.Attained {
		t.Errorf("Evaluate(nil) = %+v", r)
	}
}

// A one-second window has no slope: 0/0, printed by fio as -nan.
func TestSlopeOfOneSample(t *testing.T) {
	st := FioStats([]uint64{7})
	if !math.IsNaN(st.Slope) || !math.Signbit(st.Slope) {
		t.Errorf("slope of one sample = %v, want -nan", st.Slope)
	}
	if FormatFloat(st.Slope) != "-nan" {
		t.Errorf("FormatFloat = %q", FormatFloat(st.Slope))
	}
}
