package workload

// LogOptions are fio's per-I/O and averaged logs: write_lat_log,
// write_bw_log and write_iops_log with log_avg_msec, log_offset and
// per_job_logs. Files and lines are fio 3.33's, so fio's tools
// (fiologparser.py, fio2gnuplot, fio_generate_plots) read them:
//
//	<prefix>_slat.N.log <prefix>_clat.N.log <prefix>_lat.N.log (write_lat_log)
//	<prefix>_bw.N.log (write_bw_log)  <prefix>_iops.N.log (write_iops_log)
//
// N is the job's number, 1-based over every clone of every job in the
// run (fio's thread number); with per_job_logs=0 the ".N" is left out and
// the jobs append to one file. A line is
//
//	time, value, direction, bs[, offset], priority
//
// time in ms since the measured start, direction 0 read, 1 write, 2 trim,
// the offset only with log_offset=1, priority 1 for an I/O of the real-time
// class (cmdprio), else 0. Latencies are ns. With log_avg_msec=0 every I/O has a line
// (bw: bytes*10^6/clat in ns, as fio computes it; iops: 1). With
// log_avg_msec=M every M ms of measured time gives one line per direction:
// the mean latency of the interval's I/Os (bs 0; the last partial interval
// too, as fio does), the interval's bandwidth in KiB/s and its I/Os per
// second (whole intervals only, as fio).
type LogOptions struct {
	Lat     string `json:"write_lat_log,omitempty"`  // file name prefix; "" is off
	BW      string `json:"write_bw_log,omitempty"`   // file name prefix; "" is off
	IOPS    string `json:"write_iops_log,omitempty"` // file name prefix; "" is off
	AvgMsec int    `json:"log_avg_msec,omitempty"`   // 0: a line per I/O
	Offset  bool   `json:"log_offset,omitempty"`     // add each I/O's offset
	// Prio is fio's log_prio: the priority column holds each I/O's
	// ioprio value in hex (0x2000 is class 1, level 0), not 1 for a
	// real-time I/O and 0 otherwise.
	Prio bool `json:"log_prio,omitempty"`
	// Shared is fio's per_job_logs=0: one file per prefix and kind,
	// without the job number, which every job appends to.
	Shared bool `json:"shared_logs,omitempty"`
}

// IsZero reports whether no log is written.
func (o LogOptions) IsZero() bool { return o == LogOptions{} }

// on reports whether any log is written.
func (o LogOptions) on() bool { return o.Lat != "" || o.BW != "" || o.IOPS != "" }
