package engines

import (
	"bytes"
	"testing"
)

// variant is an engine with a configuration worth testing on its own.
type variant struct {
	name   string
	engine string
	cfg    func(*Config)
}

var variants = []variant{
	{name: "null", engine: "null"},
	{name: "sync", engine: "sync"},
	{name: "psync", engine: "psync"},
	{name: "pvsync2", engine: "pvsync2"},
	{name: "pvsync2-hipri", engine: "pvsync2", cfg: func(c *Config) { c.HiPri = true }},
	{name: "libaio", engine: "libaio"},
	{name: "io_uring", engine: "io_uring"},
	{name: "io_uring-fixedbufs-regfiles", engine: "io_uring", cfg: func(c *Config) { c.FixedBufs, c.RegisterFiles = true, true }},
	{name: "io_uring-sqpoll", engine: "io_uring", cfg: func(c *Config) { c.SQPoll, c.SQPollIdle = true, 20e6 }},
	{name: "mmap", engine: "mmap"},
	{name: "posixaio", engine: "posixaio"},
}

// testTarget is where the round trip runs: a path and how to open it.
type testTarget struct {
	name   string
	direct bool
	make   func(t *testing.T) string // returns the path
}

const targetSize = 8 << 20

var targets = []testTarget{
	{name: "file", make: func(t *testing.T) string { return tempFile(t, targetSize) }},
	{name: "file-direct", direct: true, make: func(t *testing.T) string { return tempFile(t, targetSize) }},
	{name: "loop-direct", direct: true, make: func(t *testing.T) string {
		return attachLoop(t, targetSize, LoopOptions{DirectIO: true, BlockSize: 4096}).Path()
	}},
}

// TestRoundTrip writes a pattern at several aligned offsets with each engine
// (depth 8 where the engine is asynchronous), syncs, reads it back through the
// engine, and checks the bytes, then reads them again with plain pread to prove
// they reached the target.
func TestRoundTrip(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			path := tg.make(t)
			for i, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					roundTrip(t, path, tg.direct, v, i)
				})
			}
		})
	}
}

func roundTrip(t *testing.T, path string, direct bool, v variant, seed int) {
	const n = 12
	f := openT(t, path, direct)
	bufs := allocBuffers(t, 2*n, 8192)
	cfg := Config{File: f, Direct: direct, Depth: 8, Buffers: bufs.All()}
	if v.cfg != nil {
		v.cfg(&cfg)
	}
	e := newEngine(t, v.engine, cfg)
	noIO := e.Flags()&FlagNoIO != 0

	writes := make([]*Unit, n)
	reads := make([]*Unit, n)
	for i := range n {
		size := 4096 * (1 + i%2)
		off := int64(i)*64<<10 + int64(i%3)*4096
		writes[i] = &Unit{Op: OpWrite, Offset: off, Buf: bufs.Buf(i)[:size], BufIndex: i, Res: -999}
		fill(writes[i].Buf, off, seed)
		reads[i] = &Unit{Op: OpRead, Offset: off, Buf: bufs.Buf(n + i)[:size], BufIndex: n + i, Res: -999}
		for j := range reads[i].Buf {
			reads[i].Buf[j] = 0xAA
		}
	}
	steps := []struct {
		name  string
		units []*Unit
	}{
		{"write", writes},
		{"fsync", []*Unit{{Op: OpFsync, BufIndex: -1, Res: -999}}},
		{"read", reads},
	}
	for _, s := range steps {
		inFlight, err := drive(e, s.units)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if e.Flags()&FlagHasCommit != 0 && len(s.units) > 8 && inFlight != 8 {
			t.Errorf("%s: at most %d units in flight, want depth 8", s.name, inFlight)
		}
		for i, u := range s.units {
			want := int64(len(u.Buf))
			if u.Op == OpFsync {
				want = 0
			}
			if u.Res != want {
				t.Fatalf("%s unit %d (offset %d): Res = %d, want %d; %v", s.name, i, u.Offset, u.Res, want, e.Explain(u))
			}
			if err := e.Explain(u); err != nil {
				t.Errorf("Explain of a successful unit = %v, want nil", err)
			}
		}
	}
	for i := range n {
		got, want := reads[i].Buf, writes[i].Buf
		if noIO {
			want = bytes.Repeat([]byte{0xAA}, len(got)) // nothing moved
		}
		if k := firstDiff(got, want); k >= 0 {
			t.Fatalf("read unit %d (offset %d): byte %d = %#x, want %#x", i, reads[i].Offset, k, got[k], want[k])
		}
	}
	if noIO {
		return
	}
	// Independent check through the file descriptor.
	check := bufs.Buf(0)
	for i, w := range writes {
		b := check[:len(w.Buf)]
		if _, err := f.ReadAt(b, w.Offset); err != nil {
			t.Fatalf("pread check of unit %d: %v", i, err)
		}
		fill(reads[0].Buf[:len(b)], w.Offset, seed) // the expected pattern
		if k := firstDiff(b, reads[0].Buf[:len(b)]); k >= 0 {
			t.Fatalf("pread check of unit %d (offset %d): byte %d differs", i, w.Offset, k)
		}
	}
}

func firstDiff(a, b []byte) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
