// Package report writes what CI systems read about workload runs: JUnit
// XML with one testsuite per Go package and one testcase per workload run.
//
// A testcase is named by the Go test (classname) and the job (name). Its
// metrics (Metrics: IOPS, bandwidth and completion-latency percentiles
// per direction) and the fingerprint of what was measured are written as
// properties of the testsuite, "<classname>/<name>/<metric>", because
// Jenkins' junit-10.xsd allows no properties inside a testcase (GitLab
// ignores properties either way). Its <system-out> holds the fio-style
// summary, the iostat table of the target's devices and one
// [[ATTACHMENT|/abs/path]] line per artifact, the form Jenkins'
// junit-attachments plugin and GitLab read; Jenkins keeps one attachment
// per base name and class, so Validate refuses duplicate base names. Each
// limit breach or regression is its own <failure>, so one run lists every
// finding. A run compared with its stored baseline also has the property
// "baseline.verdict" (pass, improvement, inconclusive or regression) and
// a "baseline: <verdict>: ..." paragraph in <system-out> (AddBaseline), so
// that an inconclusive comparison shows as plainly as a pass.
//
// The output is valid against Jenkins' junit-10.xsd: the errors
// attribute is always written, times have three decimals, and characters
// XML 1.0 cannot hold become U+FFFD.
//
// Files are written atomically (a temporary file renamed over the old
// one). MergeFile adds one package's suite to a file other test binaries
// of the same "go test ./..." write too, under a lock on the directory.
package report
