package engines

import (
	"testing"
)

// TestNoAllocs proves that a queue/commit/reap cycle allocates nothing, for
// every engine variant, on a cached file and with O_DIRECT, including a unit
// that fails (misaligned under O_DIRECT): failed I/Os are data and cost no
// allocation either.
func TestNoAllocs(t *testing.T) {
	for _, tg := range targets[:2] {
		t.Run(tg.name, func(t *testing.T) {
			path := tg.make(t)
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					const depth = 4
					f := openT(t, path, tg.direct)
					bufs := allocBuffers(t, depth, 4096)
					cfg := Config{File: f, Direct: tg.direct, Depth: depth, Buffers: bufs.All()}
					if v.cfg != nil {
						v.cfg(&cfg)
					}
					e := newEngine(t, v.engine, cfg)
					units := make([]*Unit, depth)
					for i := range units {
						units[i] = &Unit{Op: OpRead, Offset: int64(i) * 8192, Buf: bufs.Buf(i), BufIndex: i}
					}
					units[1].Op = OpWrite
					units[3].Offset = 100 // misaligned: fails under O_DIRECT
					cycle := func() {
						pending := 0
						for _, u := range units {
							st, err := e.Queue(u)
							if err != nil || st == Busy {
								t.Fatalf("Queue = %v, %v", st, err)
							}
							if st == Queued {
								pending++
							}
						}
						if err := e.Commit(); err != nil {
							t.Fatal(err)
						}
						for pending > 0 {
							n, err := e.GetEvents(1, 0, 0)
							if err != nil {
								t.Fatal(err)
							}
							for i := range n {
								_ = e.Event(i).Res
							}
							pending -= n
						}
					}
					cycle()
					if tg.direct && e.Flags()&(FlagNoIO|FlagNoAlign) == 0 && units[3].Res >= 0 {
						t.Errorf("misaligned direct read: Res = %d, want < 0", units[3].Res)
					}
					if a := testing.AllocsPerRun(50, cycle); a != 0 {
						t.Errorf("%v allocations per queue/commit/reap cycle, want 0", a)
					}
				})
			}
		})
	}
}
