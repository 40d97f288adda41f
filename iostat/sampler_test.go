package iostat

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fixtureFS is an FS over a copy of a pair's first fixture; the returned
// function swaps in the second.
func fixtureFS(t *testing.T, pair string) (FS, func()) {
	t.Helper()
	src := filepath.Join("testdata", "pairs", pair)
	dir := fixtureDirs(t, filepath.Join(src, "diskstats.a"), filepath.Join(src, "uptime.a"))
	f := dirFS(t, dir)
	return f, func() {
		copyFile(t, filepath.Join(src, "diskstats.b"), filepath.Join(dir, "diskstats"))
		copyFile(t, filepath.Join(src, "uptime.b"), filepath.Join(dir, "uptime"))
	}
}

// settleGoroutines waits up to a second for the goroutine count to fall
// to want and returns the last count.
func settleGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestSamplerBeforeDuringAfter(t *testing.T) {
	f, swap := fixtureFS(t, "steady")
	s, err := f.StartSampler(t.Context(), SamplerConfig{Interval: 10 * time.Millisecond, Devices: []string{"sda", "nvme0n1"}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	if n := len(s.Snapshots()); n < 2 {
		t.Errorf("%d snapshots after 60 ms at 10 ms, want the first and some more", n)
	}
	swap()
	snaps, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) < 3 {
		t.Fatalf("%d snapshots, want before, during and after", len(snaps))
	}
	for i, sn := range snaps {
		if len(sn.Disks) != 2 || sn.Disks[0].Name != "sda" || sn.Disks[1].Name != "nvme0n1" {
			t.Fatalf("snapshot %d: disks %+v, want sda and nvme0n1 only", i, sn.Disks)
		}
		if i > 0 && sn.Time.Before(snaps[i-1].Time) {
			t.Errorf("snapshot %d is older than the one before", i)
		}
	}
	total, err := Total(snaps)
	if err != nil {
		t.Fatal(err)
	}
	sda, _ := total.Disk("sda")
	if sda.Diff.ReadIOs != 3 || total.Interval != 237 {
		t.Errorf("total: sda reads %d over %d hundredths, want 3 over 237", sda.Diff.ReadIOs, total.Interval)
	}
	ds := Deltas(snaps)
	if len(ds) != len(snaps)-1 {
		t.Fatalf("Deltas: %d", len(ds))
	}
	var reads uint64
	for _, d := range ds {
		dd, _ := d.Disk("sda")
		reads += dd.Diff.ReadIOs
	}
	if reads != 3 {
		t.Errorf("per-interval reads add up to %d, want 3", reads)
	}
	again, err2 := s.Stop()
	if err2 != nil || len(again) != len(snaps) {
		t.Errorf("second Stop: %d snapshots, %v", len(again), err2)
	}
}

func TestSamplerNoGoroutineLeak(t *testing.T) {
	f, _ := fixtureFS(t, "steady")
	before := runtime.NumGoroutine()
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := f.StartSampler(ctx, SamplerConfig{Interval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			cancel() // cancelled first, stopped after
		}
		time.Sleep(3 * time.Millisecond)
		if _, err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	if n := settleGoroutines(before); n > before {
		t.Errorf("%d goroutines after stopping every sampler, %d before", n, before)
	}
}

func TestSamplerContextCancel(t *testing.T) {
	f, _ := fixtureFS(t, "steady")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := f.StartSampler(ctx, SamplerConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.done:
	case <-time.After(time.Second):
		t.Fatal("sampling goroutine still running a second after its context was cancelled")
	}
	n := len(s.Snapshots())
	time.Sleep(20 * time.Millisecond)
	if m := len(s.Snapshots()); m != n {
		t.Errorf("%d snapshots after cancel, then %d", n, m)
	}
	snaps, err := s.Stop()
	if err != nil || len(snaps) != n+1 {
		t.Errorf("Stop after cancel: %d snapshots (want %d), %v", len(snaps), n+1, err)
	}
}

func TestSamplerErrors(t *testing.T) {
	f, _ := fixtureFS(t, "steady")
	if _, err := f.StartSampler(t.Context(), SamplerConfig{Devices: []string{"sdz"}}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("unknown device: %v, want ErrNoDevice", err)
	}
	if _, err := f.StartSampler(t.Context(), SamplerConfig{Interval: -time.Second}); err == nil {
		t.Error("negative interval accepted")
	}
	s, err := f.StartSampler(t.Context(), SamplerConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f.ProcPath("diskstats")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	snaps, err := s.Stop()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stop: %v, want the missing file's error", err)
	}
	if len(snaps) != 1 {
		t.Errorf("%d snapshots, want the first only", len(snaps))
	}
	if _, err := Total(snaps); err == nil {
		t.Error("Total of one snapshot: no error")
	}
}
