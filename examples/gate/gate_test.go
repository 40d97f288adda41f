package gate_test

import (
	"testing"
	"time"

	"stortest.dev"
	"stortest.dev/workload"
)

// TestMain hands the package's tests to stortest, which prints every
// comparison that was not a plain pass when they end.
func TestMain(m *testing.M) { stortest.Main(m) }

// TestRandRead4K measures 4 KiB random reads at queue depth 32 for 5 s
// and compares them with the device's baseline
// (testdata/baselines/TestRandRead4K/randread-4k-qd32.json, or the
// directory -stortest.baselines names). Only a named device
// (-stortest.device) has a baseline: a plain `go test` runs on a new
// scratch device each time.
func TestRandRead4K(t *testing.T) {
	dev := stortest.Target(t)
	res := stortest.Run(t, dev, workload.Job{
		Name:      "randread-4k-qd32",
		Engine:    "io_uring",
		RW:        workload.RandRead,
		BlockSize: 4 << 10,
		IODepth:   32,
		Direct:    true,
		Runtime:   5 * time.Second,
		TimeBased: true,
	})
	res.RequireNoErrors(t)
	if dev.Kind == stortest.KindDevice {
		stortest.CheckBaseline(t, res)
	}
}
