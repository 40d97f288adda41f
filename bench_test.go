package stortest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/workload"
)

func TestBenchMetrics(t *testing.T) {
	a, b := syntheticResult(), syntheticResult()
	// The second run was twice as fast, with reads all at 50 µs.
	jb := b.Jobs[0]
	jb.Runtime = time.Second
	jb.Dirs[workload.DirRead].Clat.Reset()
	for range 2000 {
		jb.Dirs[workload.DirRead].Clat.Add(50_000)
	}
	// a's job thread used 1 s of user and 0.25 s of system CPU in its 2 s,
	// b's 0.5 s and 0.5 s in 1 s.
	a.Jobs[0].UsrCPU, a.Jobs[0].SysCPU = time.Second, 250*time.Millisecond
	jb.UsrCPU, jb.SysCPU = 500*time.Millisecond, 500*time.Millisecond
	got := benchMetrics([]*Result{a, b})
	// a: 1000 reads/s + 250 writes/s; b: 2000 + 500. Mean 1875 IOPS,
	// 1875*4096 B/s. Merged clat: 2500 I/Os at 50 µs, 1000 at 100 µs,
	// 1000 at 300 µs: p99 in the 300 µs bucket.
	want := []benchMetric{
		{"iops", 1875}, {"MB/s", 1875 * 4096 / 1e6}, {"p99-ns", 301056},
		// 2.25 s of CPU over 5000 I/Os; usr 50% and 50%, sys 12.5% and 50%.
		{"cpu-ns/io", 450_000}, {"usr-%", 50}, {"sys-%", 31.25},
		{"read-iops", 1500}, {"read-MB/s", 1500 * 4096 / 1e6}, {"read-p99-ns", 301056},
		{"write-iops", 375}, {"write-MB/s", 375 * 4096 / 1e6}, {"write-p99-ns", 49920},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(benchMetric{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A job that only reads reports no per-direction figures.
	a.Job.RW = workload.RandRead
	if got := benchMetrics([]*Result{a}); len(got) != 6 {
		t.Errorf("read-only job: %v", got)
	}
	if benchMetrics(nil) != nil {
		t.Errorf("no runs, some metrics")
	}
}

// BenchmarkRandReadFile shows Bench on a temporary file; on a loop
// device or a named device it is the same call.
func BenchmarkRandReadFile(b *testing.B) {
	dev := File(b, 16<<20)
	Bench(b, dev, workload.Job{Name: "randread-4k", RW: workload.RandRead, BlockSize: 4096,
		Runtime: time.Second, TimeBased: true}, ProgressEvery(0))
}
