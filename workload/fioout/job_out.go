package fioout

import (
	"fmt"
	"strconv"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// The members of a job in fio's JSON output after its I/O depth
// distributions: latency ranges, error totals, the latency target and
// the description, in fio's order.

// fioJobTail returns "latency_ns", "latency_us", "latency_ms", then with
// continue_on_error "total_err" and "first_error", the latency target's
// four members and "desc" when the job has a description.
func fioJobTail(j *workload.JobResult) []field {
	pct := fioLatencyPercents(j)
	group := func(lo, n int) ordered {
		o := make(ordered, n)
		for i := range n {
			o[i] = field{latency.RangeKeys[i], fixed6(pct[lo+i])}
		}
		return o
	}
	out := []field{
		{"latency_ns", group(0, latency.RangesNs)},
		{"latency_us", group(latency.RangesNs, latency.RangesUs)},
		{"latency_ms", group(latency.RangesNs+latency.RangesUs, latency.RangesMs)},
	}
	if j.Job.ContinueOnError != workload.ContinueNone {
		var total uint64
		for _, n := range j.ErrnoCounts {
			total += n
		}
		first := 0
		if len(j.FirstErrors) > 0 {
			first = j.FirstErrors[0].Errno
		}
		out = append(out, field{"total_err", total}, field{"first_error", first})
	}
	if lt := fioLatencyTarget(j); lt.Depth > 0 {
		out = append(out,
			field{"latency_depth", lt.Depth},
			field{"latency_target", lt.TargetNs},
			field{"latency_percentile", fixed6(lt.Percentile)},
			field{"latency_window", lt.WindowUs},
		)
	}
	if j.Job.Description != "" {
		out = append(out, field{"desc", j.Job.Description})
	}
	return out
}

// fioLatencyRangeCounts sums the completion latency ranges of the job's
// read, write and trim I/Os (fio counts clat, not lat, in them), and
// returns the I/Os they are shares of: fio's total_ios of the three
// directions.
func fioLatencyRangeCounts(j *workload.JobResult) (counts [latency.NumRanges]uint64, total uint64) {
	for d := range workload.NumDirs {
		s := &j.Dirs[d]
		total += s.IOs
		if s.Clat == nil {
			continue
		}
		r := s.Clat.Ranges()
		for i, c := range r {
			counts[i] += c
		}
	}
	return counts, total
}

// fioLatencyPercents are the shares of fio's latency ranges (see
// latency.RangePercents).
func fioLatencyPercents(j *workload.JobResult) [latency.NumRanges]float64 {
	counts, total := fioLatencyRangeCounts(j)
	return latency.RangePercents(&counts, total)
}

// latencyTargetReport is what fio reports of a job's latency target
// (latency_target, latency_window, latency_percentile): the queue depth
// the job ended at, the target in ns (0: none), the percentile of I/Os
// that must meet it, and the window in us.
type latencyTargetReport struct {
	Depth      int
	TargetNs   uint64
	Percentile float64
	WindowUs   uint64
}

// fioLatencyTarget returns the job's latency target report, which fio
// prints for every job: the depth the search settled on (the job's
// iodepth without latency_target), the target in ns, the percentile and
// the window in µs (0, 100 and 0 without a target).
func fioLatencyTarget(j *workload.JobResult) latencyTargetReport {
	depth := j.LatencyDepth
	if j.Job.LatencyTarget <= 0 || depth == 0 {
		depth = j.Job.IODepth
	}
	return latencyTargetReport{Depth: max(depth, 1), TargetNs: uint64(max(j.Job.LatencyTarget, 0)),
		Percentile: j.Job.TargetPercentile(), WindowUs: uint64(max(j.Job.LatencyWindow.Microseconds(), 0))}
}

// fioLatencyLines writes fio's normal-output lines of the latency ranges:
// "  lat (nsec)   : 50=99.22%, 250=0.39%", one line per group with a
// non-zero range, at most five ranges a line.
func fioLatencyLines(j *workload.JobResult) string {
	pct := fioLatencyPercents(j)
	var b []byte
	for g, unit := range [3]string{"nsec", "usec", "msec"} {
		lo, n := [3]int{0, latency.RangesNs, latency.RangesNs + latency.RangesUs}[g], [3]int{latency.RangesNs, latency.RangesUs, latency.RangesMs}[g]
		line := 0
		for i := range n {
			p := pct[lo+i]
			if p <= 0 {
				continue
			}
			switch {
			case line%5 == 0 && line > 0:
				b = append(b, '\n')
				fallthrough
			case line == 0:
				b = append(b, "  lat ("+unit+")   : "...)
			default:
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%s=%3.2f%%", latency.RangeKeys[i], p)
			line++
		}
		if line > 0 {
			b = append(b, '\n')
		}
	}
	return string(b)
}

// fioOptions is the "job options" object of fio's JSON output: the
// options as a job file would give them.
func fioOptions(j *workload.Job) ordered {
	o := ordered{{"name", j.Name}}
	add := func(k, v string) { o = append(o, field{k, v}) }
	if j.Filename != "" {
		add("filename", j.Filename)
	}
	if j.AllowMountedWrite {
		add("allow_mounted_write", "1")
	}
	add("ioengine", j.Engine)
	add("rw", j.RW.String())
	if j.RW.Mixed() {
		add("rwmixread", strconv.Itoa(j.RWMixRead))
	}
	switch {
	case len(j.BlockSizeSplit) > 0 || !j.BlockSizeRange.IsZero():
		add("bs_max", strconv.FormatInt(j.MaxBlockSize(), 10))
	default:
		add("bs", workload.FormatSize(j.BlockSize))
	}
	add("iodepth", strconv.Itoa(j.IODepth))
	if j.Direct {
		add("direct", "1")
	}
	if j.Size > 0 {
		add("size", workload.FormatSize(j.Size))
	}
	if j.Runtime > 0 {
		add("runtime", strconv.FormatInt(j.Runtime.Milliseconds(), 10)+"ms")
	}
	if j.TimeBased {
		add("time_based", "1")
	}
	if j.NumJobs > 1 {
		add("numjobs", strconv.Itoa(j.NumJobs))
	}
	return o
}
