// Package baselines keeps what a storage workload measured, so that later
// runs can be compared with it (package regress does the comparing).
//
// # What a baseline holds
//
// A Baseline is one job of one test: the workload.Job as run, a
// Fingerprint of where it ran (device model, serial and firmware from
// sysfs, the backing device of a loop device, kernel release, engine,
// stortest version, optionally the host), per direction the totals, IOPS,
// bandwidth (bytes/s), error count, and for slat, clat and lat the exact
// min/max/mean/stddev, fio's p50/p90/p99/p99.9/p99.99 (ns) and the merged
// histogram as its non-empty buckets with the layout's group count, so
// distributions can be compared later and percentiles never need to be
// averaged. Per-second samples (I/Os, bytes, and the clat p50/p99/p99.9
// and mean of each second) and throughput slices of a tenth of a second
// (I/Os and bytes; SliceInterval) let regress tell noise from change,
// even in runs of a few seconds. PerSecond and PerSlice give the series;
// a direction's throughput series spans only the intervals from its
// first I/O to its last, so a write job's verify pass (reads after the
// writes) does not read as seconds of zero writes, while a stall inside
// the span still counts.
//
// A baseline may hold several runs of its job (AddRun; -count=N with
// -stortest.update): Runs keeps each run's throughput and clat
// percentiles, so a comparison can measure run-to-run noise, while the
// histograms and samples stay the first run's.
//
// # Sessions
//
// Every baseline and every run records its session: the process that
// made it (ProcessSession, 16 random hex digits made once per process;
// FromResult fills Baseline.Session, AddRun keeps each run's
// RunSummary.Session). Runs of one session come from one go test process
// (-count=N, Repeats): back to back, on a device in one state, they
// measure only part of the run-to-run spread. Runs of different sessions
// were made independently, hours or days apart, and measure all of it;
// regress models the two levels apart. Sessions lists a baseline's
// sessions. Runs recorded before schema 4 have no session (""): several
// of them in one baseline were recorded with -count=N in one process
// and count as one session, and so does a baseline of one such run.
//
// A baseline grows one session at a time with Grow (package stortest's
// -stortest.update=append): the runs of the sessions before are kept,
// this session's added, and beyond a cap (DefaultKeep, 10) the oldest
// sessions are evicted, all their runs with them. The full data
// (histograms, seconds, slices) becomes the newest session's, the
// device's present state; the older sessions live on in Runs, which is
// what the spread between sessions is measured from. A baseline of
// another job or device is refused (ErrOtherJob, ErrOtherDevice). Tolerances keeps the
// comparison rules the test recorded it with, in regress.ParseRules
// syntax, so that `stortest baseline diff` judges as the test does.
//
// A Fingerprint tells two kinds of difference apart. A firmware update or
// a new kernel changes the same device, which is what the gate compares
// across (Diff reports it); another model, serial number, size or, for a
// loop device, backing file is another device (DeviceMismatch), whose
// baseline the gate refuses: a baseline belongs to one device.
//
// FromResult makes a baseline from a workload.Result (clones merged as
// fio's group_reporting); Probe makes the Fingerprint; ImportFio turns
// fio's JSON or json+ output into baselines, so existing fio results seed
// the gate.
//
// # Files
//
// Path gives the file of a test's job: testdata/baselines/<TestName>/<job>.json,
// where a subtest "TestX/sub" is a directory. The format (Marshal) is JSON
// with "schema": 4, a fixed key order and one value per line, histogram
// buckets one per line ("66048": 12) and one line per second, so a diff
// of two baselines reads as what changed. A second reads
//
//	{"t_ns":1000000000,"dur_ns":1000000000,"read":{"ios":2000,"bytes":8192000,"clat_p50":175104,"clat_p99":370688,"clat_p99.9":509952,"clat_mean":187264}}
//
// with unknown values left out. Slices, ten times as many, print by
// column, one line each (a 60 s run's 600 slices take under 20 KB), their
// ends being the running sums of their lengths:
//
//	"slices": {
//	  "interval_ns": 100000000,
//	  "dur_ns": [100000000,100000000,100000000,40000000],
//	  "read_ios": [200,198,0,81],
//	  "read_bytes": [819200,811008,0,331776]
//	},
//
// and the runs of a baseline of several one line each:
//
//	"runs": [
//	  {"created":"2026-03-04T05:06:07Z","session":"5e55a1b2c3d4e5f6","runtime_ns":60000000000,"read":{"iops":2011.5,"bw":8239104,"clat_mean":15872.4,"clat_p50":15360,"clat_p99":37120}},
//	  ...
//	]
//
// The fingerprint holds the target's "size" in bytes, and "tolerances"
// the recorded comparison rules ("*.iops=5%,*.clat.p99=off"). "shared",
// at the top and in a run, says what other I/O the run's device moved
// besides the run's own (stortest's shared-device warning); it is left
// out when there was none. "session", after "created" at the top and in
// each run, is the session that made it; "swing" and "lat_swing", in a
// run's direction, how much its throughput and mean latency swung from
// second to second (Baseline.Swing, LatSwing), left out when steady. Schema 4 added the sessions and swings;
// schema 3 added the slices, runs, tolerances, shared and size; schema 2
// added
// "clat_mean", the mean of the second's clat buckets (ns). Files of
// schema 1 to 3 still load (SchemaVersion, MinSchemaVersion) without
// what they lack (no slices: regress falls back to the seconds), write
// back as they were, and rewriting one with -stortest.update records
// what is new. Files are written atomically
// (WriteFile: a synced temporary file in the same directory, renamed, the
// directory synced), never partially. Create refuses to replace an
// existing file, even a corrupt one; Update replaces one explicitly and
// can keep the replaced baseline as a line of <job>.history.jsonl
// (AppendHistory, ReadHistory).
//
// A full or failing disk (ENOSPC, EIO) loses nothing: every file is
// written whole or not at all, and an update is all or nothing (the new
// baseline staged, the old one appended to the history, the new one
// renamed into place, each step undone when a later one fails), so the
// baseline and its history stay as they were and the error names the
// file. A history line is appended in one write under an exclusive
// flock and taken back on failure; a partial entry that a crash (or an
// earlier version on a full disk) left at the end is replaced by the
// next entry, and ReadHistory skips such damage, saying where and why
// (Skipped), instead of failing on it.
//
// Load and Decode check everything and say where a file is wrong: an
// *Error names the file, line and field ("base.json:36: dirs.read.ios:
// want uint64, got number -754"), ErrCorrupt for damage, truncation and
// inconsistency (histogram counts against N, percentile order, bucket
// values, throughput its totals contradict: iops 0 over at least an I/O
// a second of the runtime, iops without I/Os, and so for bw and bytes),
// ErrSchema for another schema version with what to do about it.
//
// # In a test
//
// The test-facing check (package stortest) does, per job:
//
//	path := baselines.Path(baselines.DefaultDir, t.Name(), job.Name)
//	fp, _ := baselines.Probe(target, baselines.ProbeOptions{Engine: job.Engine})
//	cur, err := baselines.FromResult(res, fp)
//	switch old, err := baselines.Load(path); {
//	case update:                          // -stortest.update
//		_, err = baselines.Update(path, cur, true)
//	case errors.Is(err, fs.ErrNotExist): // the first run records
//		err = baselines.Create(path, cur)
//	case err != nil:                      // corrupt: report, never overwrite
//	default:
//		report := regress.Compare(old, cur, cfg)
//	}
//
// # Layering
//
// baselines depends on workload and latency only and never imports
// "testing"; the test-facing helpers (Check, -stortest.update) live in
// package stortest.
package baselines
