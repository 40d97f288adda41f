package iostat

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"stortest.dev/internal/testenv"
)

// attachLoop attaches a loop device with direct I/O over a new file of
// size bytes and detaches it on cleanup (kept when
// STORTEST_NOCLEANUP=1). It stops the test on failure.
func attachLoop(t *testing.T, size int64) string {
	t.Helper()
	testenv.RequireRoot(t, "losetup")
	img := filepath.Join(t.TempDir(), "loop.img")
	// Real data, not a sparse file: reads of holes would not reach the
	// backing disk.
	data := bytes.Repeat([]byte{0xa5}, 1<<20)
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	for off := int64(0); off < size; off += int64(len(data)) {
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", "--direct-io=on", img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if os.Getenv("STORTEST_NOCLEANUP") == "1" {
			t.Logf("STORTEST_NOCLEANUP=1: %s left attached over %s", dev, img)
			return
		}
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	return dev
}

// TestLoopDeviceReadIOPS drives 4 KiB O_DIRECT random reads at a loop
// device for about two seconds while a Sampler runs, and requires the
// device's r/s from the counters to match the reads counted by the
// reader within 2%.
func TestLoopDeviceReadIOPS(t *testing.T) {
	const size = 64 << 20
	dev := attachLoop(t, size)
	name := filepath.Base(dev)

	fs := DefaultFS()
	res, err := fs.Resolve(dev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Device != name || len(res.Disks) == 0 || slices.Contains(res.Disks, name) {
		t.Errorf("Resolve(%s) = %+v, want %s over the disk of its backing file", dev, res, name)
	}

	fd, err := syscall.Open(dev, syscall.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	// Anonymous mappings are page aligned, as O_DIRECT wants.
	buf, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(buf)

	s, err := fs.StartSampler(t.Context(), SamplerConfig{Interval: 250 * time.Millisecond, Devices: []string{name}})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		n       int
		elapsed time.Duration
		err     error
	}
	done := make(chan result, 1)
	go func() {
		rng := rand.New(rand.NewPCG(1, 2))
		var r result
		start := time.Now()
		for time.Since(start) < 2*time.Second {
			off := rng.Int64N(size/4096) * 4096
			if _, err := syscall.Pread(fd, buf, off); err != nil {
				r.err = err
				break
			}
			r.n++
		}
		r.elapsed = time.Since(start)
		done <- r
	}()
	r := <-done
	snaps, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	total, err := Total(snaps)
	if err != nil {
		t.Fatal(err)
	}
	dd, ok := total.Disk(name)
	if !ok {
		t.Fatalf("%s not in the snapshots", name)
	}
	iops := float64(r.n) / r.elapsed.Seconds()
	rps := dd.Ext().RPerS
	rel := math.Abs(rps-iops) / iops
	t.Logf("%s: reader %d reads in %v = %.1f IOPS; counters %d reads over %d hundredths = %.2f r/s (%.2f%% apart); %d snapshots, r_await %.3f ms, util %.1f%%",
		name, r.n, r.elapsed.Round(time.Millisecond), iops, dd.Diff.ReadIOs, total.Interval, rps, 100*rel, len(snaps), dd.Ext().RAwait, dd.Ext().Util)
	if rel > 0.02 {
		t.Errorf("r/s %.2f and the reader's %.1f IOPS differ by %.2f%%, more than 2%%", rps, iops, 100*rel)
	}
	if d := int64(dd.Diff.ReadIOs) - int64(r.n); d < 0 || d > 64 {
		t.Errorf("the device counted %d reads, the reader made %d", dd.Diff.ReadIOs, r.n)
	}
	if len(snaps) < 4 {
		t.Errorf("%d snapshots in 2 s at 250 ms", len(snaps))
	}
}

// A loop device backed by memory (a tmpfs file) has no disk below it: it
// resolves to itself, so its own counters are still sampled.
func TestResolveLoopOnTmpfs(t *testing.T) {
	testenv.RequireRoot(t, "losetup")
	img := filepath.Join("/dev/shm", "stortest-resolve-"+strings.ReplaceAll(t.Name(), "/", "_")+".img")
	if err := os.WriteFile(img, make([]byte, 1<<20), 0o644); err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.Remove(img) })
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	r, err := DefaultFS().Resolve(dev)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(dev)
	if r.Device != name || len(r.Disks) != 1 || r.Disks[0] != name {
		t.Fatalf("Resolve(%s) = %+v, want the loop device as its own disk", dev, r)
	}
}
