package stortest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/owner"
	"stortest.dev/internal/testenv"
)

// sysLoop reads /sys/block/loopN/<rel> of a loop device path.
func sysLoop(t *testing.T, path, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(path), rel))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func TestFile(t *testing.T) {
	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = File(tb, 3<<20+5) })
	if d == nil || d.Kind != KindFile || d.Size != 3<<20 || d.Backing != "" {
		t.Fatalf("File = %+v, want a 3 MiB file", d)
	}
	b, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 3<<20 || b[0]|b[1]|b[2]|b[3] == 0 && b[len(b)-1] == 0 {
		t.Errorf("the file is not laid out with data")
	}
	f.finish()
	if _, err := os.Stat(d.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file is left behind: %v", err)
	}
	if len(f.errors)+len(f.fatals) > 0 {
		t.Errorf("reported %q %q", f.errors, f.fatals)
	}
}

func TestFileNoCleanup(t *testing.T) {
	t.Setenv(EnvNoCleanup, "1")
	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = File(tb, 1<<20) })
	f.finish()
	t.Cleanup(func() { os.Remove(d.Path) })
	if _, err := os.Stat(d.Path); err != nil {
		t.Fatalf("STORTEST_NOCLEANUP=1 did not keep the file: %v", err)
	}
	if tag, ok := owner.Parse(filepath.Base(d.Path)); ok {
		t.Errorf("the kept file %s carries owner tag %s: a later process would remove it as an orphan", d.Path, tag)
	}
	want := "stortest: STORTEST_NOCLEANUP=1: keeping " + d.Path
	if len(f.logs) != 1 || f.logs[0] != want {
		t.Errorf("logs %q, want %q", f.logs, want)
	}
}

func TestLoopDevice(t *testing.T) {
	testenv.RequireRoot(t)
	for _, tc := range []struct {
		name    string
		opts    []LoopOption
		dio     string
		lbs     string
		minSize int64
	}{
		{"plain", nil, "0", "512", 4 << 20},
		{"direct I/O, 4 KiB blocks", []LoopOption{LoopDirectIO(), LoopBlockSize(4096)}, "1", "4096", 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			var d *Dev
			f.run(func(tb testing.TB) { d = LoopDevice(tb, 4<<20, tc.opts...) })
			if d == nil {
				t.Fatalf("LoopDevice stopped: %q %q", f.fatals, f.skips)
			}
			if d.Kind != KindLoop || !strings.HasPrefix(d.Path, "/dev/loop") || d.Size != 4<<20 {
				t.Fatalf("LoopDevice = %+v", d)
			}
			if got := sysLoop(t, d.Path, "loop/backing_file"); got != d.Backing {
				t.Errorf("backing file %q, want %q", got, d.Backing)
			}
			if got := sysLoop(t, d.Path, "loop/dio"); got != tc.dio {
				t.Errorf("dio %q, want %q", got, tc.dio)
			}
			if got := sysLoop(t, d.Path, "queue/logical_block_size"); got != tc.lbs {
				t.Errorf("logical block size %q, want %q", got, tc.lbs)
			}
			f.finish()
			if got := sysLoop(t, d.Path, "loop/backing_file"); got == d.Backing {
				t.Errorf("%s is still attached to %s", d.Path, d.Backing)
			}
			if _, err := os.Stat(d.Backing); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the backing file is left behind: %v", err)
			}
		})
	}
}

func TestLoopDeviceNoCleanup(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv(EnvNoCleanup, "1")
	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = LoopDevice(tb, 1<<20) })
	f.finish()
	if tag, ok := owner.Parse(filepath.Base(d.Backing)); ok {
		t.Errorf("the kept file %s carries owner tag %s: a later process would remove it as an orphan", d.Backing, tag)
	}
	// Clean up by hand what the test was told to keep.
	if err := detachLoop(d.Path); err != nil {
		t.Errorf("detach: %v", err)
	}
	os.Remove(d.Backing)
	if len(f.logs) != 1 || !strings.Contains(f.logs[0], "keeping "+d.Path+" over "+d.Backing+" (detach: losetup -d "+d.Path) {
		t.Errorf("logs %q", f.logs)
	}
}

// detachLoop detaches a loop device left attached on purpose.
func detachLoop(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	return unix.IoctlSetInt(int(fh.Fd()), unix.LOOP_CLR_FD, 0)
}

func TestTargetUnprivileged(t *testing.T) {
	asUser(t)
	t.Setenv("STORTEST_DEVICE", "")
	t.Setenv(EnvRequireDevice, "")

	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = Target(tb) })
	f.finish()
	if d == nil || d.Kind != KindFile || d.Size != DefaultSize {
		t.Fatalf("Target as a user = %+v, want a temporary file", d)
	}
	if len(f.logs) != 1 || !strings.Contains(f.logs[0], "not root: running on a temporary file") {
		t.Errorf("logs %q", f.logs)
	}

	f = newFake(t)
	f.run(func(tb testing.TB) { LoopDevice(tb, 1<<20) })
	if len(f.skips) != 1 || !strings.Contains(f.skips[0], "loop devices need root (set STORTEST_REQUIRE_DEVICE=1 to fail instead of skipping)") || f.failed {
		t.Errorf("LoopDevice as a user: skips %q, failed %v", f.skips, f.failed)
	}

	t.Setenv(EnvRequireDevice, "1")
	for name, call := range map[string]func(tb testing.TB){
		"Target":     func(tb testing.TB) { Target(tb) },
		"LoopDevice": func(tb testing.TB) { LoopDevice(tb, 1<<20) },
	} {
		f = newFake(t)
		f.run(call)
		f.finish()
		if len(f.fatals) != 1 || len(f.skips) != 0 || !strings.Contains(f.fatals[0], "STORTEST_REQUIRE_DEVICE=1") {
			t.Errorf("%s with STORTEST_REQUIRE_DEVICE=1: fatals %q, skips %q", name, f.fatals, f.skips)
		}
	}
}

func TestTargetRoot(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("STORTEST_DEVICE", "")
	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = Target(tb) })
	defer f.finish()
	if d == nil || d.Kind != KindLoop || d.Size != DefaultSize {
		t.Fatalf("Target as root = %+v, want a loop device", d)
	}
	if got := sysLoop(t, d.Path, "loop/dio"); got != "1" {
		t.Errorf("Target's loop device has dio=%q, want direct I/O", got)
	}
}

func TestTargetNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "named")
	if err := os.WriteFile(path, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STORTEST_DEVICE", path)
	f := newFake(t)
	var d *Dev
	f.run(func(tb testing.TB) { d = Target(tb) })
	f.finish()
	if d == nil || *d != (Dev{Path: path, Kind: KindFile, Size: 8192}) {
		t.Fatalf("Target = %+v", d)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("a named file was removed: %v", err)
	}
}

func TestDevice(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path string
		want       string // in the fatal message
	}{
		{"missing", filepath.Join(dir, "missing"), "no such file or directory"},
		{"directory", dir, "is a d---------, not a block device or a regular file"},
		{"character device", "/dev/null", "not a block device or a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.run(func(tb testing.TB) { Device(tb, tc.path) })
			if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], tc.want) {
				t.Errorf("fatals %q, want one containing %q", f.fatals, tc.want)
			}
		})
	}
	t.Run("block device", func(t *testing.T) {
		testenv.RequireRoot(t)
		loop := LoopDevice(t, 2<<20)
		f := newFake(t)
		var d *Dev
		f.run(func(tb testing.TB) { d = Device(tb, loop.Path) })
		if d == nil || *d != (Dev{Path: loop.Path, Kind: KindDevice, Size: 2 << 20}) {
			t.Errorf("Device = %+v (fatals %q)", d, f.fatals)
		}
	})
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindFile: "file", KindLoop: "loop", KindDevice: "device", 7: "Kind(7)"} {
		if got := fmt.Sprint(k); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
	d := &Dev{Path: "/dev/loop3", Kind: KindLoop, Backing: "/tmp/x.img"}
	if got := d.String(); got != "/dev/loop3 (loop over /tmp/x.img)" {
		t.Errorf("String = %q", got)
	}
}
