package stortest

import (
	"testing"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// Bench runs job on target b.N times and reports the figures of all the
// runs with b.ReportMetric, so that benchstat compares two builds,
// kernels or devices (take -count=10 for ten samples each):
//
//	iops     completions per second, all directions, mean over the runs
//	MB/s     bandwidth in 10^6 bytes per second, all directions
//	p99-ns   completion-latency p99 of every I/O of every run (the runs'
//	         histograms merged, never percentiles averaged)
//	cpu-ns/io  CPU (user and system) of the jobs' threads per completed
//	         I/O, all runs' CPU over all their I/Os: the harness's and
//	         the kernel's share of each I/O, which engines the device
//	         does not bound show where IOPS cannot
//	usr-%, sys-%  the same CPU as fio's cpu line prints it: a share of
//	         each job's runtime, summed over the jobs, mean over the runs
//
// and, for a job that both reads and writes, the same per direction
// ("read-iops", "write-p99-ns"...). ns/op, the time of a whole job, is
// dropped. The testing package calls a benchmark with a growing b.N until
// it runs for -test.benchtime (1s by default), so a job whose runtime
// exceeds that runs once. Each run is a Run: same targets, safety checks,
// artifacts and report, and the same failures. Bench returns the last
// run's result.
func Bench(b *testing.B, target *Dev, job workload.Job, opts ...Option) *Result {
	b.Helper()
	var runs []*Result
	b.ResetTimer()
	for range b.N {
		runs = append(runs, Run(b, target, job, opts...))
	}
	b.StopTimer()
	for _, m := range benchMetrics(runs) {
		b.ReportMetric(m.value, m.unit)
	}
	b.ReportMetric(0, "ns/op")
	return runs[len(runs)-1]
}

type benchMetric struct {
	unit  string
	value float64
}

// benchMetrics computes Bench's figures over runs.
func benchMetrics(runs []*Result) []benchMetric {
	if len(runs) == 0 {
		return nil
	}
	n := float64(len(runs))
	all := []workload.Dir{workload.DirRead, workload.DirWrite, workload.DirTrim}
	metrics := func(prefix string, dirs []workload.Dir) []benchMetric {
		var iops, bw float64
		var merged *latency.Histogram
		for _, r := range runs {
			iops += r.IOPS(dirs...)
			bw += r.BW(dirs...)
			m := r.Merged()
			for _, d := range dirs {
				h := m[d].Clat
				if h == nil || h.Count() == 0 {
					continue
				}
				if merged == nil {
					merged = h.Clone()
				} else if merged.Merge(h) != nil {
					// Layouts differ only when runs asked for different
					// histogram groups; keep what merges.
					continue
				}
			}
		}
		out := []benchMetric{{prefix + "iops", iops / n}, {prefix + "MB/s", bw / n / 1e6}}
		if merged != nil {
			out = append(out, benchMetric{prefix + "p99-ns", float64(merged.Percentile(99))})
		}
		return out
	}
	out := metrics("", all)
	out = append(out, cpuMetrics(runs)...)
	if runs[0].Job.RW.Mixed() {
		for _, d := range all {
			if runs[0].Merged()[d].IOs > 0 {
				out = append(out, metrics(d.String()+"-", []workload.Dir{d})...)
			}
		}
	}
	return out
}

// cpuMetrics computes Bench's CPU figures over runs: nothing when the
// runs completed no I/O.
func cpuMetrics(runs []*Result) []benchMetric {
	var cpu, usr, sys float64
	var ios uint64
	for _, r := range runs {
		for _, j := range r.Jobs {
			cpu += float64(j.UsrCPU + j.SysCPU)
			for d := range workload.NumDirs {
				ios += j.Dirs[d].IOs
			}
			if j.Runtime > 0 {
				usr += 100 * j.UsrCPU.Seconds() / j.Runtime.Seconds()
				sys += 100 * j.SysCPU.Seconds() / j.Runtime.Seconds()
			}
		}
	}
	if ios == 0 {
		return nil
	}
	n := float64(len(runs))
	return []benchMetric{{"cpu-ns/io", cpu / float64(ios)}, {"usr-%", usr / n}, {"sys-%", sys / n}}
}
