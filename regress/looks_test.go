package regress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

func TestSpent(t *testing.T) {
	alpha := 0.05
	require.Equal(t, alpha, Config{}.Spent(alpha))
	require.Equal(t, alpha, Config{Looks: 1, Look: 1}.Spent(alpha))
	var sum float64
	prev := 0.0
	for k := 1; k <= 5; k++ {
		a := Config{Looks: 5, Look: k}.Spent(alpha)
		require.Greater(t, a, 0.0)
		if k > 1 {
			require.Less(t, a, prev, "front-loaded: look %d", k)
		}
		prev = a
		sum += a
	}
	require.InDelta(t, alpha, sum, 1e-12, "the looks spend the alpha, no more")
	require.InDelta(t, alpha*math.Sqrt(0.2), Config{Looks: 5, Look: 1}.Spent(alpha), 1e-12)
	// Out of range looks are clamped.
	require.Equal(t, Config{Looks: 5, Look: 5}.Spent(alpha), Config{Looks: 5, Look: 9}.Spent(alpha))
}

// TestLooksKeepFalseAlarms simulates unchanged sessions: a baseline of J
// sessions and a current session whose runs are judged after each, up
// to Looks runs, on the session model's interval at each look's share
// of the alpha. An unchanged device is flagged (at any look) at most
// 1-Confidence of the time; judged at the full alpha at every look, it
// would be flagged more often.
func TestLooksKeepFalseAlarms(t *testing.T) {
	const (
		trials = 600
		looks  = 5
		alpha  = 0.05
	)
	for _, tc := range []struct {
		name           string
		J              int
		sigmaB, sigmaW float64
	}{
		{"5 quiet sessions", 5, 0.02, 0.01},
		{"10 sessions, noisy within", 10, 0.02, 0.04},
		{"3 sessions at the prior", 3, 0.10, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.J), 22))
			var spent, unspent int
			for range trials {
				groups := make([][]float64, tc.J)
				var base float64
				for j := range groups {
					b := tc.sigmaB * rng.NormFloat64()
					groups[j] = []float64{b + tc.sigmaW*rng.NormFloat64()}
					base += groups[j][0]
				}
				base /= float64(tc.J)
				bc := tc.sigmaB * rng.NormFloat64()
				var sum float64
				flagged, flaggedUnspent := false, false
				for k := 1; k <= looks; k++ {
					sum += bc + tc.sigmaW*rng.NormFloat64()
					s := runSpread{prior: 0.10, sessions: tc.J, runs: tc.J, cur: k}
					s.fit(groups, 0.10, runSpreadTau(DefaultRunSpreadRuns))
					d := math.Abs(sum/float64(k) - base)
					if d > s.halfWidth(1-Config{Looks: looks, Look: k}.Spent(alpha)) {
						flagged = true
					}
					if d > s.halfWidth(1-alpha) {
						flaggedUnspent = true
					}
				}
				if flagged {
					spent++
				}
				if flaggedUnspent {
					unspent++
				}
			}
			rate := float64(spent) / trials
			t.Logf("%s: flagged over %d looks %.2f%% with the alpha spent, %.2f%% judged at the full alpha each look", tc.name, looks, 100*rate, 100*float64(unspent)/trials)
			require.LessOrEqual(t, rate, alpha, "false alarms over all looks")
			require.Greater(t, unspent, spent, "spending the alpha matters")
		})
	}
}

// runAgainCase decides an inconclusive IOPS drop of 12% (noise within
// the runs ±1%) against a baseline of sessions of log values.
func runAgainCase(t *testing.T, groups [][]float64) Report {
	t.Helper()
	c := &comparer{cfg: DefaultConfig(), z: zScore(0.95)}
	f := Finding{Metric: "read.iops", Unit: UnitIOPS, Better: HigherIsBetter, Base: 1000, Current: 880, Ratio: 0.88,
		Confidence: 0.95, Tolerance: Tolerance{Fraction: 0.1}, Samples: Samples{Kind: "seconds"}}
	f.wLo, f.wHi = 0.01, 0.01
	f.run = runSpread{prior: 0.1, sessions: len(groups), cur: 1}
	for _, g := range groups {
		f.run.runs += len(g)
	}
	f.run.fit(groups, 0.1, runSpreadTau(DefaultRunSpreadRuns))
	c.decide(&f, 60, 1-0.05/6, 6)
	return Report{Verdict: f.Verdict, Findings: []Finding{f}}
}

func TestRunAgain(t *testing.T) {
	// Sessions that agree, whose runs do not: the current session's
	// spread dominates, and another run of it would narrow it.
	within := [][]float64{{0.06, -0.06, 0}, {0.05, -0.07, 0.01}, {0.07, -0.05, -0.01}, {0.06, -0.05, 0}, {0.05, -0.06, 0.01}}
	r := runAgainCase(t, within)
	require.Equal(t, Inconclusive, r.Verdict, r.Findings[0].Reason)
	require.True(t, r.RunAgain())
	require.Contains(t, r.Findings[0].Reason, "another run of this session would narrow it")
	// One session: only more sessions can teach the gate.
	r = runAgainCase(t, [][]float64{{0}})
	require.Equal(t, Inconclusive, r.Verdict, r.Findings[0].Reason)
	require.False(t, r.RunAgain())
	require.Contains(t, r.Findings[0].Reason, "add runs of separate sessions to the baseline")
	// Sessions that disagree: the spread between them dominates, and
	// beyond what a 10% tolerance can hold.
	r = runAgainCase(t, [][]float64{{0.06}, {-0.06}, {0.0}, {0.08}, {-0.07}})
	require.Equal(t, NotCompared, r.Verdict, r.Findings[0].Reason)
	require.False(t, r.RunAgain())
	// Sessions that disagree less: inconclusive, and more sessions, not
	// runs, would narrow it.
	r = runAgainCase(t, [][]float64{{0.03}, {-0.03}, {0.0}, {0.04}, {-0.035}})
	require.Equal(t, Inconclusive, r.Verdict, r.Findings[0].Reason)
	require.False(t, r.RunAgain())
	// Nothing inconclusive, nothing to run again for.
	require.False(t, Report{Findings: []Finding{{Verdict: Pass, again: true}}}.RunAgain())
	// Short of samples per run: longer runs, not more.
	require.False(t, Report{Verdict: Inconclusive, Findings: []Finding{{Verdict: Inconclusive, More: 5}}}.RunAgain())
}

// The current runs of one session (a repeat) are judged by their
// geometric mean, at the level of this look's share of the alpha.
func TestCompareCurrentRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p := noisy
	p.seconds = 20
	base := p.run(t, rng, unchanged)
	base.Session = "base"
	var runs []*baselines.Baseline
	for range 3 {
		r := p.run(t, rng, change{iops: 0.9, latency: 1, tail: 1})
		r.Session = "current"
		runs = append(runs, r)
	}
	cur := multiRun(t, runs...)
	cfg := Config{Looks: 5, Look: 3}
	rep := Compare(base, cur, cfg)
	f, ok := rep.Finding("read.iops")
	require.True(t, ok)
	geo := math.Exp((math.Log(runs[0].Dirs[0].IOPS) + math.Log(runs[1].Dirs[0].IOPS) + math.Log(runs[2].Dirs[0].IOPS)) / 3)
	require.InEpsilon(t, geo, f.Current, 1e-9)
	require.Contains(t, f.Reason, "(mean of 3 runs)")
	require.InDelta(t, 1-cfg.Spent(0.05)/float64(rep.Metrics), rep.Level, 1e-12)
	require.InDelta(t, rep.Level, f.Confidence, 1e-12)
	require.Contains(t, rep.Summary(), fmt.Sprintf("95%% family-wise over %d metrics and 5 looks (look 3)", rep.Metrics))
}
