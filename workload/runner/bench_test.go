package runner

import (
	"context"
	"testing"

	"stortest.dev/workload"
)

// BenchmarkRunNull measures the runner's own cost per I/O: one b.N is one
// I/O of the null engine, so ns/op and allocs/op are per I/O (the run's
// setup is amortised over b.N). cpu-ns/IO is the job thread's CPU time
// (user and system, from its rusage) per I/O: on a loaded machine ns/op
// counts the time the thread waited for a CPU too, cpu-ns/IO does not.
// The shapes: depth 1 (the null engine completes inside Queue, as a
// synchronous engine does) and 32 (it stages, commits and reaps, as an
// asynchronous one), without the random map and with it (fio's default,
// and the command line's).
func BenchmarkRunNull(b *testing.B) {
	for _, c := range []struct {
		name    string
		depth   int
		randMap bool
	}{{"depth1", 1, false}, {"depth32", 32, false}, {"randmap-depth1", 1, true}, {"randmap-depth32", 32, true}} {
		b.Run(c.name, func(b *testing.B) {
			job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRead, BlockSize: 4096,
				Size: int64(max(b.N, 64)) * 4096, IODepth: c.depth, NoRandomMap: !c.randMap}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Run(context.Background(), job, workload.Options{})
			if err != nil {
				b.Fatal(err)
			}
			r := res.Jobs[0]
			ios := r.Dirs[workload.DirRead].IOs
			if ios < uint64(b.N) {
				b.Fatalf("%d I/Os for b.N=%d", ios, b.N)
			}
			b.ReportMetric(float64(r.UsrCPU+r.SysCPU)/float64(ios), "cpu-ns/IO")
		})
	}
}
