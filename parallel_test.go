package stortest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
	"stortest.dev/target"
)

const (
	parallelChildEnv = "STORTEST_PARALLEL_CHILD" // the child's number, 1 or 2
	parallelDirEnv   = "STORTEST_PARALLEL_DIR"   // where children and parent meet
	parallelDevices  = 8                         // loop devices per child, attached at once
	parallelSize     = 1 << 20                   // bytes per device
)

// Two test binaries at once (go test -p 2 over two packages), each
// attaching several loop devices at once, never get the same device or
// scratch file: every device path and backing file is reported once
// while both hold all theirs, each device reads back the pattern its
// child wrote after both wrote, and all are detached and removed at the
// end.
func TestParallelBinariesLoopDevices(t *testing.T) {
	if os.Getenv(parallelChildEnv) != "" {
		t.Skip("in a child")
	}
	testenv.RequireDevices(t, "loop-control") // root and loop devices
	dir := t.TempDir()
	type child struct {
		cmd    *exec.Cmd
		out    proctest.LockedBuffer
		done   chan error
		waited bool
	}
	// Whatever happens, every device and file goes: this runs last, after
	// the children are killed (cleanups run last first), when their
	// devices are theirs no more. Those they did not report are orphans.
	reports := map[string]string{} // report file -> "dev backing"
	t.Cleanup(func() {
		for _, r := range reports {
			dev, backing, _ := strings.Cut(r, " ")
			forgetLoop(dev, backing)
			// The file, then its killed child's TempDir if empty.
			os.Remove(backing)
			os.Remove(filepath.Dir(backing))
			os.Remove(filepath.Dir(filepath.Dir(backing)))
		}
		if t.Failed() {
			lines, err := target.CleanOrphans()
			t.Logf("cleaned up after the children: %q, %v", lines, err)
		}
	})
	var children [2]*child
	for i := range children {
		c := &child{done: make(chan error, 1)}
		c.cmd = childTest("TestParallelChild", fmt.Sprintf("%s=%d", parallelChildEnv, i+1), parallelDirEnv+"="+dir)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { c.done <- c.cmd.Wait() }()
		children[i] = c
		t.Cleanup(func() {
			if !c.waited {
				c.cmd.Process.Kill()
				<-c.done
			}
		})
	}
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each child's devices wait at "start" until both children run, then
	// attach at once, write, report, and wait at "check" until both have
	// reported all.
	waitFor(t, dir, "ready-", 2*parallelDevices, children[0].out.String, children[1].out.String)
	touch("start")
	start := time.Now()
	waitFor(t, dir, "dev-", 2*parallelDevices, children[0].out.String, children[1].out.String)
	t.Logf("%d loop devices attached, written and reported in %v", 2*parallelDevices, time.Since(start).Round(time.Millisecond))
	devs, files := map[string]string{}, map[string]string{}
	names, _ := filepath.Glob(filepath.Join(dir, "dev-*"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		who := filepath.Base(n)
		r := strings.TrimSpace(string(b))
		reports[who] = r
		dev, backing, _ := strings.Cut(r, " ")
		if other, dup := devs[dev]; dup {
			t.Errorf("%s went to both %s and %s", dev, other, who)
		}
		if other, dup := files[backing]; dup {
			t.Errorf("scratch file %s went to both %s and %s", backing, other, who)
		}
		devs[dev], files[backing] = who, who
	}
	t.Logf("%d loop devices held at once by 2 processes: %d distinct, %d distinct scratch files", len(reports), len(devs), len(files))
	touch("check")
	retries := 0
	for i, c := range children {
		select {
		case err := <-c.done:
			c.waited = true
			if err != nil {
				t.Errorf("child %d: %v:\n%s", i+1, err, c.out.String())
			}
			if m := regexp.MustCompile(`(?m)^retries (\d+)$`).FindStringSubmatch(c.out.String()); m != nil {
				n, _ := strconv.Atoi(m[1])
				retries += n
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("child %d did not end within 60 s:\n%s", i+1, c.out.String())
		}
	}
	t.Logf("attaches that lost a free device to another attacher (in either process) and asked again: %d", retries)
	for _, r := range reports {
		dev, backing, _ := strings.Cut(r, " ")
		if boundTo(dev, backing) {
			t.Errorf("%s is still attached to %s", dev, backing)
		}
		if _, err := os.Stat(backing); err == nil {
			t.Errorf("%s is left", backing)
		}
	}
}

// waitFor waits until dir holds n files named prefix*, or fails the test
// (FailNow) after 60 s with the children's output.
func waitFor(t *testing.T, dir, prefix string, n int, outs ...func() string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		got, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
		if len(got) >= n {
			return
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for i, o := range outs {
				fmt.Fprintf(&b, "child %d:\n%s\n", i+1, o())
			}
			t.Fatalf("%d of %d %s* files after 60 s\n%s", len(got), n, prefix, b.String())
		}
	}
}

// TestParallelChild, run by TestParallelBinariesLoopDevices, attaches
// parallelDevices loop devices at once, writes its own pattern to each
// and reports it, and once told, reads each back with direct I/O.
func TestParallelChild(t *testing.T) {
	id, _ := strconv.Atoi(os.Getenv(parallelChildEnv))
	if id == 0 {
		t.Skip("run by TestParallelBinariesLoopDevices")
	}
	dir := os.Getenv(parallelDirEnv)
	await := func(name string) {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s from the parent in 60 s", name)
			}
		}
	}
	t.Cleanup(func() { fmt.Printf("retries %d\n", engines.LoopAttachRetries()) })
	for i := range parallelDevices {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			me := fmt.Sprintf("%d-%d", id, i)
			if err := os.WriteFile(filepath.Join(dir, "ready-"+me), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			await("start")
			d := LoopDevice(t, parallelSize)
			want := pattern(me, parallelSize)
			f, err := os.OpenFile(d.Path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(want, 0); err != nil {
				t.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			// Written whole under another name, so the parent never reads
			// half a report.
			tmp := filepath.Join(dir, "tmp-"+me)
			if err := os.WriteFile(tmp, []byte(d.Path+" "+d.Backing+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(dir, "dev-"+me)); err != nil {
				t.Fatal(err)
			}
			await("check")
			got, err := readDirect(d.Path, parallelSize)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (%s) reads back another pattern than %s wrote: %.40q", d.Path, d.Backing, me, got)
			}
		})
	}
}

// pattern is size bytes that name who wrote them and where.
func pattern(who string, size int) []byte {
	b := make([]byte, 0, size)
	for off := 0; len(b) < size; off += 64 {
		b = fmt.Appendf(b, "%-63s\n", fmt.Sprintf("%s at %d", who, off))
	}
	return b[:size]
}

// readDirect reads size bytes of path with O_DIRECT: from the device, not
// the page cache.
func readDirect(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, err := engines.AllocBuffers(1, size)
	if err != nil {
		return nil, err
	}
	defer buf.Free()
	b := buf.Buf(0)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}
