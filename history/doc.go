// Package history keeps every run of a job, not only the baseline, and
// finds when its figures changed and what changed with them.
//
// # The store
//
// A history is a directory of plain files a team can commit, copy or
// keep as CI artifacts: one file per run, a baseline of that one run
// (package baselines' format, with its per-second samples, slices and
// histograms), under <root>/<TestName>/<job>/:
//
//	history/TestRandRead4K/randread-4k-qd32/20261124T061502.123456789Z-node3-4242-9f86d081.json
//
// Append writes a run to a hidden temporary file beside its name and
// links it into place (never replacing a file), so the store is
// append-only, a crash leaves whole files only, and any number of
// writers, processes or hosts sharing the directory, append at once
// without a lock. Load reads a store back, every file checked, its
// errors naming the file, line and field. A database or a bucket would
// add a server or credentials to what is a few kilobytes per run; copy
// the directory where it should live instead.
//
// # Change points
//
// Changes searches each metric of each series (one job on one host:
// "read.iops", "read.clat.p99"... of every run, in log scale) for
// change points with E-divisive means (Matteson and James, 2014), the
// significance of each candidate judged by Student's t-test as Apache
// Otava does (deterministic, and cheap enough for 10,000 runs of 20
// metrics in well under a second: see SplitConfig.Split). Each change
// point says at which run and when, the geometric means before and
// after with the ratio's 95% interval and p-value, and what changed in
// the fingerprint there ("firmware 1.0 -> 1.1", "kernel 6.1 -> 6.6")
// or in the workload. A change beyond its metric's tolerance (regress'
// rules) is a regression or an improvement; the report's Verdict is
// Regression when the latest segment of some metric regressed, which is
// what `stortest history changes` exits 1 on.
//
// On simulated histories of 60 runs with 5% noise, a 20% step is found
// within a run of where it happened in every one of 20 histories, and an
// unchanged history reports a change of read clat p99 in about 1-2% of
// histories (Alpha 0.001, segments of at least 3 runs).
package history
