package regress

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// arInterval is the t-interval of the log ratio of means with AR(1)
// effective sample sizes: a series of n samples with lag-1
// autocorrelation rho carries n(1-rho)/(1+rho) independent samples' worth
// of information about its mean. rho is pooled over both runs (the same
// device) and corrected for its small-sample bias; the degrees of freedom
// are Welch-Satterthwaite's.
func arInterval(base, cur []float64, conf float64) (lo, hi float64) {
	rho := pooledRho(base, cur)
	se2 := func(xs []float64) (float64, float64) {
		n := float64(len(xs))
		m := mean(xs)
		var ss float64
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		v := ss / (n - 1)
		neff := math.Max(2, n*(1-rho)/(1+rho))
		return v / (m * m * neff), neff
	}
	vb, nb := se2(base)
	vc, nc := se2(cur)
	if vb+vc == 0 {
		return 1, 1 // constant series: nothing varies
	}
	df := (vb + vc) * (vb + vc) / (vb*vb/(nb-1) + vc*vc/(nc-1))
	h := tScore(conf, df) * math.Sqrt(vb+vc)
	return math.Exp(-h), math.Exp(h)
}

// pooledRho estimates the lag-1 autocorrelation shared by two series,
// corrected for its small-sample bias (about -(1+4rho)/n).
func pooledRho(a, b []float64) float64 {
	var num, den float64
	n := 0
	for _, xs := range [][]float64{a, b} {
		m := mean(xs)
		for i, x := range xs {
			den += (x - m) * (x - m)
			if i > 0 {
				num += (x - m) * (xs[i-1] - m)
			}
		}
		n += len(xs)
	}
	if den == 0 {
		return 0
	}
	rho := num / den
	rho += (1 + 4*rho) / float64(n/2)
	return math.Max(0, math.Min(0.95, rho))
}

// blockLen is the moving-block length for n samples: the configured one,
// else ceil(sqrt(n)), at least 1 and at most n.
func blockLen(n, configured int) int {
	if configured > 0 {
		return min(configured, n)
	}
	return max(1, min(n, int(math.Ceil(math.Sqrt(float64(n))))))
}

// tScore approximates Student's t quantile for a two-sided conf interval
// with df degrees of freedom (Cornish-Fisher expansion around z; within
// 1% for df >= 3).
func tScore(conf, df float64) float64 {
	z := zScore(conf)
	if df <= 0 || math.IsInf(df, 1) {
		return z
	}
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*df) + (5*z5+16*z3+3*z)/(96*df*df) + (3*z7+19*z5+17*z3-15*z)/(384*df*df*df)
}

// blockSampler draws moving-block bootstrap resamples of one series and
// returns their means. Per-second samples are autocorrelated (a slow
// second is followed by slow seconds), so resampling single seconds would
// understate the noise; blocks of l consecutive seconds, started anywhere
// in the series (Künsch's moving blocks), keep that correlation. Means
// come from prefix sums: O(n/l) per resample.
type blockSampler struct {
	prefix []float64 // prefix[i] = sum of xs[:i]
	n, l   int
}

func newBlockSampler(xs []float64, l int) *blockSampler {
	p := make([]float64, len(xs)+1)
	for i, x := range xs {
		p[i+1] = p[i] + x
	}
	return &blockSampler{prefix: p, n: len(xs), l: l}
}

// mean returns the mean of one resample of n values: ceil(n/l) blocks,
// the last cut short.
func (s *blockSampler) mean(rng *rand.Rand) float64 {
	starts := s.n - s.l + 1
	var sum float64
	for left := s.n; left > 0; left -= s.l {
		k := min(left, s.l)
		i := rng.IntN(starts)
		sum += s.prefix[i+k] - s.prefix[i]
	}
	return sum / float64(s.n)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ratioInterval returns the bootstrap distribution's quantiles of
// mean(cur*)/mean(base*) relative to the observed mean(cur)/mean(base):
// the factors (lo <= 1 <= hi, usually) that, applied to a point estimate
// of the ratio, give its conf-level percentile interval, widened to the
// AR(1) t-interval where that is wider. The two runs are independent, so
// each is resampled on its own. ok is false when a resampled baseline
// mean is 0 in most resamples (a series of zeros).
func ratioInterval(base, cur []float64, lBase, lCur, resamples int, conf float64, rng *rand.Rand) (lo, hi float64, ok bool) {
	mb, mc := mean(base), mean(cur)
	if mb <= 0 || mc < 0 {
		return 0, 0, false
	}
	obs := mc / mb
	sb, sc := newBlockSampler(base, lBase), newBlockSampler(cur, lCur)
	rs := make([]float64, 0, resamples)
	for range resamples {
		b := sb.mean(rng)
		c := sc.mean(rng)
		if b <= 0 {
			continue
		}
		rs = append(rs, c/b/obs)
	}
	if len(rs) < resamples/2 {
		return 0, 0, false
	}
	slices.Sort(rs)
	alpha := 1 - conf
	lo, hi = quantile(rs, alpha/2), quantile(rs, 1-alpha/2)
	// With short series and long correlations the moving blocks miss part
	// of the variance (lags beyond a block are lost, those within it
	// down-weighted): never report less than the AR(1) t-interval.
	alo, ahi := arInterval(base, cur, conf)
	return math.Min(lo, alo), math.Max(hi, ahi), true
}

// quantile of sorted xs with linear interpolation between order
// statistics (Hyndman and Fan's type 7, R's default).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// seededRand returns a generator seeded from the inputs, so that the same
// comparison always draws the same resamples and gives the same verdict.
func seededRand(metric string, series ...[]float64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(metric))
	var buf [8]byte
	for _, s := range series {
		for _, x := range s {
			b := math.Float64bits(x)
			for i := range buf {
				buf[i] = byte(b >> (8 * i))
			}
			h.Write(buf[:])
		}
		h.Write([]byte{0xff}) // separates the series
	}
	seed := h.Sum64()
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// zScore is the standard normal quantile for a two-sided conf interval:
// 1.96 for 0.95.
func zScore(conf float64) float64 { return math.Sqrt2 * math.Erfinv(conf) }

// minOrderSamples returns the fewest samples for which a distribution-free
// two-sided conf interval of the p-th percentile (0 < p < 100) has an
// upper bound below the sample maximum: the largest order statistic
// exceeds the percentile with probability 1 - (p/100)^n, which must reach
// 1 - (1-conf)/2. 368 for p99 at 95%, 3688 for p99.9, 36887 for p99.99.
func minOrderSamples(p, conf float64) uint64 {
	if p <= 0 || p >= 100 {
		return 1
	}
	return uint64(math.Ceil(math.Log((1-conf)/2) / math.Log(p/100)))
}
