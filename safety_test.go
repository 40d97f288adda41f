package stortest

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

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
	requireRoot(t)
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

	f := newFake(t)
	f.run(func(tb testing.TB) { Run(tb, Device(tb, loop.Path), job) })
	f.finish()
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "refusing to write "+loop.Path+": "+strings.TrimPrefix(loop.Path, "/dev/")+" is mounted on "+dir) ||
		!strings.Contains(f.fatals[0], "STORTEST_ALLOW_DESTRUCTIVE does not override this, the job's AllowMountedWrite does") {
		t.Fatalf("fatals %q", f.fatals)
	}

	job.AllowMountedWrite = true
	f = newFake(t)
	var r *Result
	f.run(func(tb testing.TB) { r = Run(tb, Device(tb, loop.Path), job) })
	f.finish()
	if r == nil || r.Jobs[0].Dirs[workload.DirWrite].Bytes != 1<<20 {
		t.Fatalf("AllowMountedWrite: fatals %q, errors %q", f.fatals, f.errors)
	}
}
