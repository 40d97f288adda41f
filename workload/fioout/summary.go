package fioout

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// WriteSummary writes a human summary of r in the shape of fio's normal
// output: per job and direction IOPS, bandwidth, latency statistics,
// percentiles, per-second bandwidth and IOPS spread, CPU use, and the
// errors fio would print as err=.
func WriteSummary(w io.Writer, r *workload.Result) error {
	var b strings.Builder
	for _, j := range r.Jobs {
		fmt.Fprintf(&b, "%s: (clone=%d, engine=%s, target=%s): err=%2d", j.Name, j.Clone, j.Engine, j.Target, jobErrno(j))
		if j.Canceled {
			b.WriteString(" (canceled: partial results)")
		}
		b.WriteString("\n")
		if j.Err != nil {
			fmt.Fprintf(&b, "  error: %v\n", j.Err)
		}
		if j.Job.Description != "" {
			fmt.Fprintf(&b, "  Description  : [%s]\n", j.Job.Description)
		}
		pcts := j.Job.Percentiles()
		for d := range workload.NumDirs {
			s := &j.Dirs[d]
			if s.IOs == 0 {
				continue
			}
			fmt.Fprintf(&b, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%dmsec)\n", d,
				siCount(j.IOPS(d)), iec(j.BW(d)), si(j.BW(d), "B"), iec(float64(s.Bytes)), fioDirRuntime(j.Runtime))
			if s.Errors > 0 || s.ShortIOs > 0 {
				fmt.Fprintf(&b, "    errors=%d short=%d\n", s.Errors, s.ShortIOs)
			}
			for _, st := range []struct {
				name string
				h    *latency.Histogram
			}{{"slat", s.Slat}, {"clat", s.Clat}, {" lat", s.Lat}} {
				if st.h.Count() == 0 {
					continue
				}
				unit, div := statUnit(st.h)
				fmt.Fprintf(&b, "    %s (%s): min=%s, max=%s, avg=%s, stdev=%s\n", st.name, unit,
					trim(float64(st.h.Min())/div), trim(float64(st.h.Max())/div), trim(st.h.Mean()/div), trim(st.h.Stddev()/div))
				if c := st.h.Clipped(); c > 0 {
					fmt.Fprintf(&b, "      %d values at or above the histogram's %.1f s ceiling\n", c, float64(st.h.Layout().Ceiling())/1e9)
				}
			}
			writePercentiles(&b, "clat", s.Clat, pcts)
			if j.Job.LatPercentiles {
				writePercentiles(&b, " lat", s.Lat, pcts)
			}
			bw, io := fioRates(j, d)
			if bw.n > 0 {
				fmt.Fprintf(&b, "   bw (  KiB/s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, samples=%d\n", bw.min, bw.max, bw.mean, bw.stddev, bw.n)
				fmt.Fprintf(&b, "   iops        : min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, samples=%d\n", io.min, io.max, io.mean, io.stddev, io.n)
			}
		}
		b.WriteString(fioLatencyLines(j))
		if n := j.Sync.Lat.Count(); n > 0 {
			unit, div := statUnit(j.Sync.Lat)
			fmt.Fprintf(&b, "  sync (%s): n=%d, min=%s, max=%s, avg=%s\n", unit, n,
				trim(float64(j.Sync.Lat.Min())/div), trim(float64(j.Sync.Lat.Max())/div), trim(j.Sync.Lat.Mean()/div))
		}
		fmt.Fprintf(&b, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%d, majf=%d, minf=%d\n",
			cpuPercent(j.UsrCPU, j.Runtime), cpuPercent(j.SysCPU, j.Runtime), j.Ctx, j.MajFlt, j.MinFlt)
		writeDepthLines(&b, j)
		if lt := fioLatencyTarget(j); lt.Depth > 0 {
			fmt.Fprintf(&b, "     latency   : target=%d, window=%d, percentile=%.2f%%, depth=%d\n", lt.TargetNs, lt.WindowUs, lt.Percentile, lt.Depth)
		}
		writeSteadySummary(&b, j)
		for _, e := range j.FirstErrors {
			fmt.Fprintf(&b, "  io error: %v\n", e)
		}
		if j.Verify.Checked > 0 || j.Verify.Mismatches > 0 {
			fmt.Fprintf(&b, "  verify: %d blocks checked, %d mismatches\n", j.Verify.Checked, j.Verify.Mismatches)
			for _, e := range j.Verify.First {
				fmt.Fprintf(&b, "    %v\n", e)
			}
		}
	}
	if len(r.DiskUtil) > 0 {
		b.WriteString("\nDisk stats (read/write):\n")
		for _, d := range r.DiskUtil {
			fmt.Fprintf(&b, "  %s: ios=%d/%d, merge=%d/%d, ticks=%d/%d, in_queue=%d, util=%.2f%%\n",
				d.Name, d.ReadIOs, d.WriteIOs, d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePercentiles(b *strings.Builder, name string, h *latency.Histogram, ps []float64) {
	if h.Count() == 0 || len(ps) == 0 {
		return
	}
	vals := h.Percentiles(ps)
	unit, div := pctUnit(slices.Min(vals), slices.Max(vals))
	fmt.Fprintf(b, "    %s percentiles (%s):\n", name, unit)
	for i, p := range ps {
		if i%4 == 0 {
			b.WriteString("     |")
		}
		fmt.Fprintf(b, " %6.2fth=[%6d]", p, vals[i]/div)
		if i%4 == 3 || i == len(ps)-1 {
			b.WriteString("\n")
		} else {
			b.WriteString(",")
		}
	}
}

// statUnit picks the unit fio shows min/max/avg/stdev in: the next larger
// unit only while all four exceed 1000 in the current one.
func statUnit(h *latency.Histogram) (string, float64) {
	units := []string{"nsec", "usec", "msec"}
	div := 1.0
	for i := range units {
		lo := min(float64(h.Min()), float64(h.Max()), h.Mean(), h.Stddev()) / div
		if i == len(units)-1 || lo <= 1000 {
			return units[i], div
		}
		div *= 1000
	}
	return "msec", 1e6
}

// pctUnit picks the unit fio shows a percentile list in: a larger unit
// only when the smallest value is well above it and the largest would
// otherwise need many digits.
func pctUnit(lo, hi uint64) (string, uint64) {
	switch {
	case lo > 2_000_000 && hi > 99_999_999:
		return "msec", 1_000_000
	case lo > 2_000 && hi > 99_999:
		return "usec", 1_000
	}
	return "nsec", 1
}

func trim(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func siCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func iec(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.4g%s", v, units[i])
}

func si(v float64, unit string) string {
	prefixes := []string{"", "k", "M", "G", "T"}
	i := 0
	for v >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	return fmt.Sprintf("%.4g%s%s", v, prefixes[i], unit)
}

// writeDepthLines writes fio's "IO depths", "submit", "complete" and
// "issued rwts" lines of a job: the distributions of fio's JSON
// iodepth_level, iodepth_submit and iodepth_complete, then the I/Os per
// direction (read, write, trim, and fio's sync, always 0 here), how many
// were short, and none dropped.
func writeDepthLines(b *strings.Builder, j *workload.JobResult) {
	for _, l := range [...]struct {
		name   string
		counts *[7]uint64
		keys   [7]string
	}{
		{"  IO depths    : ", &j.Depths.Level, levelKeys},
		{"     submit    : ", &j.Depths.Submit, batchKeys},
		{"     complete  : ", &j.Depths.Complete, batchKeys},
	} {
		b.WriteString(l.name)
		for i, kv := range depthDist(l.counts, l.keys) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s=%.1f%%", kv.K, float64(kv.V.(fixed6)))
		}
		b.WriteByte('\n')
	}
	d := &j.Dirs
	fmt.Fprintf(b, "     issued rwts: total=%d,%d,%d,0 short=%d,%d,%d,0 dropped=%d,%d,%d,0\n",
		d[workload.DirRead].IOs, d[workload.DirWrite].IOs, d[workload.DirTrim].IOs, d[workload.DirRead].ShortIOs, d[workload.DirWrite].ShortIOs, d[workload.DirTrim].ShortIOs,
		d[workload.DirRead].DropIOs, d[workload.DirWrite].DropIOs, d[workload.DirTrim].DropIOs)
}
