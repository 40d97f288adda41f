// Package stortest is storage regression testing in ordinary Go tests:
// real I/O workloads on real disks or loop devices, measured the way fio
// measures them, with limits that fail the test and reports CI systems
// show.
//
//	func TestMain(m *testing.M) { stortest.Main(m) }
//
//	func TestRandRead4K(t *testing.T) {
//		dev := stortest.Target(t)
//		res := stortest.Run(t, dev, workload.Job{
//			Name: "randread-4k-qd32", Engine: "io_uring", RW: workload.RandRead,
//			BlockSize: 4 << 10, IODepth: 32, Direct: true,
//			Runtime: time.Minute, TimeBased: true,
//			SS: "iops_slope:0.3%", SSDur: 30 * time.Second,
//		})
//		res.RequireSteady(t)                                            // stops the test
//		res.CheckPercentile(t, stortest.Clat, 99.9, 2*time.Millisecond) // reports, goes on
//		res.CheckNoErrors(t)
//	}
//
// # Targets
//
// Target is the device named with -stortest.device (or STORTEST_DEVICE);
// without one, a loop device with direct I/O over a temporary file when
// the test runs as root, else a temporary file. LoopDevice, File and
// Device ask for one kind. Temporary targets are removed in t.Cleanup
// (STORTEST_NOCLEANUP=1 keeps them and logs where); those of a test
// binary killed before its cleanups ran (SIGKILL) are detached and removed
// by the next test binary's first temporary target, with a line on stderr
// for each (target.CleanOrphans). A test without the
// rights to a target skips with the reason, or fails with
// STORTEST_REQUIRE_DEVICE=1, which CI sets so that a misconfigured runner
// cannot pass by skipping.
//
// A mistake with a real device destroys someone's data, so Run refuses a
// write workload on a block device not listed in
// STORTEST_ALLOW_DESTRUCTIVE (comma-separated paths), and on any block
// device that, or one of whose partitions, is mounted, held by another
// device (device mapper, md, bcache) or used as swap, listed or not. The
// refusal says which.
//
// # Runs and their outputs
//
// Run runs a workload.Job under t.Context() and returns a Result. While
// it runs, it samples the counters of the devices under the target and
// the CPUs' times (iostat, with its avg-cpu report, so a CPU-bound run
// shows) and logs progress under -v. Afterwards it records test
// attributes (t.Attr) for IOPS, bandwidth and clat p50/p99/p99.9 per
// direction, so gotestsum's JUnit carries them, and writes artifacts: the
// run in fio's json+ schema, a fio-style summary, the iostat samples in
// sysstat's JSON schema and as iostat -x text, and a completion-latency
// histogram log per job clone in fio's format (stortest hist merge reads
// them, across hosts too). They go to
// -stortest.out/<test name> when given, else to t.ArtifactDir() with go
// test -artifacts, else, when a JUnit report is written,
// testdata/out/<test name> in the package, so that its attachments stay,
// else to a temporary directory removed after the test (kept, and logged,
// with STORTEST_NOCLEANUP=1). A temporary one is named after its process,
// so that one a killed test binary left is removed by the next stortest
// process (target.CleanOrphans).
//
// Main, called from TestMain, writes a JUnit report (-stortest.junit or
// STORTEST_JUNIT) when the tests end: one testsuite per package, one
// testcase per run, named by test and job, with the metrics and a
// fingerprint of the target as properties, the summary and iostat table
// in system-out with [[ATTACHMENT|path]] lines, and one failure per
// failed check.
//
// SIGINT or SIGTERM does not lose a long run: Main cancels the workloads
// under way, which return their partial results, each recorded with an
// error of type "cancelled" ("cancelled by SIGINT after 12.3s: results
// are partial"); a test that would start one afterwards skips, or fails
// if it has run one already; the cleanups detach the loop devices; Main
// writes the report and exits 130 for SIGINT, 143 for SIGTERM. A second
// signal kills at once. go test -timeout does the same a margin before
// it expires (5% of it, 1 s to 30 s), with the report written before
// testing's panic ends the binary. The checks (below) do not judge the
// measurements of a run cut short: the cancellation is its failure.
//
// # Checks
//
// The methods of Result check limits: percentiles of slat, clat or lat
// per direction (Clat, Clat.Read(), Lat.Write()...), IOPS and bandwidth
// floors, steady state, I/O errors, verified data. Require* stop the test
// (FailNow) when the limit is broken; Check* report it (Errorf) and go
// on, so that one run shows every broken limit. A failure reads
//
//	randread-4k: clat p99.9 read 2.41ms > limit 2ms
//
// On a run cut short by SIGINT, SIGTERM or the timeout, the checks of
// percentiles, floors, steady state and baselines log instead
//
//	randread-4k: clat p99.9 not judged: run cut short by SIGINT after 3.2s of 1m0s
//
// and fail nothing more; failed I/Os and blocks read back wrong still
// fail.
//
// # Baselines
//
// CheckBaseline compares a run with the baseline stored for its test and
// job (testdata/baselines/<test>/<job>.json) and ends in a verdict: pass,
// improvement, inconclusive or regression. A regression fails the test;
// an inconclusive comparison is logged, is the property baseline.verdict
// of the run's JUnit testcase, and is in the summary Main prints to
// stderr at the end; strict mode (-stortest.strict, STORTEST_STRICT=1 or
// the Strict option) fails on it. -stortest.update records baselines,
// with the tolerance rules in effect; go test -count=N -stortest.update
// records N runs in each (as the Repeats option does for one job), so
// that the verdicts account for the spread between runs. Runs of one
// process measure only part of that spread: -stortest.update=append adds
// this session's runs to the baseline instead of replacing it, keeping
// the last -stortest.keep sessions (10), so that a baseline grown over
// days of CI runs teaches the gate how steady the device is; plain
// -stortest.update starts over, after an intended change. A baseline
// belongs to the device it was recorded on: on another, Run refuses to
// start the workload (and CheckBaseline to compare).
//
// A run that will meet a baseline measures enough to be judged: a job
// with steady-state options measures on after steady state
// (MeasureAfterSteady), short runs are compared on throughput slices of
// 100 ms, ExtendWhileInconclusive runs the job on while the comparison
// is inconclusive and more of this run would settle it, and
// RepeatWhileInconclusive (-stortest.repeat=N, -stortest.repeat.budget)
// runs it again while
// another run of the session would, judging the runs' mean with a
// sequential test that keeps the false-alarm rate however many runs it
// takes.
//
// # Benchmarks
//
// Bench runs a job in a benchmark and reports iops, MB/s and p99-ns with
// b.ReportMetric, so benchstat compares two sets of runs.
//
// # Flags
//
// -stortest.device, -stortest.out, -stortest.junit, -stortest.update
// (rewrite baselines; =append to grow them), -stortest.keep (the
// sessions a grown baseline keeps), -stortest.baselines (their
// directory), -stortest.strict (fail inconclusive comparisons) and
// -stortest.tolerance (tolerance rules for every comparison) have the
// environment variables STORTEST_DEVICE, STORTEST_OUT, STORTEST_JUNIT,
// STORTEST_UPDATE=1 or append, STORTEST_KEEP, STORTEST_BASELINES,
// STORTEST_STRICT=1 and STORTEST_TOLERANCE; a flag on the command line
// wins.
package stortest
