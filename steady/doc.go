// Package steady decides when a storage workload is in steady state, as
// pure functions over per-second samples: no goroutines, no clocks. The
// runner feeds a Detector one sample per second and cancels the job's
// context when a Verdict says Stop.
//
// It reproduces fio's steadystate option bit for bit (criteria iops, bw,
// iops_slope and bw_slope, absolute or in percent of the mean, over a
// window of ss_dur seconds after ss_ramp) and goes past it:
//
//   - latency criteria on a per-second clat or lat percentile, e.g.
//     clat_p99:5% (deviation) or clat_p99.9_slope:2us (slope per second);
//   - SNIA PTS steady state over rounds (pts:iops, pts:bw, pts:clat_p99,
//     optionally pts:iops:30s for 30 s rounds): range within 20% and
//     best-fit excursion within 10% of the mean of a 5-round window, with a
//     25-round cap;
//   - several criteria at once (a Set: all must hold);
//   - loss of steady state: with Config.Continue the detector keeps judging
//     after attainment and reports when, and by how much, the job left
//     steady state and when it came back (Verdict.Event, Detector.Losses);
//   - the window's sample indices, so the runner can merge the per-second
//     latency histograms of exactly the steady window.
//
// fio's arithmetic (steadystate.c in fio 3.33): per-second iops and bw are
// integers, 1000*delta/ms; the mean is sum/n as a double; the deviation
// criterion is max|y-mean|, or 100*max|y-mean|/mean with %; the slope is the
// least-squares slope with x = 0..n-1, and its percentage divides by the
// floor of the mean; fio stops when criterion < limit (|criterion| for a
// slope). FioStats, Evaluate and the Detector compute exactly that, and
// FioSteadyState prints fio's JSON "steadystate" object with fio's
// formatting (the limit and criterion through float32, doubles with %f).
// ReadFio and CheckFio recompute the verdict from a fio JSON output.
//
// Nothing here allocates per sample: Detector.Add and Detector.Observe use
// fixed rings sized at NewDetector.
package steady
