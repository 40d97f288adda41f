package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// memoryBudget is what one job may hold after an hour with 1 s samples.
const memoryBudget = 64 << 20

// heapAfterGC returns the live heap in bytes.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// simulateHour drives a job clone's per-second sampling through 3600
// simulated seconds (the runner's tick, with simulated completions: an
// hour of wall time is not needed to measure what an hour keeps), adding
// perSecond completion latencies a second drawn by draw, in each of dirs.
// It returns the live heap the worker's result grew by.
func simulateHour(t *testing.T, dirs []workload.Dir, perSecond int, draw func(r *rand.Rand) uint64) (bytesPerSecond, nonEmpty, encoded float64) {
	t.Helper()
	layout := latency.MustLayout(latency.LongGroups)
	job := workload.Job{Name: "mem", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 30, Runtime: time.Hour, TimeBased: true}
	w, err := newWorker(job.Normalized(), 0, 1, layout, workload.Options{})
	require.NoError(t, err)
	defer w.close()
	w.nextTick = int64(time.Second)
	r := rand.New(rand.NewPCG(1, 2))
	before := heapAfterGC()
	var bins, size int
	const seconds = 3600
	for s := 1; s <= seconds; s++ {
		for _, d := range dirs {
			st := &w.res.Dirs[d]
			for range perSecond {
				st.Clat.Add(draw(r))
			}
			st.IOs += uint64(perSecond)
			st.Bytes += uint64(perSecond) * 4096
		}
		w.tick(int64(s) * int64(time.Second))
		for _, d := range dirs {
			c := w.res.Seconds[len(w.res.Seconds)-1].Clat[d]
			bins += c.Len()
			size += c.Size()
		}
	}
	after := heapAfterGC()
	require.Len(t, w.res.Seconds, seconds)
	runtime.KeepAlive(w)
	return float64(after-before) / seconds, float64(bins) / seconds / float64(len(dirs)), float64(size) / seconds
}

// logNormal draws latencies around median ns with spread sigma (natural
// log units).
func logNormal(median, sigma float64) func(r *rand.Rand) uint64 {
	return func(r *rand.Rand) uint64 { return uint64(median * math.Exp(sigma*r.NormFloat64())) }
}

// everyBucket returns the representative values of the buckets that
// cover [lo, hi), and a draw that cycles through them: each second of
// len(values) draws fills every one of those buckets.
func everyBucket(lo, hi uint64) ([]uint64, func(r *rand.Rand) uint64) {
	l := latency.MustLayout(latency.LongGroups)
	var values []uint64
	for i := l.Index(lo); i < l.Index(hi); i++ {
		values = append(values, l.Value(i))
	}
	next := 0
	return values, func(*rand.Rand) uint64 {
		v := values[next%len(values)]
		next++
		return v
	}
}

// What an hour of 1 s samples costs a job: the per-second clat
// histograms (latency.Sparse: 2-3 bytes per non-empty bucket of each
// second and direction) and the Seconds themselves. Measured for a
// typical SSD read latency, for a mixed job with a wide spread in both
// directions, and for the worst case of a second: every bucket of
// 10 us .. 10 s non-empty in two directions. All fit the budget.
func TestMemoryLongRun(t *testing.T) {
	worst, worstDraw := everyBucket(10e3, 10e9)
	for _, tc := range []struct {
		name      string
		dirs      []workload.Dir
		perSecond int
		draw      func(*rand.Rand) uint64
	}{
		{"ssd-randread", []workload.Dir{workload.DirRead}, 3000, logNormal(90e3, 0.5)},
		{"randrw-wide", []workload.Dir{workload.DirRead, workload.DirWrite}, 3000, logNormal(200e3, 1.5)},
		{"worst-every-bucket", []workload.Dir{workload.DirRead, workload.DirWrite}, len(worst), worstDraw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perSec, bins, encoded := simulateHour(t, tc.dirs, tc.perSecond, tc.draw)
			hour := perSec * 3600
			t.Logf("%s: %.0f non-empty buckets a second per direction in %.1f bytes; %.0f bytes per second of run; %.1f MiB per hour",
				tc.name, bins, encoded/float64(len(tc.dirs)), perSec, hour/(1<<20))
			assert.LessOrEqual(t, encoded, 3*bins*float64(len(tc.dirs)), "at most 3 bytes a bucket")
			// The encoded buckets and the Second itself, plus at most 10%
			// of arena chunk tails and GC noise.
			floor := encoded + float64(unsafe.Sizeof(workload.Second{}))
			assert.Less(t, perSec, 1.1*floor+64, "bytes per second against the encoded size")
			assert.Less(t, hour, float64(memoryBudget), "an hour's samples within %d MiB", memoryBudget>>20)
		})
	}
}

// numjobs=64 runs on 2 cores: every clone does I/O, each on its own
// thread; the figures are logged: heap and resident memory for the run.
func TestNumJobs64(t *testing.T) {
	testenv.SkipShort(t, "runs 64 threads for 2 s")
	job := workload.Job{Name: "many", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 64 << 20,
		Runtime: 2 * time.Second, TimeBased: true, NumJobs: 64, IODepth: 4}
	heap0, rss0 := heapAfterGC(), rssBytes(t)
	var peakRSS uint64
	res, err := Run(context.Background(), job, workload.Options{OnSecond: func(j *workload.JobResult, _ *workload.Second, _ *[workload.NumDirs]*latency.Histogram) bool {
		if j.Clone == 0 {
			peakRSS = max(peakRSS, rssBytes(t))
		}
		return false
	}})
	require.NoError(t, err)
	require.Len(t, res.Jobs, 64)
	heap1 := heapAfterGC()
	for _, j := range res.Jobs {
		require.NoError(t, j.Err)
		assert.Positive(t, j.Dirs[workload.DirRead].IOs, "clone %d did I/O", j.Clone)
		assert.InDelta(t, 2, j.Runtime.Seconds(), 0.5, "clone %d ran its runtime", j.Clone)
	}
	t.Logf("numjobs=64 on %d CPUs: results hold %.1f MiB of heap (%.0f KiB per clone); RSS %.1f MiB before, %.1f MiB peak during the run",
		runtime.NumCPU(), float64(heap1-heap0)/(1<<20), float64(heap1-heap0)/64/1024, float64(rss0)/(1<<20), float64(peakRSS)/(1<<20))
	assert.Less(t, heap1-heap0, uint64(64*memoryBudget/16), "64 clones' 2 s results")
	runtime.KeepAlive(res)
}

// rssBytes reads the process's resident set from /proc/self/status.
func rssBytes(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
