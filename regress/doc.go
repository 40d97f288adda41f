// Package regress compares a run with its baseline and says, metric by
// metric, whether it regressed, with a reason a person can act on:
//
//	read clat p99 2.41ms vs baseline 1.98ms (+21.7%, 99.17% CI +15.2%..+28.9%): regression beyond 10% tolerance
//
// # Verdicts
//
// Compare returns a Report: one Finding per metric ("read.iops",
// "read.bw", "read.errors", "write.clat.p99.9"...), what changed in the
// fingerprint (firmware, kernel: reported, not judged) and in the
// workload, and the overall Verdict. A verdict is three-valued, with
// Improvement as a kind of pass:
//
//   - Regression: worse than the baseline by more than the tolerance, and
//     the confidence interval of the change excludes no change;
//   - Inconclusive: too few samples (a p99.99 of 10,000 I/Os), or too
//     noisy to tell; the reason says how many more seconds or I/Os per
//     run would do (Finding.More), or that the baseline needs more runs;
//   - Pass (or Improvement): within tolerance, or better beyond it. A
//     report is an improvement only when nothing got worse: a run 4.8%
//     slower whose p50 dropped is a pass.
//
// Inconclusive is not a pass: callers show it wherever they show a pass
// (stortest's test log, JUnit report and `stortest baseline diff`), and
// their strict modes fail on it.
//
// # Tolerances
//
// A Tolerance has go-cmp's EquateApprox semantics: values are equal when
// |x-y| <= max(Fraction*min(|x|,|y|), Floor). Rules choose per metric,
// by pattern ("*.clat.p99", "read.iops"), the tolerance or that the metric
// is not compared; ParseRules reads them from a flag. DefaultRules compare
// IOPS and bandwidth (10%), errors (any increase), clat p50 and p99 (10%,
// 1µs floor), p99.9 and p99.99 (20%, 1µs floor).
//
// # Noise
//
// Per-second samples are autocorrelated: a slow second is followed by slow
// seconds. Intervals come from a moving-block bootstrap (blocks of
// ceil(sqrt(n)) seconds, resampled independently for the two runs, the
// ratio of means), never narrower than the t-interval with AR(1)
// effective sample sizes, which short series with long correlations need.
// A run of fewer than MinSamples seconds is sampled per slice, a tenth of
// a second, so that a 2-second run halving its IOPS is a regression, not
// "too few samples". Imported fio results carry fio's sample moments
// (fio logs IOPS every 500 ms): Welch's t on them, and where the two
// runs' sample ranges do not overlap, the exact Mann-Whitney p-value of
// that (2/C(n+m, n): 1e-5 for ten samples a side) bounds the interval by
// the ranges' facing ends.
//
// What stays fixed for a run's length (a busy neighbour for a minute, an
// SSD's garbage collection, the CPU the job landed on) no interval from
// inside one run can see. Every metric therefore also carries a
// run-to-run spread: measured when the baseline holds several runs (go
// test -count=N -stortest.update), combined with an assumed spread
// (DefaultRunSpread: 10% for throughput up to 20% for p99.99, what a
// CPU-loaded CI VM's disk showed, with the weight of 6 runs) as a
// conjugate prior, and judged with Student's t as a
// prediction interval, never narrower than the assumed spread alone
// gives (consecutive runs that agree share the host's state of the
// moment, not a later day's). It guards the regression verdict, not the call
// that a change is within tolerance. A baseline of one run cannot tell a
// noisy host from a quiet one; record several where runs vary.
// A run made on a shared device (baselines.Baseline.Shared: its device
// moved other I/O besides the run's) calls no regression, and a baseline
// recorded on one no improvement: the neighbour may account for either.
// Tail percentiles are compared on the merged histograms: the interval
// combines the distribution-free interval of the order statistics of each
// histogram with the drift between seconds measured by the bootstrap of a
// per-second clat percentile. A percentile needs enough I/Os for an
// interval below the maximum: 368 for p99 at 95%, 3688 for p99.9, 36887
// for p99.99. Mean latencies combine the standard errors of the means
// with the bootstrap of the per-second clat means (a per-second median
// can swing while the mean holds steady, as under blk-throttle's bursts);
// baselines without per-second means (schema 1, imported fio results)
// take the drift of p50 instead. Because every metric compared is a
// chance of a false alarm, a regression must hold at the family-wise
// level (Bonferroni over the metrics with intervals) unless
// Config.PerMetric is set; the interval a finding prints is that one,
// labelled with its level ("99.17% CI" for six metrics).
//
// On simulated noisy devices (per-second IOPS drifting by 8-15% with lag-1
// autocorrelation 0.7-0.8, 30-60 s runs, 2% between runs) the statistics
// within runs flag an unchanged device in 1-2% of comparisons, and a 30%
// IOPS drop and a doubled p99 in nearly all. On recorded unchanged runs
// of a CPU-loaded VM (testdata/noise/cpu), the defaults flag 0-1.25% of
// 240 comparisons per run length.
//
// The bootstrap is seeded from the inputs, so the same baselines always
// give the same report. WriteText, WriteMarkdown (for a pull-request
// comment) and WriteJSON print reports.
package regress
