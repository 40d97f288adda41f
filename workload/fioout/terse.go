package fioout

import (
	"bufio"
	"fmt"
	"io"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// TerseVersion is the version of fio's terse format WriteTerse writes.
const TerseVersion = 3

// terseMaxPercentiles is the number of percentile fields per direction:
// fio writes 20, padding with "0%=0".
const terseMaxPercentiles = 20

// WriteTerse writes r in fio's terse (--minimal) format, version 3: one
// line of ';'-separated fields per job (after group_reporting), as fio
// 3.33 writes them, without the disk-utilization fields (stortest has no
// per-disk figures in a Result). Per direction (read, then write; version
// 3 has no trim; unified_rw_reporting as fio: mixed alone, or after
// them): KiB, KiB/s, IOPS, runtime ms; slat, clat and lat min,
// max (µs, whole), mean and stddev (µs); 20 percentiles "p%=µs" of lat
// when lat_percentiles is on, else of clat (fio's choice), zeros when
// neither; bandwidth min, max, aggregate %, mean and stddev (KiB/s). Then
// CPU (user %, system %, context switches, major and minor faults), the
// iodepth distribution and the share of I/Os per latency range (µs, then
// ms).
func WriteTerse(w io.Writer, r *workload.Result) error {
	bw := bufio.NewWriter(w)
	for _, j := range groupReport(r).Jobs {
		writeTerseJob(bw, j)
	}
	return bw.Flush()
}

func writeTerseJob(w *bufio.Writer, j *workload.JobResult) {
	f := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	f("%d;stortest-%s;%s;0;%d", TerseVersion, workload.Version, j.Name, jobErrno(j))
	// unified_rw_reporting: read and write; the mixed direction alone;
	// or read, write and then mixed, as fio 3.33 writes them.
	if j.Job.UnifiedRW != workload.UnifiedMixed {
		writeTerseDir(w, j, workload.DirRead)
		writeTerseDir(w, j, workload.DirWrite)
	}
	if j.Job.UnifiedRW != workload.UnifiedNone {
		writeTerseDir(w, mixed(j), workload.DirRead)
	}
	f(";%f%%;%f%%;%d;%d;%d", cpuPercent(j.UsrCPU, j.Runtime), cpuPercent(j.SysCPU, j.Runtime), j.Ctx, j.MajFlt, j.MinFlt)
	for _, kv := range depthDist(&j.Depths.Level, levelKeys) {
		f(";%3.1f%%", float64(kv.V.(fixed6)))
	}
	us, ms := latencyRanges(j)
	for _, p := range us {
		f(";%3.2f%%", p)
	}
	for _, p := range ms {
		f(";%3.2f%%", p)
	}
	if j.Job.Description != "" {
		f(";%s", j.Job.Description)
	}
	w.WriteByte('\n')
}

func writeTerseDir(w *bufio.Writer, j *workload.JobResult, d workload.Dir) {
	s := j.Dirs[d]
	var ms, bwBytes uint64
	var iops float64
	if s.IOs > 0 {
		ms = fioDirRuntime(j.Runtime)
	}
	if ms > 0 {
		bwBytes = 1000 * s.Bytes / ms
		iops = 1000 * float64(s.IOs) / float64(ms)
	}
	fmt.Fprintf(w, ";%d;%d;%d;%d", s.Bytes/1024, bwBytes/1024, uint64(iops), ms)
	terseStat(w, s.Slat)
	terseStat(w, s.Clat)
	var pct *latency.Histogram
	switch {
	case j.Job.LatPercentiles:
		pct = s.Lat
	case !j.Job.NoClatPercentiles:
		pct = s.Clat
	}
	list := j.Job.Percentiles()
	n := 0
	if pct != nil && pct.Count() > 0 {
		for i, v := range pct.Percentiles(list) {
			fmt.Fprintf(w, ";%f%%=%d", list[i], v/1000)
			n++
		}
	}
	for ; n < terseMaxPercentiles; n++ {
		w.WriteString(";0%=0")
	}
	terseStat(w, s.Lat)
	b, _ := fioRates(j, d)
	fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", int64(b.min), int64(b.max), boolf(b.n > 0)*100, b.mean, b.stddev)
}

// terseStat writes min;max;mean;stddev of h in µs, as fio's terse.
func terseStat(w *bufio.Writer, h *latency.Histogram) {
	if h == nil || h.Count() == 0 {
		w.WriteString(";0;0;0.000000;0.000000")
		return
	}
	fmt.Fprintf(w, ";%d;%d;%f;%f", h.Min()/1000, h.Max()/1000, h.Mean()/1000, h.Stddev()/1000)
}

// latencyRanges are the terse shares (percent) of the job's I/Os by
// completion latency in fio's us and ms ranges (see fioLatencyPercents);
// as fio's terse has no ns ranges, their I/Os are added to the first us
// range.
func latencyRanges(j *workload.JobResult) (us [10]float64, ms [12]float64) {
	counts, total := fioLatencyRangeCounts(j)
	pct := latency.RangePercents(&counts, total)
	copy(us[:], pct[latency.RangesNs:])
	copy(ms[:], pct[latency.RangesNs+latency.RangesUs:])
	var ns uint64
	for _, c := range counts[:latency.RangesNs] {
		ns += c
	}
	if total > 0 {
		us[0] += 100 * float64(ns) / float64(total)
	}
	return us, ms
}
