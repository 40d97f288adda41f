package stortest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/testenv"
	"stortest.dev/target"
	"stortest.dev/workload"
)

// TestErrUnsafeIsTargets: the root's ErrUnsafe and target's are one, so
// errors.Is holds for either.
func TestErrUnsafeIsTargets(t *testing.T) {
	err := error(&target.UnsafeError{Path: "/dev/sdz", Reason: "r", Hint: "h"})
	if !errors.Is(err, ErrUnsafe) || ErrUnsafe != target.ErrUnsafe {
		t.Errorf("errors.Is(%v, stortest.ErrUnsafe) = false", err)
	}
}

// A mounted device is refused even when listed in
// STORTEST_ALLOW_DESTRUCTIVE; the job's AllowMountedWrite, fio's
// allow_mounted_write=1, lets the write through.
func TestRunMountedDevice(t *testing.T) {
	testenv.RequireRoot(t)
	mkfs, err := exec.LookPath("mkfs.ext4")
	if err != nil {
		t.Skipf("mkfs.ext4: %v", err)
	}
	loop := LoopDevice(t, 32<<20)
	if out, err := exec.Command(mkfs, "-q", "-F", loop.Path).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v: %s", err, out)
	}
	dir := t.TempDir()
	if err := unix.Mount(loop.Path, dir, "ext4", 0, ""); err != nil {
		t.Fatalf("mount: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	t.Setenv(EnvAllowDestructive, loop.Path)
	job := workload.Job{Name: "over", RW: workload.Write, BlockSize: 64 << 10, Size: 1 << 20, Offset: 16 << 20}

	f := runFake(t, func(tb testing.TB) { Run(tb, Device(tb, loop.Path), job) })
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "refusing to write "+loop.Path+": "+strings.TrimPrefix(loop.Path, "/dev/")+" is mounted on "+dir) ||
		!strings.Contains(f.fatals[0], "STORTEST_ALLOW_DESTRUCTIVE does not override this, the job's AllowMountedWrite does") {
		t.Fatalf("fatals %q", f.fatals)
	}

	job.AllowMountedWrite = true
	requireWrites(t, loop.Path, job, 1<<20, "AllowMountedWrite")
}

// A read_iolog names its own file and directions: a log that writes a
// block device is checked as the target is, though the job's target is
// a regular file and its rw a read.
func TestRunChecksReplayedDevice(t *testing.T) {
	testenv.RequireRoot(t)
	loop := LoopDevice(t, 4<<20)
	log := filepath.Join(t.TempDir(), "replay.log")
	p := loop.Path
	if err := os.WriteFile(log, []byte("fio version 2 iolog\n"+p+" add\n"+p+" open\n"+p+" write 0 4096\n"+p+" close\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := workload.Job{Name: "replay", RW: workload.Read}
	job.ReadIOLog = log
	t.Setenv(EnvAllowDestructive, "")
	before := readHead(t, p)
	f := runFake(t, func(tb testing.TB) { Run(tb, File(tb, 1<<20), job) })
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "stortest: job replay: refusing to write "+p+": a write workload destroys its data; list it in STORTEST_ALLOW_DESTRUCTIVE") {
		t.Fatalf("fatals %q, errors %q", f.fatals, f.errors)
	}
	if after := readHead(t, p); !bytes.Equal(before, after) {
		t.Errorf("%s was written", p)
	}
}

func readHead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path) // 4 MiB
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The loop device stortest attached for the test is scratch: a write job
// runs on it without STORTEST_ALLOW_DESTRUCTIVE, as before the guard
// checked every file a job writes (examples/randread's TestWriteVerify
// was refused).
func TestRunWritesOwnLoopDevice(t *testing.T) {
	testenv.RequireRoot(t)
	loop := LoopDevice(t, 4<<20)
	t.Setenv(EnvAllowDestructive, "")
	job := workload.Job{Name: "scratch", RW: workload.Write, BlockSize: 64 << 10, Size: 1 << 20}
	f := runFake(t, func(tb testing.TB) { Run(tb, loop, job) })
	if len(f.fatals) != 0 || len(f.errors) != 0 {
		t.Fatalf("fatals %q, errors %q", f.fatals, f.errors)
	}
}
