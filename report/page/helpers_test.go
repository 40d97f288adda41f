package page

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/iostat"
	"stortest.dev/steady"
	"stortest.dev/workload"
)

// The test data are recorded runs of this project's CI VM:
//   - randread-30s-a and -b: two unchanged 30 s runs of 4 KiB random reads
//     at depth 32 on a loop device, under CPU load (copies of
//     regress/testdata/noise/cpu/30s/run-01 and run-02, recorded by
//     scripts/record-noise.sh);
//   - randread-30s-shared: the same job with other I/O on the disk
//     (regress/testdata/noise/shared/30s/run-01), at less than half the
//     IOPS: a regression;
//   - iostat-vda-30s: 31 snapshots a second apart of the VM's disk and
//     CPUs (iostat.Snapshot as JSON) taken while the test suite ran under
//     stress-ng, a separate recording from the runs above.

func loadBaseline(t testing.TB, name string) *baselines.Baseline {
	t.Helper()
	b, err := baselines.Decode(bytes.NewReader(testenv.Gunzip(t, filepath.Join("testdata", name))), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadIOStat(t testing.TB) []iostat.Delta {
	t.Helper()
	var snaps []iostat.Snapshot
	if err := json.Unmarshal(testenv.Gunzip(t, filepath.Join("testdata", "iostat-vda-30s.json.gz")), &snaps); err != nil {
		t.Fatal(err)
	}
	if len(snaps) < 2 {
		t.Fatalf("iostat recording has %d snapshots", len(snaps))
	}
	return iostat.Deltas(snaps)
}

// replaySteady runs the recorded seconds of b through fio's steady-state
// criterion crit, as the runner does second by second, and returns the
// outcome as the runner reports it.
func replaySteady(t testing.TB, b *baselines.Baseline, crit string, window, ramp time.Duration) *workload.SteadyResult {
	t.Helper()
	set, err := steady.ParseSet(crit)
	if err != nil {
		t.Fatal(err)
	}
	cfg := steady.Config{Criteria: set, Window: window, Ramp: ramp, Continue: true}
	det, err := steady.NewDetector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := &workload.SteadyResult{Criteria: set, Window: window, Ramp: ramp, Continue: true}
	var ios, bytes uint64
	for i, s := range b.Seconds {
		if s.Dur < time.Millisecond {
			continue // the runner folds such a second into the next, as fio
		}
		for _, d := range s.Dirs {
			if d != nil {
				ios += d.IOs
				bytes += d.Bytes
			}
		}
		v := det.Observe(steady.Counters{Elapsed: s.T, IOs: ios, Bytes: bytes})
		res.Samples++
		res.Steady = v.Attained
		res.Last = v.Reason()
		if v.Event != steady.NoEvent {
			res.Events = append(res.Events, workload.SteadyEvent{Event: v.Event, Sample: i, T: s.T, Loss: v.Loss, Reason: v.Reason()})
		}
	}
	if i, at := det.AttainedAt(); i >= 0 {
		res.Attained, res.AttainedAt = true, at
	}
	res.Losses = det.Losses()
	return res
}

// recordedRun is the run page of the recorded run a with the iostat
// recording, a steady-state criterion replayed over its seconds, and
// checks as stortest.Run records them.
func recordedRun(t testing.TB) *Run {
	t.Helper()
	b := loadBaseline(t, "randread-30s-a.json.gz")
	r := &Run{
		Title: "TestRandRead4K / randread-4k-qd32",
		Jobs: []RunJob{{Baseline: b, Ramp: 2 * time.Second,
			Steady: []*workload.SteadyResult{replaySteady(t, b, "iops:10%", 5*time.Second, 2*time.Second)}}},
		IOStat: loadIOStat(t),
		Checks: []Check{
			{Name: "clat p99.9", Limit: "≤ 100ms", Outcome: "pass"},
			{Name: "iops floor", Limit: "≥ 80k", Outcome: "fail", Message: "randread-4k-qd32: iops 64k < floor 80k"},
			{Name: "no errors", Outcome: "pass"},
		},
		Warnings: []string{"CPU-bound: the CPUs were 97% busy"},
	}
	return r
}
