package history_test

import (
	"fmt"
	"os"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/history"
	"stortest.dev/workload"
)

// A history of 12 runs whose p99 rose by half with a firmware update at
// the eighth: the change point names the run and the update.
func Example() {
	root, err := os.MkdirTemp("", "history-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for i := 1; i <= 12; i++ {
		p99, fw := uint64(400e3+i%3*4e3), "1.0"
		if i >= 8 {
			p99, fw = p99*3/2, "1.1"
		}
		b := &baselines.Baseline{
			Schema: baselines.SchemaVersion, Name: "randread", Clones: 1, Runtime: time.Minute,
			Created:     time.Date(2026, 11, i, 3, 0, 0, 0, time.UTC),
			Job:         workload.Job{Name: "randread", RW: workload.RandRead, BlockSize: 4096}.Normalized(),
			Fingerprint: baselines.Fingerprint{Model: "Example NVMe", Firmware: fw, Hostname: "node1"},
			Dirs: []*baselines.Dir{{Name: "read", IOs: 1000, IOPS: 50000,
				Clat: &baselines.Stat{N: 1000, Min: 1, Max: p99 * 2, Mean: 1e5, P50: 1e5, P90: 2e5, P99: p99, P999: p99 + 1, P9999: p99 + 2}}},
		}
		if _, err := history.Append(root, "TestRandRead", b); err != nil {
			panic(err)
		}
	}
	runs, err := history.Load(root)
	if err != nil {
		panic(err)
	}
	rep, err := history.Changes(runs, history.Config{Metrics: []string{"read.clat.p99"}})
	if err != nil {
		panic(err)
	}
	m := rep.Series[0].Metrics[0]
	for _, c := range m.Changes {
		fmt.Printf("run %d: %+.0f%%, %v, %s\n", c.Run, c.Change()*100, c.Verdict, c.Fingerprint[0])
	}
	fmt.Println("latest segment:", rep.Verdict())
	// Output:
	// run 8: +50%, regression, firmware 1.0 -> 1.1
	// latest segment: regression
}
