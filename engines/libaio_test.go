package engines

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestLibaioDepth32 keeps 32 direct I/Os in flight on a file and on a loop
// device and checks the data.
func TestLibaioDepth32(t *testing.T) {
	const depth, n = 32, 64
	for _, tg := range []testTarget{targets[1], targets[2]} {
		t.Run(tg.name, func(t *testing.T) {
			f := openT(t, tg.make(t), true)
			bufs := allocBuffers(t, 2*n, 4096)
			e := newEngine(t, "libaio", Config{File: f, Direct: true, Depth: depth})
			writes, reads := make([]*Unit, n), make([]*Unit, n)
			for i := range n {
				off := int64(n-1-i) * 8192 // descending, with holes
				writes[i] = &Unit{Op: OpWrite, Offset: off, Buf: bufs.Buf(i), BufIndex: -1}
				fill(writes[i].Buf, off, 77)
				reads[i] = &Unit{Op: OpRead, Offset: off, Buf: bufs.Buf(n + i), BufIndex: -1}
			}
			// The first 32 are all submitted by one Commit.
			for i := range depth {
				if st, err := e.Queue(writes[i]); st != Queued || err != nil {
					t.Fatalf("Queue %d = %v, %v", i, st, err)
				}
			}
			if st, _ := e.Queue(writes[depth]); st != Busy {
				t.Fatalf("Queue beyond depth = %v, want busy", st)
			}
			if err := e.Commit(); err != nil {
				t.Fatal(err)
			}
			if a := e.(*libaio); a.inflight != depth || len(a.pending) != 0 {
				t.Fatalf("after Commit: %d in flight, %d pending; want %d, 0", a.inflight, len(a.pending), depth)
			}
			for got := 0; got < depth; {
				k, err := e.GetEvents(1, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				got += k
			}
			for _, step := range [][]*Unit{writes[depth:], reads} {
				maxIn, err := drive(e, step)
				if err != nil {
					t.Fatal(err)
				}
				if maxIn != depth {
					t.Errorf("at most %d in flight, want %d", maxIn, depth)
				}
			}
			for i := range n {
				if writes[i].Res != 4096 || reads[i].Res != 4096 {
					t.Fatalf("unit %d: write Res %d, read Res %d", i, writes[i].Res, reads[i].Res)
				}
				if k := firstDiff(reads[i].Buf, writes[i].Buf); k >= 0 {
					t.Fatalf("unit %d offset %d: byte %d differs", i, reads[i].Offset, k)
				}
			}
		})
	}
}

// TestLibaioPartialSubmit makes io_submit reject the third of four iocbs:
// the two before it are submitted, it completes with the errno, and the one
// after it is offered again and completes.
func TestLibaioPartialSubmit(t *testing.T) {
	e, units := queuedBatch(t, "libaio")
	e.(*libaio).pending[2].Opcode = 99 // not a command
	if err := e.Commit(); err != nil {
		t.Fatal(err)
	}
	seen := map[*Unit]bool{}
	for len(seen) < 4 {
		n, err := e.GetEvents(1, 0, 0)
		if err != nil || n == 0 {
			t.Fatalf("GetEvents = %d, %v", n, err)
		}
		for i := range n {
			seen[e.Event(i)] = true
		}
	}
	for i, u := range units {
		want := int64(4096)
		if i == 2 {
			want = -int64(unix.EINVAL)
		}
		if u.Res != want || !seen[u] {
			t.Errorf("unit %d: Res = %d (reaped %v), want %d", i, u.Res, seen[u], want)
		}
	}
}
