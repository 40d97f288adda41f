package engines

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/testenv"
)

func readSys(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestLoopAttachDetach(t *testing.T) {
	testenv.RequireRoot(t)
	backing := tempFile(t, 4<<20)
	l, err := AttachLoop(backing, LoopOptions{DirectIO: true, BlockSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Detach() })
	if l.Path() != fmt.Sprintf("/dev/loop%d", l.Number()) || l.Backing() != backing {
		t.Errorf("Path %q Number %d Backing %q", l.Path(), l.Number(), l.Backing())
	}
	sys := fmt.Sprintf("/sys/block/loop%d", l.Number())
	if got := readSys(t, sys+"/loop/backing_file"); got != backing {
		t.Errorf("backing_file = %q, want %q", got, backing)
	}
	if !l.Bound() {
		t.Error("Bound = false while attached")
	}
	if got := readSys(t, sys+"/loop/dio"); got != "1" {
		t.Errorf("loop/dio = %q, want 1", got)
	}
	f := openT(t, l.Path(), true)
	if lbs, err := LogicalBlockSize(f); lbs != 4096 || err != nil {
		t.Errorf("LogicalBlockSize = %d, %v; want 4096", lbs, err)
	}
	if pbs, err := PhysicalBlockSize(f); pbs < 4096 || err != nil {
		t.Errorf("PhysicalBlockSize = %d, %v; want >= 4096", pbs, err)
	}
	if size, err := Size(f); size != 4<<20 || err != nil {
		t.Errorf("Size = %d, %v; want %d", size, err, 4<<20)
	}
	f.Close() // an opener defers the detach; closed here to see it complete at once
	if err := l.Detach(); err != nil {
		t.Fatalf("Detach: %v", err)
	}
	// The device number may be reused by a concurrent test at once, so the
	// check is that it no longer names this backing file.
	if b, err := os.ReadFile(sys + "/loop/backing_file"); err == nil && strings.TrimSpace(string(b)) == backing {
		t.Errorf("after Detach, %s/loop/backing_file still names %s", sys, backing)
	}
	if l.Bound() {
		t.Error("Bound after Detach")
	}
	if err := l.Detach(); err != nil {
		t.Errorf("second Detach = %v, want nil", err)
	}
}

// TestLoopDetachWhileOpen detaches while another descriptor holds the device:
// the kernel finishes the detach at the last close.
func TestLoopDetachWhileOpen(t *testing.T) {
	l := attachLoop(t, 1<<20, LoopOptions{})
	f, err := os.Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.Detach() }()
	f.Close()
	if err := <-done; err != nil {
		t.Fatalf("Detach with an opener that then closes: %v", err)
	}
}

// TestLoopConcurrentAttach attaches from several goroutines at once; each
// must get its own device even though LOOP_CTL_GET_FREE hands the same free
// device to several of them.
func TestLoopConcurrentAttach(t *testing.T) {
	testenv.RequireRoot(t)
	const n = 6
	loops := make([]*Loop, n)
	errs := make([]error, n)
	paths := make([]string, n)
	for i := range n {
		paths[i] = tempFile(t, 1<<20)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			loops[i], errs[i] = AttachLoop(paths[i], LoopOptions{})
		})
	}
	before := loopBusyRetries.Load()
	close(start)
	wg.Wait()
	t.Logf("%d attaches lost the race for a free device and retried", loopBusyRetries.Load()-before)
	seen := map[int]int{}
	for i := range n {
		if errs[i] != nil {
			t.Errorf("attach %d: %v", i, errs[i])
			continue
		}
		l := loops[i]
		t.Cleanup(func() {
			if err := l.Detach(); err != nil {
				t.Errorf("Detach %s: %v", l.Path(), err)
			}
			if l.Bound() {
				t.Errorf("%s still bound", l.Path())
			}
		})
		if j, dup := seen[l.Number()]; dup {
			t.Errorf("attach %d and %d both got %s", i, j, l.Path())
		}
		seen[l.Number()] = i
		if got := readSys(t, l.sysBacking()); got != paths[i] {
			t.Errorf("%s backs %q, want %q", l.Path(), got, paths[i])
		}
	}
}

func TestLoopReadOnly(t *testing.T) {
	l := attachLoop(t, 1<<20, LoopOptions{ReadOnly: true, AutoClear: true})
	if got := readSys(t, fmt.Sprintf("/sys/block/loop%d/ro", l.Number())); got != "1" {
		t.Errorf("ro = %q, want 1", got)
	}
	if got := readSys(t, fmt.Sprintf("/sys/block/loop%d/loop/autoclear", l.Number())); got != "1" {
		t.Errorf("autoclear = %q, want 1", got)
	}
	// Linux lets a read-only device be opened for writing; the writes fail.
	f := openT(t, l.Path(), false)
	e := newEngine(t, "psync", Config{File: f})
	u := Unit{Op: OpWrite, Buf: make([]byte, 512), BufIndex: -1}
	e.Queue(&u)
	if u.Res != -int64(unix.EPERM) {
		t.Fatalf("write to a read-only loop device: Res = %d, want -EPERM", u.Res)
	}
	if err := e.Explain(&u); !errors.Is(err, unix.EPERM) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Explain = %v, want EPERM explained as read-only", err)
	}
	u = Unit{Op: OpRead, Buf: make([]byte, 512), BufIndex: -1}
	if e.Queue(&u); u.Res != 512 {
		t.Errorf("read from a read-only loop device: Res = %d, want 512", u.Res)
	}
}

func TestLoopErrors(t *testing.T) {
	testenv.RequireRoot(t)
	if _, err := AttachLoop("/nonexistent/backing", LoopOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing backing file: %v", err)
	}
	backing := tempFile(t, 1<<20)
	_, err := AttachLoop(backing, LoopOptions{BlockSize: 1000})
	if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "block size 1000 must be a power of two") {
		t.Errorf("block size 1000: %v", err)
	}
	err = configureErr("/dev/loop9", backing, LoopOptions{DirectIO: true}, unix.EINVAL)
	if !errors.Is(err, ErrNoDirectIO) {
		t.Errorf("configureErr(direct, EINVAL) = %v, want ErrNoDirectIO", err)
	}
}

// OpenLoop takes hold of a device another Loop attached: it names the
// backing file as the kernel does, its inode, and whether it was removed;
// Close leaves the device attached and Detach detaches it.
func TestOpenLoop(t *testing.T) {
	testenv.RequireRoot(t)
	l, err := AttachLoop(tempFile(t, 1<<20), LoopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Held by no process, as a dead process leaves it.
	l.Close()
	t.Cleanup(func() {
		if o, err := OpenLoop(l.Path()); err == nil && o.Backing() == l.Backing() {
			o.Detach()
		} else if err == nil {
			o.Close()
		}
	})
	var st unix.Stat_t
	if err := unix.Stat(l.Backing(), &st); err != nil {
		t.Fatal(err)
	}

	o, err := OpenLoop(l.Path())
	if err != nil {
		t.Fatalf("OpenLoop(%s): %v", l.Path(), err)
	}
	if o.Backing() != l.Backing() || o.Number() != l.Number() || o.Path() != l.Path() {
		t.Errorf("OpenLoop: %s #%d over %q; want %s #%d over %q", o.Path(), o.Number(), o.Backing(), l.Path(), l.Number(), l.Backing())
	}
	dev, ino, err := o.BackingID()
	if err != nil || dev != st.Dev || ino != st.Ino {
		t.Errorf("BackingID = %d, %d, %v; want the file's %d, %d", dev, ino, err, st.Dev, st.Ino)
	}
	if o.BackingDeleted() {
		t.Error("BackingDeleted while the file exists")
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if !l.Bound() {
		t.Fatal("Close detached the device")
	}
	if err := o.Detach(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Detach after Close = %v, want os.ErrClosed", err)
	}

	if err := os.Remove(l.Backing()); err != nil {
		t.Fatal(err)
	}
	o, err = OpenLoop(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !o.BackingDeleted() || o.Backing() != l.Backing() {
		t.Errorf("removed backing file: BackingDeleted %v, Backing %q; want true, %q", o.BackingDeleted(), o.Backing(), l.Backing())
	}
	if err := o.Detach(); err != nil {
		t.Fatalf("Detach: %v", err)
	}
	if l.Bound() || o.Bound() {
		t.Error("still attached after the OpenLoop's Detach")
	}

	// The device is free now, unless another process took it at once.
	if o, err := OpenLoop(l.Path()); err == nil {
		if o.Backing() == l.Backing() {
			t.Errorf("OpenLoop of a detached device names its old file %q", o.Backing())
		}
		o.Close()
	} else if !errors.Is(err, ErrNotBound) {
		t.Errorf("OpenLoop of a free device = %v, want ErrNotBound", err)
	}
	for _, bad := range []string{"/dev/sda", "/dev/loop", "/dev/loop-control", "/dev/loop1x"} {
		if _, err := OpenLoop(bad); err == nil || !strings.Contains(err.Error(), "not a loop device path") {
			t.Errorf("OpenLoop(%q) = %v, want not a loop device path", bad, err)
		}
	}
}
