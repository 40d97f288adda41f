package noise_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev"
	"stortest.dev/baselines"
	"stortest.dev/workload"
)

// TestRecordNoise records the gate's real-noise test data: repeated,
// unchanged runs of the README's job on a loop device with direct I/O
// over a file on the machine's (shared, virtual) disk, each kept as a
// baseline. It runs only when STORTEST_RECORD_NOISE names the output
// directory; scripts/record-noise.sh runs it under load. The runs of
// each length interleave, so that the host's drift over the recording
// reaches all of them alike.
func TestRecordNoise(t *testing.T) {
	out := os.Getenv("STORTEST_RECORD_NOISE")
	if out == "" {
		t.Skip("set STORTEST_RECORD_NOISE=DIR to record (scripts/record-noise.sh)")
	}
	runs := 20
	if n, err := strconv.Atoi(os.Getenv("STORTEST_RECORD_RUNS")); err == nil && n > 0 {
		runs = n
	}
	lengths := []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second}
	dev := stortest.LoopDevice(t, 1<<30, stortest.LoopDirectIO())
	for i := range runs {
		for _, l := range lengths {
			name := fmt.Sprintf("%ds", int(l.Seconds()))
			path := filepath.Join(out, name, fmt.Sprintf("run-%02d.json", i+1))
			iops := recordRun(t, dev, l, path)
			t.Logf("%s run %d: %.0f IOPS", name, i+1, iops)
		}
	}
}

// TestRecordSession records one session of the gate's operating-table
// data: a single run of the README's job on the device STORTEST_DEVICE,
// for STORTEST_RECORD_LENGTH (10s by default), kept as the baseline
// STORTEST_RECORD_SESSION names. Each session is its own process, as a
// CI job's go test is; scripts/record-sessions.sh runs them one after
// the other, throttled or under load.
func TestRecordSession(t *testing.T) {
	out := os.Getenv("STORTEST_RECORD_SESSION")
	if out == "" {
		t.Skip("set STORTEST_RECORD_SESSION=FILE and STORTEST_DEVICE=PATH to record (scripts/record-sessions.sh)")
	}
	length := 10 * time.Second
	if v := os.Getenv("STORTEST_RECORD_LENGTH"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		length = d
	}
	count := 1
	if n, err := strconv.Atoi(os.Getenv("STORTEST_RECORD_COUNT")); err == nil && n > 0 {
		count = n
	}
	dev := stortest.Device(t, os.Getenv("STORTEST_DEVICE"))
	for i := range count {
		path := out
		if count > 1 {
			// Runs of one session: session-07.json becomes session-07-r2.json.
			path = strings.TrimSuffix(out, ".json") + fmt.Sprintf("-r%d.json", i+1)
		}
		t.Logf("%s: %.0f IOPS", path, recordRun(t, dev, length, path))
	}
}

// recordRun runs the README's job (io_uring, 4 KiB random reads at depth
// 32) on dev for length and keeps it as the baseline at path, marked
// shared as CheckBaseline marks it; it returns the run's IOPS.
func recordRun(t *testing.T, dev *stortest.Dev, length time.Duration, path string) float64 {
	t.Helper()
	res := stortest.Run(t, dev, workload.Job{
		Name: "randread-4k-qd32", Engine: "io_uring", RW: workload.RandRead,
		BlockSize: 4 << 10, IODepth: 32, Direct: true, Runtime: length, TimeBased: true,
	}, stortest.ProgressEvery(0))
	res.RequireNoErrors(t)
	b, err := baselines.FromResult(res.Result, baselines.Fingerprint{Kind: "loop", Model: "loop"})
	require.NoError(t, err)
	for _, w := range res.Warnings {
		if w.Kind == stortest.WarnSharedDevice {
			b.Shared, _, _ = strings.Cut(w.Message, ": ")
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, baselines.WriteFile(path, b))
	return res.IOPS()
}
