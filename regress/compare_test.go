package regress

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// veryNoisy drifts twice as much, with longer correlations: the run-level
// IOPS of a 60 s run varies by ~6%, so a 10% tolerance is at the edge of
// what it can resolve.
var veryNoisy = func() process { p := noisy; p.sigma, p.phi = 0.15, 0.8; return p }()

// The defaults must not flag an unchanged device: two independent runs of
// the same noisy process, many times, give a regression verdict less than
// 5% of the time, for a moderately noisy device and a very noisy one, long
// and short runs.
func TestDefaultsDoNotFlagUnchangedDevice(t *testing.T) {
	short := veryNoisy
	short.seconds = 30
	cases := []struct {
		name   string
		p      process
		trials int
	}{
		{"noisy-60s", noisy, 150},
		{"very-noisy-60s", veryNoisy, 150},
		{"very-noisy-30s", short, 150},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verdicts, perMetric := rates(t, tc.p, unchanged, tc.trials, uint64(100+i), Config{})
			rate := float64(verdicts[Regression]) / float64(tc.trials)
			t.Logf("false-regression rate %.1f%% (%d of %d); verdicts %v; regressions per metric %v",
				100*rate, verdicts[Regression], tc.trials, verdicts, perMetric)
			require.Less(t, rate, 0.05)
		})
	}
}

// On the moderately noisy device the defaults pass most metrics of an
// unchanged run (a gate that is always inconclusive is no gate), and
// leave p99.99 of 120k I/Os with stalls at 0.02% inconclusive rather than
// guess.
func TestDefaultsPassUnchangedDevice(t *testing.T) {
	const trials = 60
	pass := map[string]int{}
	for i := range trials {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		r := Compare(noisy.run(t, rng, unchanged), noisy.run(t, rng, unchanged), quiet)
		for _, f := range r.Findings {
			if f.Verdict.OK() {
				pass[f.Metric]++
			}
		}
	}
	t.Logf("passes of %d: %v", trials, pass)
	for _, m := range []string{"read.iops", "read.bw", "read.errors", "read.clat.p50", "read.clat.p99", "read.clat.p99.9"} {
		require.GreaterOrEqual(t, pass[m], trials*8/10, m)
	}
}

// The defaults flag a 30% IOPS drop (latency up by 1/0.7 at a fixed queue
// depth) and a doubled tail (latencies above the 90th percentile x2), even
// on the very noisy device. The drop's +43% at p99 is not flagged with a
// baseline of one run: a p99 moves that much between runs of a loaded
// machine (DefaultRunSpread), which one run cannot rule out.
func TestDefaultsFlagRegressions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       process
		ch      change
		metrics []string
		min     float64 // fraction of trials flagged
	}{
		{"iops-drop-30pct", noisy, change{iops: 0.7, latency: 1 / 0.7, tail: 1}, []string{"read.iops", "read.bw", "read.clat.p50"}, 0.99},
		{"p99-2x", noisy, change{iops: 1, latency: 1, tail: 2}, []string{"read.clat.p99", "read.clat.p99.9"}, 0.99},
		{"iops-drop-30pct-very-noisy", veryNoisy, change{iops: 0.7, latency: 1 / 0.7, tail: 1}, []string{"read.iops"}, 0.75},
		{"p99-2x-very-noisy", veryNoisy, change{iops: 1, latency: 1, tail: 2}, []string{"read.clat.p99"}, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const trials = 40
			verdicts, perMetric := rates(t, tc.p, tc.ch, trials, 3, quiet)
			t.Logf("verdicts %v; regressions per metric %v", verdicts, perMetric)
			for _, m := range tc.metrics {
				require.GreaterOrEqual(t, float64(perMetric[m]), tc.min*trials, m)
			}
			require.GreaterOrEqual(t, float64(verdicts[Regression]), tc.min*trials)
		})
	}
}

// The same inputs give the same report, to the last bit: the bootstrap is
// seeded from the inputs.
func TestCompareDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base, cur := noisy.run(t, rng, unchanged), noisy.run(t, rng, change{iops: 0.9, latency: 1.1, tail: 1})
	a, b := Compare(base, cur, quiet), Compare(base, cur, quiet)
	if diff := cmp.Diff(a, b, cmp.AllowUnexported(Finding{}, runSpread{}, predictive{})); diff != "" {
		t.Fatalf("(-first +second):\n%s", diff)
	}
	// A different input gives different resamples.
	cur.Seconds[0].Dirs[0].IOs++
	c := Compare(base, cur, quiet)
	fa, _ := a.Finding("read.iops")
	fc, _ := c.Finding("read.iops")
	require.NotEqual(t, fa.Interval, fc.Interval)
}

func TestReasonFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	base, cur := noisy.run(t, rng, unchanged), noisy.run(t, rng, change{iops: 1, latency: 1, tail: 1.5})
	r := Compare(base, cur, quiet)
	f, ok := r.Finding("read.clat.p99")
	require.True(t, ok)
	require.Equal(t, Regression, f.Verdict)
	// The interval printed is the family-wise one the verdict rests on
	// (7 metrics compared: 1-0.05/7).
	require.Regexp(t, regexp.MustCompile(`^read clat p99 \d+(\.\d+)?µs vs baseline \d+(\.\d+)?µs \(\+\d+\.\d%, 99.29% CI \+\d+\.\d%\.\.\+\d+\.\d%; spread 2\.0% assumed: the baseline holds 1 session\): regression beyond 10% tolerance$`), f.Reason)
	require.InDelta(t, 1-0.05/7, f.Confidence, 1e-12)
	require.InDelta(t, f.Current/f.Base, f.Ratio, 1e-12)
	require.Less(t, f.Interval.Low, f.Ratio)
	require.Greater(t, f.Interval.High, f.Ratio)
	require.Equal(t, "seconds", f.Samples.Kind)
	require.Contains(t, f.Samples.Method, "moving-block bootstrap")
	require.Equal(t, Regression, r.Verdict)
	require.Contains(t, r.Summary(), "sim: regression (")
}

// Too few samples is Inconclusive with how many more would do.
func TestInconclusiveTooFewSamples(t *testing.T) {
	p := noisy
	p.seconds, p.iops = 5, 2000
	rng := rand.New(rand.NewPCG(9, 9))
	r := Compare(p.run(t, rng, unchanged), p.run(t, rng, unchanged), quiet)
	for _, tc := range []struct {
		metric string
		more   uint64
		reason string
	}{
		{"read.iops", 5, "5 seconds in the shorter run, need 10 (5 more)"},
		{"read.clat.p99", 5, "need 10 to measure the drift between seconds"},
		{"read.clat.p99.99", 0, "needs 36887 I/Os per run"},
	} {
		t.Run(tc.metric, func(t *testing.T) {
			f, ok := r.Finding(tc.metric)
			require.True(t, ok)
			require.Equal(t, Inconclusive, f.Verdict, f.Reason)
			require.Contains(t, f.Reason, tc.reason)
			if tc.more > 0 {
				require.Equal(t, tc.more, f.More)
			} else {
				require.Equal(t, uint64(36887)-min(f.Samples.Base, f.Samples.Current), f.More)
			}
		})
	}
	require.Equal(t, Inconclusive, r.Verdict)
}

// decideCase builds a finding with a given interval from within the runs
// (no run-to-run spread) and judges it alone.
func decideCase(better Better, base, ratio, lo, hi float64, tol Tolerance) Finding {
	cfg := DefaultConfig()
	cfg.RunSpread = -1
	c := &comparer{cfg: cfg, z: zScore(0.95)}
	u := UnitIOPS
	if better == LowerIsBetter {
		u = UnitNS
	}
	f := Finding{Metric: "read.x", Unit: u, Better: better, Base: base, Current: base * ratio, Ratio: ratio,
		Confidence: 0.95, Tolerance: tol, Samples: Samples{Kind: "seconds"}}
	f.wLo, f.wHi = -math.Log(lo/ratio), math.Log(hi/ratio)
	c.decide(&f, 60, 0.95, 1)
	return f
}

func TestDecide(t *testing.T) {
	ten := Tolerance{Fraction: 0.10}
	for _, tc := range []struct {
		name          string
		better        Better
		base          float64
		ratio, lo, hi float64
		tol           Tolerance
		want          Verdict
		reason        string
		more          bool
	}{
		{"iops-drop-significant", HigherIsBetter, 1000, 0.7, 0.65, 0.75, ten, Regression, "regression beyond 10% tolerance", false},
		{"iops-drop-noisy", HigherIsBetter, 1000, 0.85, 0.7, 1.05, ten, Inconclusive, "but the interval includes no change", true},
		{"iops-within", HigherIsBetter, 1000, 0.97, 0.93, 1.01, ten, Pass, "within 10% tolerance", false},
		{"iops-within-too-noisy", HigherIsBetter, 1000, 0.97, 0.8, 1.1, ten, Inconclusive, "too noisy", true},
		{"iops-rise", HigherIsBetter, 1000, 1.3, 1.2, 1.4, ten, Improvement, "improvement beyond 10% tolerance", false},
		{"iops-rise-noisy", HigherIsBetter, 1000, 1.15, 0.98, 1.3, ten, Pass, "pass: better by 15.0%, beyond 10% tolerance, but not confirmed: the interval includes no change", false},
		{"latency-fall-noisy", LowerIsBetter, 2e6, 0.7, 0.5, 1.02, ten, Pass, "pass: better by 30.0%, beyond 10% tolerance, but not confirmed", false},
		{"latency-rise", LowerIsBetter, 2e6, 1.25, 1.15, 1.35, ten, Regression, "regression beyond 10% tolerance", false},
		{"latency-fall", LowerIsBetter, 2e6, 0.7, 0.65, 0.75, ten, Improvement, "improvement", false},
		{"latency-11pct-significant", LowerIsBetter, 2e6, 1.11, 1.02, 1.2, ten, Regression, "regression", false},
		{"latency-under-floor", LowerIsBetter, 500, 1.6, 1.4, 1.8, Tolerance{Fraction: 0.1, Floor: 1000}, Pass, "within 1µs tolerance", false},
		{"latency-over-floor", LowerIsBetter, 500, 3.5, 3.2, 3.8, Tolerance{Fraction: 0.1, Floor: 1000}, Regression, "beyond 1µs tolerance", false},
		{"fraction-of-smaller", LowerIsBetter, 100, 1.105, 1.104, 1.106, ten, Regression, "beyond 10% tolerance", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := decideCase(tc.better, tc.base, tc.ratio, tc.lo, tc.hi, tc.tol)
			require.Equal(t, tc.want, f.Verdict, f.Reason)
			require.Contains(t, f.Reason, tc.reason)
			require.Equal(t, tc.more, f.More > 0, "More=%d: %s", f.More, f.Reason)
			if tc.want == Pass && strings.Contains(f.Reason, "better by") {
				require.NotContains(t, f.Reason, "within", "an improvement not confirmed is not within tolerance")
			}
		})
	}
}

// With many metrics a regression must hold at the family-wise level: an
// estimate just past tolerance whose 95% interval barely excludes no
// change is not enough when 7 metrics are compared.
func TestDecideFamilyWise(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunSpread = -1
	c := &comparer{cfg: cfg, z: zScore(0.95)}
	f := Finding{Metric: "read.iops", Unit: UnitIOPS, Better: HigherIsBetter, Base: 1000, Current: 880, Ratio: 0.88,
		Confidence: 0.95, Tolerance: Tolerance{Fraction: 0.1}, Samples: Samples{Kind: "seconds"}}
	f.wLo, f.wHi = -math.Log(0.8/0.88), math.Log(0.98/0.88)
	alone := f
	c.decide(&alone, 60, 0.95, 1)
	require.Equal(t, Regression, alone.Verdict, alone.Reason)
	family := f
	c.decide(&family, 60, 1-0.05/7, 7)
	require.Equal(t, Inconclusive, family.Verdict)
	require.Contains(t, family.Reason, "99.29% CI")
	require.Contains(t, family.Reason, "the interval (family-wise over 7 metrics) includes no change")
	require.Greater(t, family.More, uint64(0))
}

// Fingerprint and workload changes are reported with the findings; they
// do not change verdicts.
func TestCompareReportsChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	base, cur := noisy.run(t, rng, unchanged), noisy.run(t, rng, unchanged)
	cur.Fingerprint.Firmware = "1.1"
	cur.Job.IODepth = 16
	r := Compare(base, cur, quiet)
	require.Equal(t, []baselines.Change{{Field: "firmware", Old: "1.0", New: "1.1"}}, r.Fingerprint)
	require.Equal(t, []baselines.Change{{Field: "iodepth", Old: "32", New: "16"}}, r.Job)
	require.Contains(t, r.Summary(), "; firmware 1.0 -> 1.1; workload changed: iodepth 32 -> 16")
	require.NotEqual(t, Regression, r.Verdict)
}

func TestCompareDirections(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	base := noisy.run(t, rng, unchanged)
	t.Run("missing-in-current", func(t *testing.T) {
		cur := *base
		cur.Dirs = nil
		w := *base.Dirs[0]
		w.Name = "write"
		cur.Dirs = []*baselines.Dir{&w}
		r := Compare(base, &cur, quiet)
		f, ok := r.Finding("read.iops")
		require.True(t, ok)
		require.Equal(t, Regression, f.Verdict)
		require.Contains(t, f.Reason, "no read I/O in the current run")
		g, ok := r.Finding("write.iops")
		require.True(t, ok)
		require.Equal(t, Inconclusive, g.Verdict)
		require.Contains(t, g.Reason, "the baseline has no write I/O")
		require.Equal(t, Regression, r.Verdict)
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			b, c   uint64
			want   Verdict
			reason string
		}{
			{"none", 0, 0, Pass, "no I/O errors"},
			{"new-errors", 0, 3, Regression, "I/O errors where the baseline had none"},
			{"more-errors", 2, 5, Regression, "error rate"},
			{"fewer-errors", 5, 1, Improvement, "improvement"},
			{"same-errors", 4, 4, Pass, "within 0% tolerance"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b, c := *base, *base
				bd, cd := *base.Dirs[0], *base.Dirs[0]
				bd.Errors, cd.Errors = tc.b, tc.c
				b.Dirs, c.Dirs = []*baselines.Dir{&bd}, []*baselines.Dir{&cd}
				f, ok := Compare(&b, &c, quiet).Finding("read.errors")
				require.True(t, ok)
				require.Equal(t, tc.want, f.Verdict, f.Reason)
				require.Contains(t, f.Reason, tc.reason)
			})
		}
	})
}

// Rules choose what is compared and how.
func TestCompareRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	base, cur := noisy.run(t, rng, unchanged), noisy.run(t, rng, change{iops: 0.93, latency: 1 / 0.93, tail: 1})
	var cfg Config
	cfg.Disable("*.clat.*")
	cfg.Set("read.clat.p90", Tolerance{Fraction: 0.02})
	cfg.Set("*.lat.p99", Tolerance{Fraction: 0.1})
	cfg.Set("read.iops", Tolerance{Fraction: 0.03})
	r := Compare(base, cur, cfg)
	var metrics []string
	for _, f := range r.Findings {
		metrics = append(metrics, f.Metric)
	}
	require.Equal(t, []string{"read.iops", "read.bw", "read.errors", "read.clat.p90", "read.lat.p99"}, metrics)
	f, _ := r.Finding("read.iops")
	require.Equal(t, Tolerance{Fraction: 0.03}, f.Tolerance)
	names, compared := Metrics(base, cfg)
	require.Len(t, names, len(compared))
	require.Contains(t, names, "read.lat.p99.99")
	n := 0
	for _, c := range compared {
		if c {
			n++
		}
	}
	require.Equal(t, 5, n)
}

// Imported fio results (no per-second samples) compare on fio's sample
// moments: five samples a side (a 3 s run) are enough to tell that a run
// equals itself.
func TestCompareImportedFio(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "fio", "psync-randrw.json"))
	require.NoError(t, err)
	defer f.Close()
	bs, err := baselines.ImportFio(f, "psync-randrw.json")
	require.NoError(t, err)
	r := Compare(bs[0], bs[0], quiet)
	for _, fd := range r.Findings {
		require.NotEqual(t, Regression, fd.Verdict, fd.Reason)
		require.Equal(t, 1.0, fd.Ratio, fd.Metric)
	}
	iops, _ := r.Finding("read.iops")
	require.Equal(t, Pass, iops.Verdict, iops.Reason)
	require.Equal(t, uint64(5), iops.Samples.Base, iops.Reason)

	// fio's moments stand in for the per-second samples of a longer run.
	long := *bs[0]
	d := *long.Dirs[0]
	d.IOPSSamples.N = 60
	long.Dirs = []*baselines.Dir{&d}
	r = Compare(&long, &long, quiet)
	iops, _ = r.Finding("read.iops")
	require.Equal(t, Pass, iops.Verdict, iops.Reason)
	require.Equal(t, "intervals", iops.Samples.Kind)
	p99, _ := r.Finding("read.clat.p99")
	require.Equal(t, Pass, p99.Verdict, p99.Reason)
	require.Contains(t, p99.Samples.Method, "fio's IOPS sample moments")
}

// Metrics with a zero baseline produce a finite JSON report.
func TestFindingJSONNonFinite(t *testing.T) {
	f := Finding{Metric: "read.errors", Ratio: math.Inf(1), Verdict: Regression}
	data, err := f.MarshalJSON()
	require.NoError(t, err)
	require.Contains(t, string(data), `"Ratio":null`)
	require.Contains(t, string(data), `"Verdict":"regression"`)
	_ = time.Second
}

// quiet is the configuration of the simulated devices' comparisons: they
// vary 2% from run to run, so that the tests judge the statistics within
// the runs, not the spread assumed of a shared host's disk.
var quiet = Config{RunSpread: 0.02}

// A regression measured on a shared device, or an improvement over a
// baseline recorded on one, is inconclusive, and says why; the other way
// round each stands.
func TestSharedDevice(t *testing.T) {
	runs := noiseRuns(t, "cpu", "10s")
	const shared = "vda moved 20MiB/s besides the run's I/O (195MiB/s)"
	verdicts := func(r Report, v Verdict) (n int) {
		for _, f := range r.Findings {
			if f.Verdict == v {
				n++
			}
		}
		return n
	}
	slow := slowed(runs[1], 0.2)
	require.Equal(t, Regression, Compare(runs[0], slow, Config{}).Verdict)
	sharedSlow := *slow
	sharedSlow.Shared = shared
	r := Compare(runs[0], &sharedSlow, Config{})
	require.Equal(t, Inconclusive, r.Verdict)
	require.Zero(t, verdicts(r, Regression))
	f, ok := r.Finding("read.iops")
	require.True(t, ok)
	require.Equal(t, Inconclusive, f.Verdict)
	require.Contains(t, f.Reason, ": inconclusive: worse beyond 10% tolerance, but the current run's device was shared ("+shared+"): rerun where nothing else uses it")
	// A shared baseline does not excuse a regression.
	sharedBase := *runs[0]
	sharedBase.Shared = shared
	require.Equal(t, Regression, Compare(&sharedBase, slow, Config{}).Verdict)

	// Improvements: over a baseline of three runs, one of them shared.
	iops := func(base, cur *baselines.Baseline) Finding {
		f, ok := Compare(base, cur, Config{}).Finding("read.iops")
		require.True(t, ok)
		return f
	}
	base := multiRun(t, slowed(runs[2], 0.2), slowed(runs[3], 0.2), slowed(runs[4], 0.2))
	require.Equal(t, Improvement, iops(base, runs[5]).Verdict)
	tainted := slowed(runs[3], 0.2)
	tainted.Shared = shared
	base = multiRun(t, slowed(runs[2], 0.2), tainted, slowed(runs[4], 0.2))
	f = iops(base, runs[5])
	require.Equal(t, Inconclusive, f.Verdict)
	require.Contains(t, f.Reason, ": inconclusive: better beyond 10% tolerance, but the baseline's device was shared in 1 of its 3 runs ("+shared+")")
	// An improvement measured on a shared device stands.
	sharedCur := *runs[5]
	sharedCur.Shared = shared
	require.Equal(t, Improvement, iops(multiRun(t, slowed(runs[2], 0.2), slowed(runs[3], 0.2), slowed(runs[4], 0.2)), &sharedCur).Verdict)
}
