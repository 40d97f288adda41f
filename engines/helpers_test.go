package engines

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"stortest.dev/internal/testenv"
)

// tempFile creates a regular file of size bytes filled with zeros and returns
// its path; removed with t.TempDir. Stops the test (FailNow) on error.
func tempFile(t testing.TB, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "target")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Write zeros rather than truncate: a sparse file reads back zeros either
	// way, but written blocks make direct I/O and NOWAIT behave as on a laid-out
	// fio file.
	zero := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(zero)) {
		n := min(int64(len(zero)), size-off)
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// attachLoop attaches a loop device over a new temp file of size bytes and
// detaches it in t.Cleanup, checking that nothing is left behind. Needs root
// (see requireRoot). Stops the test (FailNow) on error.
func attachLoop(t testing.TB, size int64, opts LoopOptions) *Loop {
	t.Helper()
	testenv.RequireRoot(t)
	backing := tempFile(t, size)
	l, err := AttachLoop(backing, opts)
	if err != nil {
		t.Fatalf("AttachLoop: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Detach(); err != nil {
			t.Errorf("Detach: %v", err)
		}
		if l.Bound() {
			t.Errorf("%s still bound to %s after Detach", l.Path(), l.Backing())
		}
	})
	return l
}

// openT opens path for an engine and closes it in t.Cleanup. Stops the test
// (FailNow) on error.
func openT(t testing.TB, path string, direct bool) *os.File {
	t.Helper()
	f, err := OpenFile(path, true, direct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// newEngine creates an engine and closes it in t.Cleanup. Stops the test
// (FailNow) on error.
func newEngine(t testing.TB, name string, cfg Config) Engine {
	t.Helper()
	e, err := New(name, cfg)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// allocBuffers allocates aligned buffers freed in t.Cleanup (after engines
// created later, since cleanups run last-in first-out). Stops the test
// (FailNow) on error.
func allocBuffers(t testing.TB, n, size int) *Buffers {
	t.Helper()
	b, err := AllocBuffers(n, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	return b
}

// queuedBatch is an engine named name of depth 4 over a 1 MiB temporary
// file, with a batch of four 4 KiB reads (offsets 0 to 12 KiB) queued and
// not committed, for the tests that make the kernel reject one of a
// batch. It stops the test (FailNow) when a read does not queue.
func queuedBatch(t *testing.T, name string) (Engine, []*Unit) {
	t.Helper()
	f := openT(t, tempFile(t, 1<<20), false)
	bufs := allocBuffers(t, 4, 4096)
	e := newEngine(t, name, Config{File: f, Depth: 4})
	units := make([]*Unit, 4)
	for i := range units {
		units[i] = &Unit{Op: OpRead, Offset: int64(i) * 4096, Buf: bufs.Buf(i), BufIndex: -1, Res: -999}
		if st, err := e.Queue(units[i]); st != Queued || err != nil {
			t.Fatalf("Queue = %v, %v", st, err)
		}
	}
	return e, units
}

// drive runs units through e the way the runner does: queue until Busy or out
// of units, commit, reap at least one. It returns the most units that were
// queued or in flight at once.
func drive(e Engine, units []*Unit) (maxInFlight int, err error) {
	next, pending := 0, 0
	for next < len(units) || pending > 0 {
		queued := 0
		busy := false
		for next < len(units) {
			st, err := e.Queue(units[next])
			if err != nil {
				return maxInFlight, err
			}
			if st == Busy {
				busy = true
				break
			}
			next++
			if st == Queued {
				pending++
				queued++
			}
		}
		maxInFlight = max(maxInFlight, pending)
		if queued > 0 {
			if err := e.Commit(); err != nil {
				return maxInFlight, err
			}
		}
		if pending == 0 {
			if busy {
				return maxInFlight, fmt.Errorf("%s: Busy with nothing in flight", e.Name())
			}
			continue
		}
		n, err := e.GetEvents(1, 0, 0)
		if err != nil {
			return maxInFlight, err
		}
		if n < 1 {
			return maxInFlight, fmt.Errorf("%s: GetEvents(1, ...) returned %d", e.Name(), n)
		}
		for i := range n {
			if e.Event(i) == nil {
				return maxInFlight, fmt.Errorf("%s: Event(%d) is nil", e.Name(), i)
			}
		}
		pending -= n
	}
	return maxInFlight, nil
}

// fill writes a pattern that differs per offset, per byte and per seed (so
// one test's data never passes for another's).
func fill(b []byte, off int64, seed int) {
	for i := range b {
		b[i] = byte(int64(i)*7 + off/512*13 + int64(seed)*31 + 1)
	}
}
