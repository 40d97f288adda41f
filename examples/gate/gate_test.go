package gate_test

import (
	"testing"
	"time"

	"stortest.dev"
	"stortest.dev/workload"
)

// TestMain hands the package's tests to stortest, which writes the JUnit
// report (-stortest.junit or STORTEST_JUNIT) when they end.
func TestMain(m *testing.M) { stortest.Main(m) }

// TestGate reads 4 KiB blocks at random, 32 at a time, for 10 seconds,
// and compares the run with the device's baseline: a regression fails
// the test, and so does an inconclusive comparison under
// -stortest.strict. While the comparison is inconclusive and another
// run of this session could settle it, the job runs again, up to 4 runs
// in all or a minute and a half.
func TestGate(t *testing.T) {
	dev := stortest.Target(t)
	res := stortest.Run(t, dev, workload.Job{
		Name: "randread-4k-qd32", Engine: "io_uring", RW: workload.RandRead,
		BlockSize: 4 << 10, IODepth: 32, Direct: true,
		Runtime: 10 * time.Second, TimeBased: true,
	}, stortest.RepeatWhileInconclusive(4, 90*time.Second))
	res.RequireNoErrors(t)
	// A baseline belongs to a device: the temporary target of a plain
	// `go test` is a new one each time, so only a named device is
	// compared.
	if dev.Kind == stortest.KindDevice {
		stortest.CheckBaseline(t, res)
	}
}
