package stortest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"stortest.dev/engines"
	"stortest.dev/target"
	"stortest.dev/workload/runner"
)

// DefaultSize is the size of the temporary file (and loop device) Target
// creates: large enough that 4 KiB random I/O at depth 32 is not served
// from a handful of blocks, small enough to lay out in well under a second.
const DefaultSize = 64 << 20 // bytes

// Kind says what a Dev is, and so what stortest may do to it.
type Kind uint8

const (
	// KindFile is a regular file: one stortest created, or one named
	// with Device.
	KindFile Kind = iota
	// KindLoop is a loop device stortest attached over a temporary file:
	// writes destroy nothing.
	KindLoop
	// KindDevice is a block device named with Device (or
	// -stortest.device): writes are refused unless it is listed in
	// STORTEST_ALLOW_DESTRUCTIVE, and always while it is in use.
	KindDevice
)

var kindNames = [...]string{"file", "loop", "device"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Dev is a target a workload runs on.
type Dev struct {
	Path    string // where the I/O goes: the device node or the file
	Kind    Kind
	Backing string // a loop device's backing file; "" for the others
	Size    int64  // bytes
}

func (d *Dev) String() string {
	if d.Backing != "" {
		return fmt.Sprintf("%s (%s over %s)", d.Path, d.Kind, d.Backing)
	}
	return fmt.Sprintf("%s (%s)", d.Path, d.Kind)
}

// geteuid is replaced by tests that play an unprivileged user.
var geteuid = os.Geteuid

// Target returns the device the tests are pointed at: the one named with
// -stortest.device or STORTEST_DEVICE (see Device); else, as root, a loop
// device with direct I/O over a temporary file of DefaultSize (see
// LoopDevice); else a temporary file (see File), which puts the page
// cache and a file system in the measured path and says so in the log.
// With STORTEST_REQUIRE_DEVICE=1 an unprivileged run fails (FailNow)
// instead of falling back to a file. It stops the test (FailNow or
// SkipNow) when the target cannot be had.
func Target(t testing.TB) *Dev {
	t.Helper()
	if p := DeviceSetting(); p != "" {
		return Device(t, p)
	}
	if geteuid() == 0 {
		return loopDevice(t, DefaultSize, engines.LoopOptions{DirectIO: true}, true)
	}
	if envIs1(EnvRequireDevice) {
		t.Fatalf("stortest: %s=1, but there is no device: not root, so no loop device; name one with -stortest.device or STORTEST_DEVICE",
			EnvRequireDevice)
	}
	t.Logf("stortest: not root: running on a temporary file, so the page cache and a file system are in the measured path " +
		"(run as root for a loop device, or name a device with -stortest.device)")
	return File(t, DefaultSize)
}

// LoopOption configures LoopDevice.
type LoopOption func(*engines.LoopOptions)

// LoopDirectIO makes the loop driver use direct I/O on its backing file,
// so the device's I/O reaches the disk underneath instead of the page
// cache. It needs a backing file system with O_DIRECT (not tmpfs).
func LoopDirectIO() LoopOption { return func(o *engines.LoopOptions) { o.DirectIO = true } }

// LoopBlockSize sets the loop device's logical block size in bytes (512
// to the page size, a power of two).
func LoopBlockSize(n uint32) LoopOption { return func(o *engines.LoopOptions) { o.BlockSize = n } }

// LoopDevice attaches a loop device over a new temporary file of size
// bytes (rounded down to a MiB) filled with incompressible data, and
// detaches it and removes the file in t.Cleanup (unless
// STORTEST_NOCLEANUP=1, which keeps both and logs where). Without root it
// skips the test, or fails it (FailNow) with STORTEST_REQUIRE_DEVICE=1;
// any other failure stops the test (FailNow). The first LoopDevice or File
// of a process first detaches and removes what stortest processes that
// are gone left behind, with a line on stderr for each
// (target.CleanOrphans).
func LoopDevice(t testing.TB, size int64, opts ...LoopOption) *Dev {
	t.Helper()
	var o engines.LoopOptions
	for _, opt := range opts {
		opt(&o)
	}
	return loopDevice(t, size, o, false)
}

// loopDevice attaches the loop device; with fallback, a backing file
// system without direct I/O gets a loop device without it, logged.
func loopDevice(t testing.TB, size int64, o engines.LoopOptions, fallback bool) *Dev {
	t.Helper()
	if geteuid() != 0 {
		skipOrFail(t, "loop devices need root")
	}
	dir, keep := scratchDir(t)
	so := runner.ScratchOptions{Dir: dir, Size: size, Loop: true, DirectIO: o.DirectIO, BlockSize: o.BlockSize, Keep: keep}
	s, err := runner.NewScratch(so)
	if err != nil && fallback && o.DirectIO && errors.Is(err, engines.ErrNoDirectIO) {
		t.Logf("stortest: %s has no direct I/O: the loop device goes through the page cache of its backing file", dir)
		so.DirectIO = false
		s, err = runner.NewScratch(so)
	}
	if err != nil {
		// No rights, or no loop driver (/dev/loop-control missing in a
		// container): the machine cannot give this test its target.
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, engines.ErrUnsupported) {
			skipOrFail(t, "cannot attach a loop device: %v", err)
		}
		t.Fatalf("stortest: %v", err)
	}
	d := &Dev{Path: s.Path, Kind: KindLoop, Backing: s.File, Size: fileSize(s.File)}
	cleanupScratch(t, s, keep)
	return d
}

// File creates a temporary file of size bytes (rounded down to a MiB)
// filled with incompressible data, and removes it in t.Cleanup (unless
// STORTEST_NOCLEANUP=1). It needs no privileges; it stops the test
// (FailNow) when the file cannot be written. Orphans are cleaned up first,
// as by LoopDevice.
func File(t testing.TB, size int64) *Dev {
	t.Helper()
	dir, keep := scratchDir(t)
	s, err := runner.NewScratch(runner.ScratchOptions{Dir: dir, Size: size, Keep: keep})
	if err != nil {
		t.Fatalf("stortest: %v", err)
	}
	cleanupScratch(t, s, keep)
	return &Dev{Path: s.Path, Kind: KindFile, Size: fileSize(s.File)}
}

// scratchDir is where temporary targets go: the test's TempDir, removed
// by the testing package even if the test binary's own cleanup fails;
// with STORTEST_NOCLEANUP=1 the system's temporary directory, which
// outlives the test. Before the first target of the process, it detaches
// and removes what earlier stortest processes that are gone (killed with
// SIGKILL, say) left behind, saying so on stderr
// (target.CleanOrphans); files kept with STORTEST_NOCLEANUP=1 carry no
// owner and stay.
func scratchDir(t testing.TB) (dir string, keep bool) {
	target.CleanOrphansOnce(os.Stderr)
	if envIs1(EnvNoCleanup) {
		return os.TempDir(), true
	}
	return t.TempDir(), false
}

func cleanupScratch(t testing.TB, s *runner.Scratch, keep bool) {
	t.Cleanup(func() {
		if keep {
			if s.Loop != nil {
				t.Logf("stortest: %s=1: keeping %s over %s (detach: losetup -d %s; then rm %s)",
					EnvNoCleanup, s.Path, s.File, s.Path, s.File)
			} else {
				t.Logf("stortest: %s=1: keeping %s", EnvNoCleanup, s.File)
			}
			return
		}
		if err := s.Close(); err != nil {
			t.Errorf("stortest: cleanup: %v", err)
		}
	})
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// Device returns the block device or file at path, which the test did
// not create and does not remove. A path that does not exist, or is
// neither a block device nor a regular file, stops the test (FailNow): it
// was named on purpose. Without the right to open it the test skips, or
// fails (FailNow) with STORTEST_REQUIRE_DEVICE=1. Write workloads on a
// block device are checked by Run (see Run).
func Device(t testing.TB, path string) *Dev {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			skipOrFail(t, "no access to %s: %v", path, err)
		}
		t.Fatalf("stortest: device %s: %v", path, err)
	}
	d := &Dev{Path: path}
	switch {
	case st.Mode()&fs.ModeDevice != 0 && st.Mode()&fs.ModeCharDevice == 0:
		d.Kind = KindDevice
	case st.Mode().IsRegular():
		d.Kind = KindFile
	default:
		t.Fatalf("stortest: device %s is a %v, not a block device or a regular file", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			skipOrFail(t, "cannot open %s: %v", path, err)
		}
		t.Fatalf("stortest: device %s: %v", path, err)
	}
	defer f.Close()
	if d.Size, err = engines.Size(f); err != nil {
		t.Fatalf("stortest: device %s: %v", path, err)
	}
	return d
}

// skipOrFail skips the test for want of rights or devices, or fails it
// (FailNow) when STORTEST_REQUIRE_DEVICE=1 says device tests must run.
func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if envIs1(EnvRequireDevice) {
		t.Fatalf("stortest: %s (%s=1: failing instead of skipping)", msg, EnvRequireDevice)
	}
	t.Skipf("stortest: %s (set %s=1 to fail instead of skipping)", msg, EnvRequireDevice)
}
