package regress

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// process simulates a noisy device as per-second samples: the device's
// speed drifts as an AR(1) process on the log scale (slow seconds follow
// slow seconds), IOPS follow the speed, and each I/O's latency is
// lognormal around a median scaled by 1/speed, with rare stalls.
type process struct {
	seconds   int
	iops      float64 // mean I/Os per second
	phi       float64 // lag-1 autocorrelation of the log speed
	sigma     float64 // stationary stddev of the log speed
	latMedian float64 // ns
	latSigma  float64 // lognormal shape of one I/O's latency
	stallProb float64 // chance an I/O stalls
	stallMult float64 // how much longer a stalled I/O takes
}

// noisy is the default simulated device: 60 s, ~2000 IOPS whose
// per-second values vary by ~8% with strong autocorrelation (phi 0.7),
// 100µs median latency, two I/Os in ten thousand stalled 20x.
var noisy = process{seconds: 60, iops: 2000, phi: 0.7, sigma: 0.08, latMedian: 100e3, latSigma: 0.35, stallProb: 0.0002, stallMult: 20}

// change alters a run: throughput and latency multipliers, and a factor
// applied only to latencies above the 90th percentile of the lognormal.
type change struct {
	iops    float64 // multiplies IOPS
	latency float64 // multiplies every latency
	tail    float64 // multiplies the latencies above the lognormal's p90
}

var unchanged = change{iops: 1, latency: 1, tail: 1}

// run simulates one run as a workload result and makes its baseline.
func (p process) run(t testing.TB, rng *rand.Rand, ch change) *baselines.Baseline {
	t.Helper()
	layout := latency.MustLayout(latency.LongGroups)
	total := latency.New(layout)
	sec := latency.New(layout)
	jr := &workload.JobResult{
		Name: "sim", Engine: "io_uring", Target: "/dev/sim",
		Job:     workload.Job{Name: "sim", Engine: "io_uring", RW: workload.RandRead, IODepth: 32, Direct: true, Runtime: time.Duration(p.seconds) * time.Second, TimeBased: true},
		Start:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Runtime: time.Duration(p.seconds) * time.Second,
	}
	x := rng.NormFloat64() * p.sigma // start in the stationary distribution
	innov := p.sigma * math.Sqrt(1-p.phi*p.phi)
	z90 := 1.2816 // standard normal p90
	for s := range p.seconds {
		x = p.phi*x + innov*rng.NormFloat64()
		speed := math.Exp(x)
		mean := p.iops * ch.iops * speed
		n := max(0, int(math.Round(mean+math.Sqrt(mean)*rng.NormFloat64()))) // ~Poisson
		sec.Reset()
		for range n {
			z := rng.NormFloat64()
			v := p.latMedian * ch.latency / speed * math.Exp(p.latSigma*z)
			if z > z90 {
				v *= ch.tail
			}
			if rng.Float64() < p.stallProb {
				v *= p.stallMult
			}
			sec.Add(uint64(v))
		}
		if err := total.Merge(sec); err != nil {
			t.Fatal(err)
		}
		var second workload.Second
		second.T = time.Duration(s+1) * time.Second
		second.Dur = time.Second
		second.IOs[workload.DirRead] = uint64(n)
		second.Bytes[workload.DirRead] = uint64(n) * 4096
		second.Clat[workload.DirRead] = latency.NewSparse(sec)
		jr.Seconds = append(jr.Seconds, second)
	}
	jr.Dirs[workload.DirRead] = workload.DirStats{IOs: total.Count(), Bytes: total.Count() * 4096, Clat: total, Lat: total.Clone()}
	b, err := baselines.FromJobResult(jr, baselines.Fingerprint{Kind: "block", Device: "sim0", Model: "Sim", Firmware: "1.0", Kernel: "6.18"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rates runs trials pairs of independent runs, the second with ch, and
// counts the overall verdicts and the regressions per metric.
func rates(t testing.TB, p process, ch change, trials int, seed uint64, cfg Config) (verdicts map[Verdict]int, perMetric map[string]int) {
	verdicts, perMetric = map[Verdict]int{}, map[string]int{}
	for i := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		base := p.run(t, rng, unchanged)
		cur := p.run(t, rng, ch)
		r := Compare(base, cur, cfg)
		verdicts[r.Verdict]++
		for _, f := range r.Findings {
			if f.Verdict == Regression {
				perMetric[f.Metric]++
			}
		}
	}
	return verdicts, perMetric
}
