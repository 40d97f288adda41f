package engines

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRandRead4K reads 4 KiB at random aligned offsets of a page-cached
// 32 MiB temp file: the cost of the engine and the syscalls, not of a device.
// One op is one I/O. Async engines run at depth 1 and 32.
func BenchmarkRandRead4K(b *testing.B) {
	const fileSize = 32 << 20
	path := tempFile(b, fileSize)
	offsets := make([]int64, 8192)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range offsets {
		offsets[i] = rng.Int64N(fileSize/4096) * 4096
	}
	cases := []struct {
		v     variant
		depth int
	}{
		{variants[0], 1}, {variants[0], 32}, // null
		{variants[1], 1},                    // sync
		{variants[2], 1},                    // psync
		{variants[3], 1},                    // pvsync2
		{variants[5], 1}, {variants[5], 32}, // libaio
		{variants[6], 1}, {variants[6], 32}, // io_uring
		{variants[7], 1}, {variants[7], 32}, // io_uring, fixed buffers and file
		{variants[9], 1}, // mmap
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/depth=%d", c.v.name, c.depth), func(b *testing.B) {
			f := openT(b, path, false)
			bufs := allocBuffers(b, c.depth, 4096)
			cfg := Config{File: f, Depth: c.depth, Buffers: bufs.All()}
			if c.v.cfg != nil {
				c.v.cfg(&cfg)
			}
			e := newEngine(b, c.v.engine, cfg)
			units := make([]Unit, c.depth)
			for i := range units {
				units[i] = Unit{Op: OpRead, Buf: bufs.Buf(i), BufIndex: i}
			}
			b.ReportAllocs()
			b.ResetTimer()
			benchLoop(b, e, units, offsets)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "iops")
		})
	}
}

// benchLoop issues b.N reads, keeping len(units) in flight for async engines
// the way the runner does: refill each reaped slot, commit, reap.
func benchLoop(b *testing.B, e Engine, units []Unit, offsets []int64) {
	mask := len(offsets) - 1
	if e.Flags()&FlagSync != 0 {
		u := &units[0]
		for i := range b.N {
			u.Offset = offsets[i&mask]
			if _, err := e.Queue(u); err != nil || u.Res != 4096 {
				b.Fatalf("Queue: Res %d, %v", u.Res, err)
			}
		}
		return
	}
	issued, done := 0, 0
	for i := range units {
		if issued == b.N {
			break
		}
		units[i].Offset = offsets[issued&mask]
		if _, err := e.Queue(&units[i]); err != nil {
			b.Fatal(err)
		}
		issued++
	}
	if err := e.Commit(); err != nil {
		b.Fatal(err)
	}
	for done < b.N {
		n, err := e.GetEvents(1, 0, 0)
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			u := e.Event(i)
			if u.Res != 4096 {
				b.Fatalf("Res %d", u.Res)
			}
			done++
			if issued < b.N {
				u.Offset = offsets[issued&mask]
				if st, err := e.Queue(u); err != nil || st == Busy {
					b.Fatalf("Queue = %v, %v", st, err)
				}
				issued++
			}
		}
		if err := e.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
