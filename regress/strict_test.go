package regress

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// learnedCase judges a finding whose interval from within the runs is
// ratio·exp(∓within), against a baseline of sessions of log values.
func learnedCase(better Better, ratio, within float64, groups [][]float64) Finding {
	c := &comparer{cfg: DefaultConfig(), z: zScore(0.95)}
	u := UnitIOPS
	if better == LowerIsBetter {
		u = UnitNS
	}
	f := Finding{Metric: "read.x", Unit: u, Better: better, Base: 1000, Current: 1000 * ratio, Ratio: ratio,
		Confidence: 0.95, Tolerance: Tolerance{Fraction: 0.1}, Samples: Samples{Kind: "seconds"}}
	f.wLo, f.wHi = within, within
	f.run = runSpread{prior: 0.1, sessions: len(groups), cur: 1}
	for _, g := range groups {
		f.run.runs += len(g)
	}
	f.run.fit(groups, 0.1, runSpreadTau(DefaultRunSpreadRuns))
	f.Sessions, f.Spread = f.run.sessions, f.run.sd
	c.decide(&f, 10, 1-0.05/6, 6)
	return f
}

// An unchanged rerun of a steady device passes strict mode: its own ten
// seconds may extrapolate a wide interval (a throttled device's bursts
// swing its per-second p99), but five sessions whose values agree
// within 1% show how much whole runs vary, and that is well inside the
// tolerance.
func TestStrictPassOnLearnedSpread(t *testing.T) {
	five := [][]float64{{0.01}, {-0.01}, {0.005}, {-0.005}, {0}}
	f := learnedCase(LowerIsBetter, 1.02, 0.3, five)
	require.Equal(t, Pass, f.Verdict, f.Reason)
	require.Contains(t, f.Reason, "within 10% tolerance")
	require.Contains(t, f.Reason, "from 5 sessions")
	// One session cannot tell: still too noisy.
	one := learnedCase(LowerIsBetter, 1.02, 0.3, [][]float64{{0}})
	require.Equal(t, Inconclusive, one.Verdict, one.Reason)
	require.Contains(t, one.Reason, "too noisy")
}

// A metric whose sessions vary beyond what its tolerance can hold is not
// compared, with the tolerance that would compare it; a significant
// change of it is still judged.
func TestNotComparedBeyondTolerance(t *testing.T) {
	// p50 of a throttled device: sessions 8% apart.
	wide := [][]float64{{0.1}, {-0.1}, {0.05}, {-0.08}, {0.02}, {0.12}, {-0.04}, {0.0}, {-0.11}, {0.06}}
	f := learnedCase(LowerIsBetter, 1.04, 0.3, wide)
	require.Equal(t, NotCompared, f.Verdict, f.Reason)
	require.Regexp(t, regexp.MustCompile(`: not compared: read x varies \d+\.\d% from session to session on this device \(from 10 sessions\), more than 10% tolerance can hold at 95% \(it would take \+\d+\.\d%\); compare it with a wider tolerance \(-stortest.tolerance 'read.x=\d+%'\) or turn it off$`), f.Reason)
	// Beyond tolerance, not significant: not compared either (no
	// number of runs would settle it).
	f = learnedCase(LowerIsBetter, 1.15, 0.3, wide)
	require.Equal(t, NotCompared, f.Verdict, f.Reason)
	// Doubled: a regression still.
	f = learnedCase(LowerIsBetter, 2.0, 0.05, wide)
	require.Equal(t, Regression, f.Verdict, f.Reason)
	// Three quiet sessions are not enough to give up on a metric: their
	// spread is uncertain, not wide.
	f = learnedCase(HigherIsBetter, 0.97, 0.3, [][]float64{{0.01}, {-0.01}, {0}})
	require.NotEqual(t, NotCompared, f.Verdict, f.Reason)
}

// plainFio returns the imported fio run without its histograms, as plain
// fio JSON (not json+) has none, in session s.
func plainFio(t *testing.T, s string, scale float64) *baselines.Baseline {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	require.NoError(t, err)
	defer f.Close()
	bs, err := baselines.ImportFio(f, "psync-randrw.json")
	require.NoError(t, err)
	b := bs[0]
	b.Session = s
	var dirs []*baselines.Dir
	for _, d := range b.Dirs {
		nd := *d
		for _, st := range []**baselines.Stat{&nd.Clat, &nd.Lat, &nd.Slat} {
			if *st != nil {
				c := **st
				c.Hist = nil
				c.P50, c.P99 = uint64(float64(c.P50)*scale), uint64(float64(c.P99)*scale)
				*st = &c
			}
		}
		dirs = append(dirs, &nd)
	}
	b.Dirs = dirs
	return b
}

// Percentiles of plain fio JSON are not compared, with the reason, until
// the baseline has sessions enough to compare them on; then they are
// judged, and an unchanged run passes.
func TestPlainFioPercentiles(t *testing.T) {
	// 16k I/Os a side: too few for a p99.99 whatever the JSON.
	cfg := quiet
	cfg.Rules = append(append([]Rule(nil), quiet.Rules...), Rule{Metric: "*.p99.99", Off: true})
	one := plainFio(t, "a", 1)
	r := Compare(one, plainFio(t, "cur", 1), cfg)
	p99, ok := r.Finding("read.clat.p99")
	require.True(t, ok)
	require.Equal(t, NotCompared, p99.Verdict, p99.Reason)
	require.Contains(t, p99.Reason, "not compared: plain fio JSON (not json+) has no histograms to measure the noise within a run, and the baseline holds 1 session; record json+")
	for _, f := range r.Inconclusive() {
		t.Log(f.Reason)
	}
	require.NotEqual(t, Inconclusive, r.Verdict, "not compared is not inconclusive: %s", r.Summary())
	require.Contains(t, r.Summary(), "not compared")

	base := plainFio(t, "a", 1)
	for i, s := range []float64{1.01, 0.99, 1.005} {
		require.NoError(t, base.AddRun(plainFio(t, string(rune('b'+i)), s)))
	}
	r = Compare(base, plainFio(t, "cur", 1), cfg)
	p99, _ = r.Finding("read.clat.p99")
	require.Equal(t, Pass, p99.Verdict, p99.Reason)
	require.Contains(t, p99.Reason, "from 4 sessions")
	require.Contains(t, p99.Samples.Method, "the spread between the baseline's sessions alone")
	// A doubled p99 stands out of four sessions within 1%.
	r = Compare(base, plainFio(t, "cur", 2), cfg)
	p99, _ = r.Finding("read.clat.p99")
	require.Equal(t, Regression, p99.Verdict, p99.Reason)
}

// Reasons that count slices or fio's intervals say what they are.
func TestKindNote(t *testing.T) {
	c := &comparer{base: &baselines.Baseline{}}
	require.Equal(t, " (a slice is 100ms of the run's throughput: runs 1.2s longer)", c.kindNote("slices", 12))
	require.Equal(t, " (an interval is one of fio's 500ms IOPS samples: runs 2.5s longer)", c.kindNote("intervals", 5))
	require.Equal(t, "", c.kindNote("seconds", 5))
	f := decideCaseKind(HigherIsBetter, 0.97, 0.8, 1.1, "intervals")
	require.Equal(t, Inconclusive, f.Verdict, f.Reason)
	require.Contains(t, f.Reason, "more intervals per run needed (an interval is one of fio's 500ms IOPS samples: runs ")
}

func decideCaseKind(better Better, ratio, lo, hi float64, kind string) Finding {
	cfg := DefaultConfig()
	cfg.RunSpread = -1
	c := &comparer{cfg: cfg, z: zScore(0.95), base: &baselines.Baseline{}}
	f := Finding{Metric: "read.x", Unit: UnitIOPS, Better: better, Base: 1000, Current: 1000 * ratio, Ratio: ratio,
		Confidence: 0.95, Tolerance: Tolerance{Fraction: 0.1}, Samples: Samples{Kind: kind}}
	f.wLo, f.wHi = -math.Log(lo/ratio), math.Log(hi/ratio)
	c.decide(&f, 10, 0.95, 1)
	return f
}

// No reason says a spread is beyond itself ("12.0%, beyond the 12.0%
// assumed"): a spread is either assumed (one session) or learned, and
// the advice names no second figure.
func TestReasonsNoContradiction(t *testing.T) {
	pct := regexp.MustCompile(`\d+\.\d%`)
	for _, groups := range [][][]float64{
		{{0}}, {{0.12, -0.12, 0}}, {{0.12}, {-0.12}, {0.0}}, {{0.2}, {-0.2}, {0.1}, {-0.1}, {0}},
		{{0.01}, {-0.01}, {0.0}}, {{0.12}, {-0.12}, {0.06}, {-0.06}, {0}, {0.1}, {-0.1}, {0.03}},
	} {
		for _, ratio := range []float64{0.6, 0.8, 0.88, 0.95, 1.2} {
			f := learnedCase(HigherIsBetter, ratio, 0.05, groups)
			require.NotContains(t, f.Reason, "beyond the", f.Reason)
			if f.run.learned() {
				require.NotContains(t, f.Reason, "assumed", f.Reason)
			} else {
				require.Contains(t, f.Reason, "assumed: the baseline holds 1 session", f.Reason)
			}
			// The head names one spread; the advice adds none.
			if i := regexp.MustCompile(`; (spread|no spread)`).FindStringIndex(f.Reason); i != nil {
				require.LessOrEqual(t, len(pct.FindAllString(f.Reason[i[0]:], -1)), 3, f.Reason)
			}
		}
	}
}

// The mean completion latency is compared by default where the runs
// kept per-second clat means, and otherwise not compared (by default),
// with the reason; a rule that names it compares it on the drift of p50.
func TestMeanComparedByDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	base := pacedRun(t, 12, 500, rng, throttled(rng, 1e6))
	cur := pacedRun(t, 12, 500, rng, throttled(rng, 1e6))
	r := Compare(base, cur, Config{})
	f, ok := r.Finding("read.clat.mean")
	require.True(t, ok, "compared by default")
	require.Equal(t, Pass, f.Verdict, f.Reason)
	require.Contains(t, f.Samples.Method, "per-second clat means")

	r = Compare(withoutMeans(base), withoutMeans(cur), Config{})
	f, _ = r.Finding("read.clat.mean")
	require.Equal(t, NotCompared, f.Verdict, f.Reason)
	require.Contains(t, f.Reason, "not compared by default: the runs keep no per-second clat means")
	var cfg Config
	cfg.Set("*.clat.mean", Tolerance{Fraction: 0.1, Floor: 1000})
	f, _ = Compare(withoutMeans(base), withoutMeans(cur), cfg).Finding("read.clat.mean")
	require.NotEqual(t, NotCompared, f.Verdict, f.Reason)
	require.Contains(t, f.Samples.Method, "per-second clat p50")
}
