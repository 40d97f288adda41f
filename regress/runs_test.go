package regress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// fitted returns the spread of sessions of log values, with the
// assumed spread prior and the default prior weight, for one current run.
func fitted(groups [][]float64, prior float64) runSpread {
	s := runSpread{prior: prior, sessions: len(groups), cur: 1}
	for _, g := range groups {
		s.runs += len(g)
	}
	s.fit(groups, prior, runSpreadTau(DefaultRunSpreadRuns))
	return s
}

// within2 are ten sessions of one run each agreeing within 2% (sample
// sd 1.1%).
var within2 = [][]float64{{0.02}, {-0.02}, {0.01}, {-0.01}, {0}, {0.015}, {-0.015}, {0.005}, {-0.005}, {0.0}}

// familyLevel is the family-wise level of six metrics at 95%.
const familyLevel = 1 - 0.05/6

// oldOneRun is the half-width a baseline of one run was judged with
// before sessions were modelled: Student's t with 6 degrees of freedom
// times the assumed 10%, times sqrt(2).
func oldOneRun() float64 { return tQuantile(familyLevel, 6) * 0.10 * math.Sqrt2 }

func TestSessionsAgreeingNarrowTheSpread(t *testing.T) {
	s := fitted(within2, 0.10)
	require.InDelta(t, 0.015, s.sd, 0.008, "ten sessions within 2%% are judged at about their spread")
	hw := s.halfWidth(familyLevel)
	require.Less(t, hw, 0.1, "a 10%% change stands out of ten agreeing sessions")
	// Five of them: wider than ten, still narrower than the prior.
	five := fitted(within2[:5], 0.10)
	require.Greater(t, five.halfWidth(familyLevel), hw)
	require.Less(t, five.halfWidth(familyLevel), -math.Log(0.85), "a 15%% drop stands out of five agreeing sessions")
	// More sessions keep narrowing.
	require.Less(t, fitted(append(append([][]float64{}, within2...), within2...), 0.10).halfWidth(familyLevel), hw)
}

func TestOneSessionKeepsTheSpreadWide(t *testing.T) {
	s := fitted([][]float64{{0}}, 0.10)
	require.False(t, s.learned())
	require.GreaterOrEqual(t, s.halfWidth(familyLevel), oldOneRun(), "one session is judged no less cautiously than the assumed spread was")
	require.Contains(t, s.source(), "spread 10.0% assumed: the baseline holds 1 session")
}

func TestCountInOneSessionLearnsWithinOnly(t *testing.T) {
	one := fitted([][]float64{{0}}, 0.10)
	three := fitted([][]float64{{0.01, 0, -0.01}}, 0.10)
	// σ_w is learned: small.
	require.Less(t, three.within, one.within/2)
	// σ_b is not: the interval stays as wide as one run's, within 5%.
	require.InEpsilon(t, one.between, three.between, 0.05)
	require.GreaterOrEqual(t, three.halfWidth(familyLevel), oldOneRun())
	require.Contains(t, three.source(), "1 session of 3 runs, which measures the spread within a session only")
}

func TestNoisySessionsKeepTheirNoise(t *testing.T) {
	// Ten sessions spread 30% apart (sd 0.30 exactly).
	z := []float64{1.6, -1.6, 0.8, -0.8, 0, 1.2, -1.2, 0.4, -0.4, 0}
	var ss float64
	for _, v := range z {
		ss += v * v
	}
	var g [][]float64
	for _, v := range z {
		g = append(g, []float64{0.30 * v / math.Sqrt(ss/9)})
	}
	s := fitted(g, 0.10)
	require.Greater(t, s.sd, 0.24, "a noisy device is judged at its own noise")
	require.Greater(t, s.halfWidth(familyLevel), oldOneRun())
	// Tails learn their own: the same sessions under the p99.99 prior.
	require.InDelta(t, s.sd, fitted(g, 0.20).sd, 0.05)
}

func TestPredictiveQuantile(t *testing.T) {
	// One normal: the quantile is the normal's.
	p := predictive{w: []float64{1}, sd: []float64{0.1}}
	require.InDelta(t, zScore(0.95)*0.1, p.quantile(0.05), 1e-5)
	// A mixture lies between its parts.
	m := predictive{w: []float64{0.5, 0.5}, sd: []float64{0.1, 0.2}}
	q := m.quantile(0.05)
	require.Greater(t, q, zScore(0.95)*0.1)
	require.Less(t, q, zScore(0.95)*0.2)
	require.InDelta(t, 0.05, m.tail(q), 1e-4)
	require.Zero(t, predictive{}.quantile(0.05))
}

// BenchmarkRunSpread is the cost of one metric's spread: the posterior
// of ten sessions and two quantiles of its predictive mixture.
func BenchmarkRunSpread(b *testing.B) {
	for b.Loop() {
		s := fitted(within2, 0.10)
		_ = s.halfWidth(familyLevel)
		_ = s.halfWidth(0.95)
	}
}

// A device whose sessions agree within about 2% is judged at its own
// spread: with ten sessions in the baseline a 15% IOPS drop is a
// regression, where a baseline of one session (or of one session's
// -count=10) leaves it inconclusive, as the assumed spread did.
func TestCompareLearnsFromSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	p := process{seconds: 20, iops: 2000, phi: 0.5, sigma: 0.02, latMedian: 100e3, latSigma: 0.35}
	session := func(i int, factor float64) *baselines.Baseline {
		off := math.Exp(0.012 * rng.NormFloat64())
		b := p.run(t, rng, change{iops: off * factor, latency: 1 / (off * factor), tail: 1})
		b.Session = fmt.Sprintf("s%d", i)
		b.Created = b.Created.Add(time.Duration(i) * 7 * time.Hour)
		return b
	}
	var runs []*baselines.Baseline
	for i := range 10 {
		runs = append(runs, session(i, 1))
	}
	ten := multiRun(t, runs...)
	cur := session(99, 0.85)
	f, ok := Compare(ten, cur, Config{}).Finding("read.iops")
	require.True(t, ok)
	require.Equal(t, Regression, f.Verdict, f.Reason)
	require.Equal(t, 10, f.Sessions)
	require.Less(t, f.Spread, 0.04)
	require.Contains(t, f.Reason, "from 10 sessions over 3 days")

	f, _ = Compare(runs[0], cur, Config{}).Finding("read.iops")
	require.Equal(t, Inconclusive, f.Verdict, f.Reason)
	require.Equal(t, 0.10, f.Spread, "the spread reported is the one the reason names")
	require.Contains(t, f.Reason, "spread 10.0% assumed: the baseline holds 1 session")
	// The same ten runs made by one process: one session.
	var one []*baselines.Baseline
	for _, r := range runs {
		c := *r
		c.Session = "one"
		one = append(one, &c)
	}
	f, _ = Compare(multiRun(t, one...), cur, Config{}).Finding("read.iops")
	require.Equal(t, Inconclusive, f.Verdict, f.Reason)
	require.Equal(t, 1, f.Sessions)
}
