package engines

import (
	"bytes"
	"testing"
)

// TestTrim discards a written range with every engine that does I/O and reads
// zeros back: a punched hole in a file, BLKDISCARD on a loop device (which
// punches the hole in its backing file).
func TestTrim(t *testing.T) {
	for _, tg := range []testTarget{targets[0], targets[2]} {
		t.Run(tg.name, func(t *testing.T) {
			path := tg.make(t)
			for i, name := range Names() {
				if !movesFileData(name) {
					continue
				}
				t.Run(name, func(t *testing.T) {
					f := openT(t, path, tg.direct)
					bufs := allocBuffers(t, 2, 16384)
					e := newEngine(t, name, Config{File: f, Direct: tg.direct, Depth: 2})
					off := int64(i) * 64 << 10
					w := &Unit{Op: OpWrite, Offset: off, Buf: bufs.Buf(0), BufIndex: -1}
					fill(w.Buf, off, i)
					sync := &Unit{Op: OpFsync, BufIndex: -1}
					trim := &Unit{Op: OpTrim, Offset: off + 4096, Buf: bufs.Buf(1)[:8192], BufIndex: -1}
					r := &Unit{Op: OpRead, Offset: off, Buf: bufs.Buf(1), BufIndex: -1}
					for _, u := range []*Unit{w, sync, trim, sync, r} {
						u.Res = -999
						if _, err := drive(e, []*Unit{u}); err != nil {
							t.Fatal(err)
						}
						if u.Res < 0 {
							t.Fatalf("%v: %v", u.Op, e.Explain(u))
						}
					}
					if trim.Res != 8192 {
						t.Errorf("trim Res = %d, want 8192", trim.Res)
					}
					want := bytes.Clone(w.Buf)
					clear(want[4096 : 4096+8192])
					if k := firstDiff(r.Buf, want); k >= 0 {
						t.Errorf("after trim, byte %d = %#x, want %#x", k, r.Buf[k], want[k])
					}
				})
			}
		})
	}
}

// TestTrimBusy: an async engine runs a trim only with nothing in flight, so it
// cannot overtake queued writes.
func TestTrimBusy(t *testing.T) {
	f := openT(t, tempFile(t, 1<<20), false)
	bufs := allocBuffers(t, 1, 4096)
	for _, name := range []string{"libaio", "io_uring"} {
		t.Run(name, func(t *testing.T) {
			e := newEngine(t, name, Config{File: f, Depth: 2})
			w := &Unit{Op: OpWrite, Buf: bufs.Buf(0), BufIndex: -1}
			trim := &Unit{Op: OpTrim, Offset: 0, Buf: bufs.Buf(0), BufIndex: -1}
			if st, err := e.Queue(w); st != Queued || err != nil {
				t.Fatalf("Queue(write) = %v, %v", st, err)
			}
			if st, err := e.Queue(trim); st != Busy || err != nil {
				t.Fatalf("Queue(trim) with a write queued = %v, %v; want busy", st, err)
			}
			if err := e.Commit(); err != nil {
				t.Fatal(err)
			}
			if st, _ := e.Queue(trim); st != Busy {
				t.Fatalf("Queue(trim) with a write in flight = %v; want busy", st)
			}
			if n, err := e.GetEvents(1, 0, 0); n != 1 || err != nil {
				t.Fatalf("GetEvents = %d, %v", n, err)
			}
			if st, err := e.Queue(trim); st != Completed || err != nil || trim.Res != 4096 {
				t.Fatalf("Queue(trim) when idle = %v, %v, Res %d; want completed, 4096", st, err, trim.Res)
			}
		})
	}
}
