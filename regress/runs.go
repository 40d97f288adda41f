package regress

import (
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"stortest.dev/baselines"
)

// Run-to-run spread.
//
// Everything a single run records (its seconds, its slices, its I/Os)
// measures the noise within that run. Two runs of an unchanged device
// also differ by what stays fixed for a run's length: the neighbour busy
// for a minute, the state of the SSD's garbage collection, the page
// cache, the CPU the job thread landed on. No interval from inside one
// run sees it, and a gate blind to it flags unchanged devices on noisy
// hosts. So every compared metric also carries a run-to-run spread: the
// standard deviation, on the log scale, of one run's value around the
// device's. A baseline recorded from several runs (go test -count=N
// -stortest.update) measures it for that device; before (and besides)
// that, a spread is assumed (DefaultRunSpread, or Config.RunSpread), with
// the weight of Config.RunSpreadRuns runs. This is the conjugate (scaled
// inverse chi-squared) prior of a normal variance: the spread used is
//
//	s² = (ν₀·σ₀² + (k-1)·s_k²) / (ν₀ + k - 1)
//
// with ν₀ + k - 1 degrees of freedom, for k runs in the baseline whose
// log values have the sample variance s_k². The current run is one more
// draw, so the change it shows is judged against Student's t with those
// degrees of freedom times s·sqrt(2) (see halfWidth).
//
// Runs that agree widen nothing and narrow nothing: the interval is never
// narrower than the assumed spread alone gives. Runs recorded one after
// the other share the host's state of the moment, and their agreement
// says little about a later day: on recorded unchanged runs of a
// CPU-loaded VM (testdata/noise/cpu, 10 s runs), baselines of three
// consecutive runs that agreed flagged 13 of 208 unchanged comparisons
// when their agreement narrowed the interval, against 3 of 240 for
// baselines of one run. Where runs disagree, their spread widens it.
//
// The spread guards the regression (and improvement) verdict only: a
// change is a regression when it stands out from the noise within the
// runs and from the spread between them. Whether a run is precise enough
// to call within tolerance rests on the noise within the runs, so that a
// baseline of one run is not inconclusive for what it cannot know.

// DefaultRunSpreadRuns is the weight of the assumed run-to-run spread, in
// baseline runs: six, so that a baseline of a few runs showing more
// spread moves it a good part of the way, and Student's t of a single
// run's comparison stays near 4 at the family-wise level.
const DefaultRunSpreadRuns = 6

// DefaultRunSpread returns the run-to-run spread assumed of a metric
// ("read.iops", "write.clat.p99.9") as a log-scale standard deviation:
// 10% for throughput and for mean and median latency, 12% for p90 and
// p99, 15% for p99.9 and 20% for p99.99. These are what unchanged runs of
// the README's job on a disk-backed loop device of a CPU-loaded 2-core VM
// showed (regress/testdata/noise/cpu: IOPS and p50 13-15%, p99 10-16%,
// p99.9 13-15%, p99.99 17-25%), rounded down: a shared CI host's disk is
// that noisy from run to run however steady each run is. With a baseline
// of one run, a change must then exceed about 43% in IOPS (twice as slow
// is a regression), 48% in p99 and 67% in p99.9, beyond the noise within
// the runs, to be called a regression; a baseline of several runs that
// disagree widens that, and Config.RunSpread sets a device's own (a
// quiet, dedicated device earns a smaller one).
func DefaultRunSpread(metric string) float64 {
	switch {
	case strings.HasSuffix(metric, ".p99.99"):
		return 0.20
	case strings.HasSuffix(metric, ".p99.9"):
		return 0.15
	case strings.HasSuffix(metric, ".p90"), strings.HasSuffix(metric, ".p99"):
		return 0.12
	}
	return 0.10
}

// runSpread is a metric's run-to-run spread: the log-scale standard
// deviation sd with df degrees of freedom, from k baseline runs whose
// values have the geometric mean mean (0 when the baseline has no runs
// of this metric).
type runSpread struct {
	sd, df float64
	k      int
	mean   float64
	// prior and priorDF are the assumed spread and its weight, the
	// narrowest the interval may be whatever the runs show.
	prior, priorDF float64
}

// halfWidth is the half-width, on the log scale, of the conf-level
// interval of the difference between one more run and the baseline: two
// runs' spread, sqrt(2)·s, however many runs the baseline holds. Runs
// recorded one after the other share the host's state at the time (its
// neighbours, its disk's budget): their spread says how much runs move,
// but their mean is no better a guide to a later day's host than one run
// is. 0 without a spread.
func (s runSpread) halfWidth(conf float64) float64 {
	var w float64
	if s.sd > 0 && s.df > 0 {
		w = tQuantile(conf, s.df) * s.sd
	}
	if s.prior > 0 && s.priorDF > 0 {
		w = math.Max(w, tQuantile(conf, s.priorDF)*s.prior)
	}
	return w * math.Sqrt2
}

// shown is the spread a reason prints: the runs' when wider than the
// assumed one, else the assumed one, which then sets the interval.
func (s runSpread) shown() float64 { return math.Max(s.sd, s.prior) }

// spread returns the run-to-run spread of metric ("read.iops") for the
// baseline's runs: the prior alone for a baseline of one run (or a
// metric the run summaries do not keep), combined with the runs' own
// spread otherwise.
func (c *comparer) spread(metric string) runSpread {
	prior, nu := c.cfg.RunSpread, c.cfg.RunSpreadRuns
	if prior == 0 {
		prior = DefaultRunSpread(metric)
	}
	if prior <= 0 {
		prior, nu = 0, 0 // no assumed spread: the runs' own alone
	}
	vals := runValues(c.base, metric)
	var s runSpread
	if len(vals) >= 2 {
		var lm float64
		for _, v := range vals {
			lm += math.Log(v)
		}
		lm /= float64(len(vals))
		var ss float64
		for _, v := range vals {
			ss += sq(math.Log(v) - lm)
		}
		df := nu + float64(len(vals)) - 1
		return runSpread{sd: math.Sqrt((nu*prior*prior + ss) / df), df: df, k: len(vals), mean: math.Exp(lm),
			prior: prior, priorDF: nu}
	}
	if prior > 0 {
		s = runSpread{sd: prior, df: nu, k: 1, prior: prior, priorDF: nu}
	}
	return s
}

// runValues returns metric's value in each run the baseline holds, or
// nil when it holds one run or a value is missing or not positive.
func runValues(b *baselines.Baseline, metric string) []float64 {
	runs := b.RunSummaries()
	if len(runs) < 2 {
		return nil
	}
	dir, m, _ := strings.Cut(metric, ".")
	out := make([]float64, 0, len(runs))
	for _, r := range runs {
		var rd *baselines.RunDir
		for i := range r.Dirs {
			if r.Dirs[i].Name == dir {
				rd = &r.Dirs[i]
			}
		}
		if rd == nil {
			return nil
		}
		var v float64
		switch m {
		case "iops":
			v = rd.IOPS
		case "bw":
			v = rd.BW
		case "clat.mean":
			v = rd.ClatMean
		case "clat.p50":
			v = float64(rd.ClatP50)
		case "clat.p90":
			v = float64(rd.ClatP90)
		case "clat.p99":
			v = float64(rd.ClatP99)
		case "clat.p99.9":
			v = float64(rd.ClatP999)
		case "clat.p99.99":
			v = float64(rd.ClatP9999)
		default:
			return nil
		}
		if !(v > 0) || !finite(v) {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// tQuantile is Student's t quantile for a two-sided conf interval with
// df degrees of freedom: 12.71 for 0.95 and 1, 1.96 as df grows.
func tQuantile(conf, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) || df > 1e6 {
		return zScore(conf)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
}
