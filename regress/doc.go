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
//     noisy to tell; the reason says what would settle it: how many more
//     seconds or I/Os per run (Finding.More), another run of this session
//     (Report.RunAgain), or more baseline sessions;
//   - Pass (or Improvement): within tolerance, or better beyond it. A
//     report is an improvement only when nothing got worse: a run 4.8%
//     slower whose p50 dropped is a pass. A change better than the
//     tolerance that the interval does not confirm is a pass that says
//     so ("better by 41.5%, beyond 10% tolerance, but not confirmed"),
//     not "within tolerance".
//
// A finding may also be NotCompared, with the reason and what would
// compare it: a metric whose sessions vary more than its tolerance can
// hold (the p50 of a blkio-throttled device, 8% from session to session
// against 10%), which no number of runs would settle, unless it moved
// significantly (that is still a regression); a percentile of plain fio
// JSON before the baseline holds 3 sessions; a mean latency by default
// where the runs kept no per-second means. It is never a report's
// verdict and counts neither as a pass nor as inconclusive.
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
// IOPS and bandwidth (10%), errors (any increase), clat mean, p50 and p99
// (10%, 1µs floor), p99.9 and p99.99 (20%, 1µs floor). The mean is what
// a rate-limited or throttled job's regression shows first: by Little's
// law it is the depth over the IOPS, steady where percentiles swing with
// the throttle's bursts (on a loop device throttled to 20000 IOPS, the
// mean of 16 sessions varied 1%, their p50 8%).
//
// # Metrics
//
// The metric table (MetricTable, in metric.go) is the one list of verdict
// metrics: per metric its name after the direction ("clat.p99.9"), unit,
// direction of better, default tolerance (DefaultRules), assumed
// run-to-run spread (DefaultRunSpread), JUnit property, run-page column,
// and how its value is read from a baseline's direction and from a run's
// summary. Compare and Metrics, history's change points, report's JUnit
// properties and test attributes, and the run page's summary table take
// their metrics from it. To add a verdict metric:
//
//  1. add its row to the table (metric.go), with a kind Compare knows
//     (throughput, errors, a latency mean or percentile);
//  2. compute its value where a baseline keeps its figures (package
//     baselines: Dir, and RunDir for one history searches), if it is not
//     kept already;
//  3. extend the test of the table (metric_test.go).
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
// run-to-run spread, learned from sessions (runs.go): runs of one process
// (go test -count=N) share the host's moment, runs of separate processes
// (a baseline grown with -stortest.update=append, one session at a time)
// do not. Per metric, on the log scale, the spread between sessions σ_b
// and within one σ_w have a posterior on a grid: the likelihood of the
// sessions' means (variance σ_b² + σ_w²/n, their common mean integrated
// out) and of the runs' deviations from their session's mean, a split
// log-normal prior on σ_b around the assumed spread (DefaultRunSpread:
// 10% for throughput up to 20% for p99.99, what a CPU-loaded CI VM's disk
// showed; log-scale sd 1 below it, 0.48 above) and a weak one on σ_w. The
// change of the current runs' mean from the mean of the baseline's
// sessions is judged on the posterior's predictive distribution, a
// mixture of normals whose quantile gives the interval. So:
//
//   - a baseline of one session is judged on the prior alone, a little
//     more cautiously than the assumed spread was before sessions were
//     modelled: a drop beyond 43% is a regression (six metrics, 99.17%);
//   - a session whose run swung from second to second (the robust spread
//     of its seconds' IOPS and mean latency, baselines.RunDir.Swing: a
//     host short of CPU, a disk others use) is taken to be off by as
//     much, its level's spread max(σ_b, swing), a tail's twice that: a
//     one-session baseline of the recorded noisy device no longer calls
//     an unshared session at half its IOPS a regression (3.8% of
//     unchanged sessions did), and says a rerun on a quiet host would
//     settle it; a throttled device swings under 1% and is judged as
//     before;
//   - runs of one session (-count=3) measure σ_w and leave σ_b where the
//     prior put it: their agreement does not narrow the interval;
//   - ten sessions agreeing within 2% (sd 1.1%) are judged at a spread of
//     1.6%, and a 6% change stands out of them (six metrics, 99.17%);
//     five of them, at 2.6%, a 13% drop; ten sessions 30% apart are
//     judged at 25%.
//
// Each finding says where its spread came from: Finding.Spread and
// Finding.Sessions, and its reason ("spread 1.3% from 10 sessions over 6
// days", "spread 10.0% assumed: the baseline holds 1 session"). The
// spread guards the regression (and improvement) verdict; whether a run
// is precise enough to call within tolerance rests on the noise within
// the runs, or, once two sessions measured the metric, on the spread
// between them where that is narrower: ten seconds of a throttled
// device's bursts extrapolate a p99 interval of ±30% where 5 sessions
// agree within 3%. Within tolerance is an equivalence claim, each of
// its two bounds one-sided at Config.Confidence (two one-sided tests),
// so it rests on the two-sided interval at 1-2(1-Confidence): 90% for
// the default 95%. A metric is not compared when that interval would
// reach beyond the tolerance however many runs this session made, or
// with this session's runs where the spread between sessions is the
// larger part: it is either held to its tolerance or said not to be.
// On the recorded steady device (regress/testdata/sessions, TestGateTargets)
// unchanged reruns pass strict mode 197 of 200 times with 5 and with 10
// sessions, against none before sessions were learned.
//
// A repeat (Config.Looks, Config.Look) judges the mean of the current
// session's runs after each; every look is a chance of a false alarm, so
// the family-wise alpha is spent across looks (Config.Spent: a power
// family with ρ = 1/2, front-loaded, each look at its share, which keeps
// the false-alarm rate over all looks at most 1-Confidence by the union
// bound). Report.RunAgain says whether another run of the session could
// settle an inconclusive report (the noise within the runs and the
// spread within a session dominate its interval).
//
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
// take the drift of p50 instead (and by default are not compared).
// Percentiles of plain fio JSON (no histograms, no seconds) are compared
// on the spread between the baseline's sessions alone, once it holds 3.
// Because every metric compared is a chance of a false alarm, a
// regression must hold at the family-wise level (Bonferroni over the
// metrics with intervals, and over a repeat's looks) unless
// Config.PerMetric is set; the interval a finding prints is that one,
// and the report's summary says why its level is what it is ("intervals
// at 99.29%: 95% family-wise over 7 metrics"). A count of "slices" is of
// the 100 ms throughput samples a short run is judged on, a count of
// "intervals" of fio's 500 ms IOPS samples; reasons that count them say
// so.
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
