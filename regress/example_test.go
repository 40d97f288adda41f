package regress_test

import (
	"fmt"
	"math"
	"os"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/regress"
	"stortest.dev/workload"
)

// run makes a 30-second random-read result whose per-second IOPS wobble
// around perSec and whose latencies spread around median ns; tail
// multiplies the slowest tenth.
func run(perSec int, median, tail float64, firmware string) *baselines.Baseline {
	layout := latency.MustLayout(latency.LongGroups)
	total, sec := latency.New(layout), latency.New(layout)
	jr := &workload.JobResult{Name: "randread-4k", Engine: "io_uring", Runtime: 30 * time.Second,
		Job: workload.Job{Name: "randread-4k", Engine: "io_uring", RW: workload.RandRead, IODepth: 8, Direct: true}}
	for s := range 30 {
		sec.Reset()
		n := perSec + perSec*(s%5-2)/100 // +-2%, deterministic
		for i := range n {
			z := math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/float64(n)-1) // evenly spread quantiles
			v := median * math.Exp(0.3*z)
			if z > 1.2816 {
				v *= tail
			}
			sec.Add(uint64(v))
		}
		_ = total.Merge(sec)
		second := workload.Second{T: time.Duration(s+1) * time.Second, Dur: time.Second}
		second.IOs[workload.DirRead], second.Bytes[workload.DirRead] = uint64(n), uint64(n)*4096
		second.Clat[workload.DirRead] = latency.NewSparse(sec)
		jr.Seconds = append(jr.Seconds, second)
	}
	jr.Dirs[workload.DirRead] = workload.DirStats{IOs: total.Count(), Bytes: total.Count() * 4096, Clat: total}
	b, err := baselines.FromJobResult(jr, baselines.Fingerprint{Device: "nvme0n1", Firmware: firmware})
	if err != nil {
		panic(err)
	}
	return b
}

// Compare a run after a firmware update with the baseline before it,
// grown over three sessions (separate go test processes, -stortest.update=append):
// the tail doubled while throughput held.
func Example() {
	base := run(2000, 100e3, 1, "1.2")
	base.Session = "monday"
	for i, perSec := range []int{2020, 1990} {
		other := run(perSec, 100e3, 1, "1.2")
		other.Session = []string{"tuesday", "wednesday"}[i]
		if err := base.AddRun(other); err != nil {
			panic(err)
		}
	}
	cur := run(2000, 100e3, 2, "1.3")
	r := regress.Compare(base, cur, regress.Config{})
	fmt.Println(r.Verdict)
	for _, c := range r.Fingerprint {
		fmt.Println(c)
	}
	for _, f := range r.Findings {
		fmt.Printf("%-16s %s\n", f.Metric, f.Verdict)
	}
	p99, _ := r.Finding("read.clat.p99")
	fmt.Printf("p99 ratio %.2f, interval excludes 1: %v\n", p99.Ratio, p99.Interval.Low > 1)
	// Output:
	// regression
	// firmware 1.2 -> 1.3
	// read.iops        pass
	// read.bw          pass
	// read.errors      pass
	// read.clat.mean   inconclusive
	// read.clat.p50    pass
	// read.clat.p99    regression
	// read.clat.p99.9  regression
	// read.clat.p99.99 regression
	// p99 ratio 2.00, interval excludes 1: true
}

// Tolerances per metric, from a flag's syntax; the text report shows
// every finding and the reason of each that did not pass.
func ExampleParseRules() {
	rules, err := regress.ParseRules("*.iops=5%,*.clat.p99=15%:2us,*.clat.p99.99=off")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := regress.Config{Rules: rules}
	r := regress.Compare(run(2000, 100e3, 1, "1.2"), run(1500, 100e3, 1, "1.2"), cfg)
	_ = regress.WriteText(os.Stdout, r)
	// Output:
	// randread-4k: INCONCLUSIVE
	//   METRIC           BASELINE   CURRENT    CHANGE  99.17% CI        VERDICT
	//   read.iops        2k IOPS    1.5k IOPS  -25.0%  -57.4%..+32.1%   inconclusive
	//   read.bw          7.81MiB/s  5.86MiB/s  -25.0%  -57.4%..+32.1%   inconclusive
	//   read.errors      0          0          +0.0%   -                pass
	//   read.clat.mean   104.6µs    104.6µs    +0.0%   -43.2%..+76.2%   pass
	//   read.clat.p50    99.84µs    99.84µs    +0.0%   -43.2%..+76.2%   pass
	//   read.clat.p99    201.73µs   199.68µs   -1.0%   -49.8%..+95.2%   pass
	//   read.clat.p99.9  259.07µs   252.93µs   -2.4%   -58.2%..+127.9%  pass
	//   intervals at 99.17%: 95% family-wise over 6 metrics
	//   read iops 1.5k IOPS vs baseline 2k IOPS (-25.0%, 99.17% CI -57.4%..+32.1%; spread 10.0% assumed: the baseline holds 1 session): inconclusive: beyond 5% tolerance, but the interval (family-wise over 6 metrics) includes no change; the spread between sessions decides it: add runs of separate sessions to the baseline to learn this device's own, or if it varies less, say so (stortest.AssumeRunSpread, baseline diff --run-spread)
	//   read bw 5.86MiB/s vs baseline 7.81MiB/s (-25.0%, 99.17% CI -57.4%..+32.1%; spread 10.0% assumed: the baseline holds 1 session): inconclusive: beyond 10% tolerance, but the interval (family-wise over 6 metrics) includes no change; the spread between sessions decides it: add runs of separate sessions to the baseline to learn this device's own, or if it varies less, say so (stortest.AssumeRunSpread, baseline diff --run-spread)
}
