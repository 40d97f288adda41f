package randread_test

import (
	"testing"
	"time"

	"stortest.dev"
	"stortest.dev/workload"
)

// TestMain hands the package's tests to stortest, which writes the JUnit
// report (-stortest.junit or STORTEST_JUNIT) when they end.
func TestMain(m *testing.M) { stortest.Main(m) }

// TestRandRead4K measures 4 KiB random reads at queue depth 32 with
// io_uring and direct I/O, waits for steady IOPS, and checks latency.
func TestRandRead4K(t *testing.T) {
	dev := stortest.Target(t) // -stortest.device / STORTEST_DEVICE, else a loop device (root), else a temporary file
	res := stortest.Run(t, dev, workload.Job{
		Name:      "randread-4k-qd32",
		Engine:    "io_uring",
		RW:        workload.RandRead,
		BlockSize: 4 << 10,
		IODepth:   32,
		Direct:    true,
		Runtime:   4 * time.Second, // the cap: steady state usually ends it sooner, unless compared
		// with a baseline: Run then measures on after steady state
		// (stortest.MeasureAfterSteady), here until the cap.
		TimeBased: true,
		// Steady when the IOPS of the last 2 seconds stay within 40% of
		// their mean (fio's steadystate=iops:40%, ss_dur=2): loose, as a
		// shared VM's disk is noisy. A real device gets a tighter
		// criterion and a longer window, e.g. iops_slope:0.3% over 30 s.
		SS:    "iops:40%",
		SSDur: 2 * time.Second,
	})
	res.RequireSteady(t)                                              // stops the test: nothing else means much
	res.CheckPercentile(t, stortest.Clat, 99.9, 100*time.Millisecond) // reports and goes on
	res.CheckPercentile(t, stortest.Clat, 50, 20*time.Millisecond)
	res.CheckIOPS(t, 100)
	res.CheckNoErrors(t)

	// Compare with testdata/baselines/TestRandRead4K/randread-4k-qd32.json;
	// `go test -stortest.update` records it. A baseline belongs to a
	// device: the scratch target of a plain `go test` is a new temp file
	// each time, so only a run on a named device (-stortest.device) is
	// compared.
	if dev.Kind == stortest.KindDevice {
		stortest.CheckBaseline(t, res)
	}
}

// TestWriteVerify writes a loop device sequentially with checksummed
// blocks and reads every block back: data integrity, not speed.
func TestWriteVerify(t *testing.T) {
	dev := stortest.LoopDevice(t, 16<<20, stortest.LoopDirectIO()) // skips without root
	res := stortest.Run(t, dev, workload.Job{
		Name:      "seqwrite-verify",
		Engine:    "libaio",
		RW:        workload.Write,
		BlockSize: 64 << 10,
		IODepth:   8,
		Direct:    true,
		Verify:    workload.VerifyCRC32C,
	})
	res.RequireNoErrors(t)
	res.RequireVerify(t)
	res.CheckBW(t, 1<<20, workload.DirWrite) // 1 MiB/s: catches a stall, not a slow disk
}
