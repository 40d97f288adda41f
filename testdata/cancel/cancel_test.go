package cancel_test

import (
	"os"
	"testing"
	"time"

	"stortest.dev"
	"stortest.dev/workload"
)

func TestMain(m *testing.M) { stortest.Main(m) }

// target is a temporary file, or a loop device over one with
// CANCEL_TARGET=loop.
func target(t *testing.T) *stortest.Dev {
	if os.Getenv("CANCEL_TARGET") == "loop" {
		return stortest.LoopDevice(t, 16<<20)
	}
	return stortest.File(t, 16<<20)
}

// job reads for 30 s: far longer than the test waits before SIGINT.
func job(name string) workload.Job {
	return workload.Job{
		Name: name, Engine: "psync", RW: workload.RandRead, BlockSize: 4 << 10,
		Runtime: 30 * time.Second, TimeBased: true,
	}
}

// TestLong is running when the signal comes: its run is cut short, and
// a limit no run meets is not judged.
func TestLong(t *testing.T) {
	res := stortest.Run(t, target(t), job("long"), stortest.ProgressEvery(500*time.Millisecond))
	res.CheckNoErrors(t)
	res.CheckPercentile(t, stortest.Clat, 99, time.Nanosecond)
}

// TestNext comes after the signal: its run must not start.
func TestNext(t *testing.T) {
	res := stortest.Run(t, target(t), job("next"))
	res.CheckNoErrors(t)
}

// TestStuck, with CANCEL_STUCK=1, outlasts the signal without Run, for a
// second signal to end the binary.
func TestStuck(t *testing.T) {
	if os.Getenv("CANCEL_STUCK") != "1" {
		t.Skip("CANCEL_STUCK=1 runs it")
	}
	time.Sleep(30 * time.Second)
}
