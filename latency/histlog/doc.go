// Package histlog writes, reads and merges latency histogram logs in
// fio's format (--write_hist_log), and turns logs of many jobs and hosts
// into percentiles over time.
//
// Per-process percentiles cannot be averaged; histograms can be added.
// Logging a histogram of each interval on every job and host, then
// summing the histograms of each time quantum across all of them, shows
// the tail latency of a whole cluster second by second, e.g. while a
// node fails.
//
// # Format
//
// A log has one row per direction and interval:
//
//	time_ms, ddir, bs, c0, c1, ..., c(M-1)
//
// time_ms is when the row was written (ms since the job started, or the
// unix epoch with fio's log_unix_epoch), ddir is 0 read, 1 write, 2
// trim, bs the block size, and the counts are the completions since the
// previous row of the direction, per bucket of the latency histogram
// (package latency): M = 1856 >> coarseness for fio 3, each column
// summing 2^coarseness buckets; fio 2 logged 1216 microsecond buckets;
// stortest's histograms may have more groups, hence more columns.
// FileName gives fio's file names.
//
// Writer writes logs (buffered, no allocation per row) and, unlike fio,
// lets the caller write the last partial interval. Reader reads fio 2
// and 3 logs of any coarseness and stortest's wider ones in bounded
// memory, detecting the format from the column count (DetectFormat), and
// reports malformed rows as *ParseError with file, line and column.
//
// # Merging
//
// Merge aligns any number of logs to time quanta and reports, for each
// quantum and each direction (and all combined), the completions, min,
// percentiles and max of the summed histograms, with the number of logs
// covering the quantum and, optionally, each input's completions. A row
// covers the interval that ended at its time (fio writes the counts
// accumulated since the previous row); its counts are spread over the
// quanta it overlaps in proportion to the overlap. Logs of different
// spans are merged over the union of their spans. CSVSink and JSONSink
// write the results.
//
// FioPctiles instead reproduces fio-histo-log-pctiles.py, the Python
// tool shipped with fio, to the bit: its output lines, its alignment (a
// row covers the interval up to the next row of its direction; logs are
// cut to the time all of them cover; reads and writes are summed) and
// its quirks, so results can be compared with existing tooling.
//
// Both stream: every input is read once, in parallel by a bounded pool
// of workers, in rounds over windows of quanta, into per-input window
// buffers merged in input order. Memory is bounded by the number of
// inputs and the window (up to about 32 MiB of buffers; past a few
// hundred inputs of fio's 1856 columns, about 90 KB per input), not by
// the length of the logs, and the floating-point sums never depend on
// scheduling. Both keep every input open while they read. With more
// inputs than the limit on open files allows (raised first to the hard
// limit; what other files are open counts), they merge in passes: each
// pass adds a group of logs to the running sums of the passes before,
// kept to the bit in a temporary file (Config.TempDir), removed when
// the merge returns; the output is the same as one pass's. Pass tells
// of each pass (Config.Progress).
package histlog
