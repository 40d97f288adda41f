package engines

import (
	"sync"
	"testing"
	"time"
)

// TestPosixAIODepth keeps depth units in flight at once: every worker
// waits, as it starts its I/O, until all depth have started, which only
// happens if the pool runs them together (each blocks its own thread once
// in the kernel: the transfers are raw system calls). Beyond the
// depth Queue says Busy; GetEvents honours min, max and its timeout, and
// the data round-trips.
func TestPosixAIODepth(t *testing.T) {
	const depth = 8
	var (
		mu      sync.Mutex
		started int
		all     = make(chan struct{})
	)
	posixAIOStarted = func(u *Unit) {
		mu.Lock()
		started++
		if started == depth {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
		}
	}
	t.Cleanup(func() { posixAIOStarted = nil })

	f := openT(t, tempFile(t, 1<<20), true)
	bufs := allocBuffers(t, depth+1, 4096)
	e := newEngine(t, "posixaio", Config{File: f, Direct: true, Depth: depth})
	if e.Flags() != 0 {
		t.Errorf("Flags = %v, want 0 (asynchronous, no commit)", e.Flags())
	}
	if n := e.(Threaded).Threads(); n != depth {
		t.Errorf("Threads = %d, want %d", n, depth)
	}
	units := make([]*Unit, depth+1)
	for i := range units {
		units[i] = &Unit{Op: OpWrite, Offset: int64(i) * 4096, Buf: bufs.Buf(i), BufIndex: -1}
		fill(units[i].Buf, units[i].Offset, 5)
	}
	begin := time.Now()
	for i := range depth {
		if st, err := e.Queue(units[i]); st != Queued || err != nil {
			t.Fatalf("Queue %d = %v, %v", i, st, err)
		}
	}
	if st, _ := e.Queue(units[depth]); st != Busy {
		t.Fatalf("Queue beyond depth = %v, want busy", st)
	}
	got := 0
	for got < depth {
		n, err := e.GetEvents(1, 3, 0)
		if err != nil || n < 1 || n > 3 {
			t.Fatalf("GetEvents(1, 3) = %d, %v", n, err)
		}
		for i := range n {
			if u := e.Event(i); u.Res != 4096 {
				t.Errorf("write at %d: Res %d", u.Offset, u.Res)
			}
		}
		got += n
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("the %d writes took %v: they did not run at once", depth, d)
	}
	posixAIOStarted = nil

	// Nothing in flight: a timeout returns at once with nothing.
	if n, err := e.GetEvents(1, 0, time.Millisecond); n != 0 || err != nil {
		t.Errorf("GetEvents with nothing in flight = %d, %v", n, err)
	}
	// Read back.
	r := &Unit{Op: OpRead, Offset: 3 * 4096, Buf: bufs.Buf(depth), BufIndex: -1}
	if st, err := e.Queue(r); st != Queued || err != nil {
		t.Fatalf("Queue read = %v, %v", st, err)
	}
	if n, err := e.GetEvents(1, 1, time.Second); n != 1 || err != nil || e.Event(0) != r {
		t.Fatalf("GetEvents = %d, %v", n, err)
	}
	want := make([]byte, 4096)
	fill(want, 3*4096, 5)
	if string(r.Buf) != string(want) {
		t.Error("read back other data than written")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Queue(r); err != ErrClosed {
		t.Errorf("Queue after Close: %v, want ErrClosed", err)
	}
}
