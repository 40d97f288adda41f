package runner

import (
	"context"
	"testing"

	"stortest.dev/workload"
)

// BenchmarkRunNull measures the runner's own cost per I/O: one b.N is one
// I/O of the null engine, so ns/op and allocs/op are per I/O (the run's
// setup is amortised over b.N).
func BenchmarkRunNull(b *testing.B) {
	for _, depth := range []int{1, 32} {
		b.Run(map[int]string{1: "depth1", 32: "depth32"}[depth], func(b *testing.B) {
			job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRead, BlockSize: 4096,
				Size: int64(max(b.N, 64)) * 4096, IODepth: depth, NoRandomMap: true}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Run(context.Background(), job, workload.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if got := res.Jobs[0].Dirs[workload.DirRead].IOs; got < uint64(b.N) {
				b.Fatalf("%d I/Os for b.N=%d", got, b.N)
			}
		})
	}
}
