package history

import (
	"math/rand/v2"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/workload"
)

// simRun is a run of a simulated history: a 4k random read job on one
// NVMe device whose read clat p99 is p99 ns and whose other figures
// wander by noise (a fraction, normal) around fixed levels.
func simRun(r *rand.Rand, i int, p99, noise float64, firmware string) *baselines.Baseline {
	jitter := func(v float64) float64 { return v * (1 + noise*r.NormFloat64()) }
	iops := jitter(50000)
	p50 := uint64(jitter(150e3))
	p99v := uint64(p99 * (1 + noise*r.NormFloat64()))
	p90 := min(uint64(jitter(250e3)), p99v-1)
	p50 = min(p50, p90-1)
	p999 := max(uint64(p99v*3/2), p99v+1)
	p9999 := p999 * 2
	n := uint64(iops * 60)
	return &baselines.Baseline{
		Schema: baselines.SchemaVersion, Name: "randread-4k", Clones: 1,
		Created: time.Date(2026, 9, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(i) * 24 * time.Hour),
		Runtime: time.Minute,
		Job: workload.Job{Name: "randread-4k", Engine: "io_uring", RW: workload.RandRead, BlockSize: 4096,
			IODepth: 32, Direct: true, Runtime: time.Minute, TimeBased: true}.Normalized(),
		Fingerprint: baselines.Fingerprint{Kind: "block", Device: "nvme0n1", Model: "Example NVMe", Serial: "S123",
			Firmware: firmware, Kernel: "6.18.0", Engine: "io_uring", Version: "stortest-test", Hostname: "node1"},
		Dirs: []*baselines.Dir{{
			Name: "read", IOs: n, Bytes: n * 4096, IOPS: iops, BW: iops * 4096,
			Clat: &baselines.Stat{N: n, Min: 20e3, Max: p9999 * 2, Mean: jitter(170e3), Stddev: 60e3,
				P50: p50, P90: p90, P99: p99v, P999: p999, P9999: p9999},
		}},
	}
}

// simHistory is n runs of simRun, the runs from stepAt on (counted from
// 1; 0 for none) with a p99 factor times higher on firmware "1.1".
func simHistory(seed uint64, n, stepAt int, factor, noise float64) []*baselines.Baseline {
	r := rand.New(rand.NewPCG(seed, 17))
	var out []*baselines.Baseline
	for i := 1; i <= n; i++ {
		p99, fw := 400e3, "1.0"
		if stepAt > 0 && i >= stepAt {
			p99, fw = p99*factor, "1.1"
		}
		out = append(out, simRun(r, i, p99, noise, fw))
	}
	return out
}

// entries wraps baselines as one series of Load's entries.
func entries(bs []*baselines.Baseline) []Entry {
	out := make([]Entry, len(bs))
	for i, b := range bs {
		out[i] = Entry{Path: "mem", Series: "TestRandRead/randread-4k", Baseline: b}
	}
	return out
}
