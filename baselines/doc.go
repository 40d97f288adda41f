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
// and mean of each second) let regress tell noise from change.
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
// with "schema": 2, a fixed key order and one value per line, histogram
// buckets one per line ("66048": 12) and one line per second, so a diff
// of two baselines reads as what changed. A second reads
//
//	{"t_ns":1000000000,"dur_ns":1000000000,"read":{"ios":2000,"bytes":8192000,"clat_p50":175104,"clat_p99":370688,"clat_p99.9":509952,"clat_mean":187264}}
//
// with unknown values left out. Schema 2 added "clat_mean", the mean of
// the second's clat buckets (ns); files of schema 1, without it, still
// load (SchemaVersion, MinSchemaVersion), and rewriting one with
// -stortest.update records the means. Files are written atomically
// (WriteFile: a synced temporary file in the same directory, renamed, the
// directory synced), never partially. Create refuses to replace an
// existing file, even a corrupt one; Update replaces one explicitly and
// can keep the replaced baseline as a line of <job>.history.jsonl
// (AppendHistory, ReadHistory).
//
// Load and Decode check everything and say where a file is wrong: an
// *Error names the file, line and field ("base.json:36: dirs.read.ios:
// want uint64, got number -754"), ErrCorrupt for damage, truncation and
// inconsistency (histogram counts against N, percentile order, bucket
// values), ErrSchema for another schema version with what to do about it.
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
//		err = baselines.Update(path, cur, true)
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
