package regress

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// NOTES.md: a distribution-free 95% CI for p99 below the sample max needs
// 368 samples; p99.9 3688; p99.99 36887.
func TestMinOrderSamples(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want uint64
	}{{99, 368}, {99.9, 3688}, {99.99, 36887}, {50, 6}, {90, 36}} {
		require.Equal(t, tc.want, minOrderSamples(tc.p, 0.95), "p%v", tc.p)
		// The definition: the maximum of n samples exceeds the percentile
		// with probability >= 97.5% at n, not at n-1.
		n := float64(tc.want)
		require.GreaterOrEqual(t, 1-math.Pow(tc.p/100, n), 0.975)
		require.Less(t, 1-math.Pow(tc.p/100, n-1), 0.975)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {0.5, 3}, {0.25, 2}, {0.1, 1.4}, {1, 5}} {
		require.InDelta(t, tc.want, quantile(xs, tc.q), 1e-12, "q=%v", tc.q)
	}
	require.True(t, math.IsNaN(quantile(nil, 0.5)))
}

func TestScores(t *testing.T) {
	require.InDelta(t, 1.959964, zScore(0.95), 1e-6)
	require.InDelta(t, 2.575829, zScore(0.99), 1e-6)
	// Student's t quantiles, 97.5%: df 5 2.5706, df 10 2.2281, df 30 2.0423.
	for _, tc := range []struct{ df, want float64 }{{5, 2.5706}, {10, 2.2281}, {30, 2.0423}} {
		require.InDelta(t, tc.want, tScore(0.95, tc.df), tc.want*0.01, "df=%v", tc.df)
	}
}

func TestBlockLen(t *testing.T) {
	for _, tc := range []struct{ n, configured, want int }{
		{60, 0, 8}, {100, 0, 10}, {10, 0, 4}, {1, 0, 1}, {60, 5, 5}, {3, 5, 3},
	} {
		require.Equal(t, tc.want, blockLen(tc.n, tc.configured), "n=%d", tc.n)
	}
}

// The block sampler's resample means average to the series mean.
func TestBlockSamplerUnbiased(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 50)
	for i := range xs {
		xs[i] = float64(i % 7)
	}
	s := newBlockSampler(xs, 7)
	var sum float64
	const n = 20000
	for range n {
		sum += s.mean(rng)
	}
	// Moving blocks under-weight the ends slightly; within 2%.
	require.InDelta(t, mean(xs), sum/n, mean(xs)*0.02)
}

// The interval of the ratio of two samples of the same independent
// process covers 1 about 95% of the time, and the same inputs give the
// same interval.
func TestRatioIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const trials = 300
	covered := 0
	for range trials {
		a, b := make([]float64, 40), make([]float64, 40)
		for i := range a {
			a[i] = 1000 + 50*rng.NormFloat64()
			b[i] = 1000 + 50*rng.NormFloat64()
		}
		lo, hi, ok := ratioInterval(a, b, blockLen(40, 0), blockLen(40, 0), 1000, 0.95, seededRand("x", a, b))
		require.True(t, ok)
		obs := mean(b) / mean(a)
		if obs*lo <= 1 && 1 <= obs*hi {
			covered++
		}
		lo2, hi2, _ := ratioInterval(a, b, blockLen(40, 0), blockLen(40, 0), 1000, 0.95, seededRand("x", a, b))
		require.Equal(t, lo, lo2)
		require.Equal(t, hi, hi2)
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f", rate)
	require.InDelta(t, 0.95, rate, 0.04)
}

func TestRatioIntervalDegenerate(t *testing.T) {
	zeros := make([]float64, 20)
	ones := make([]float64, 20)
	for i := range ones {
		ones[i] = 1
	}
	_, _, ok := ratioInterval(zeros, ones, 4, 4, 100, 0.95, seededRand("z"))
	require.False(t, ok, "a baseline of zeros has no ratio")
	lo, hi, ok := ratioInterval(ones, ones, 4, 4, 100, 0.95, seededRand("o"))
	require.True(t, ok)
	require.Equal(t, 1.0, lo)
	require.Equal(t, 1.0, hi)
}

func TestPooledRho(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ar := func(phi float64, n int) []float64 {
		xs := make([]float64, n)
		x := 0.0
		for i := range xs {
			x = phi*x + rng.NormFloat64()
			xs[i] = 100 + x
		}
		return xs
	}
	require.InDelta(t, 0.7, pooledRho(ar(0.7, 400), ar(0.7, 400)), 0.08)
	require.InDelta(t, 0.0, pooledRho(ar(0, 400), ar(0, 400)), 0.08)
	require.Equal(t, 0.0, pooledRho([]float64{1, 1, 1}, []float64{2, 2}))
}
