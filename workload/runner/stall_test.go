package runner

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// stallJob reads 256 blocks of a file once, one of them stalled by stall.
func stallJob(t *testing.T, engine string, stall time.Duration, virtual bool, groups int) *workload.JobResult {
	t.Helper()
	target := fileTarget(t, 1<<20)
	job := workload.Job{Name: "stall", Filename: target.Path, Engine: engine, RW: workload.RandRead, BlockSize: 4096, Size: 1 << 20}
	if engine == "io_uring" {
		job.IODepth = 8
	}
	return runJob(t, job, workload.Options{HistGroups: groups, Faults: &engines.Faults{
		StallAt: []engines.Range{{Off: 100 * 4096, Len: 4096}}, Stall: stall, Virtual: virtual}})
}

func summary(t *testing.T, r *workload.JobResult) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&b, &workload.Result{Jobs: []*workload.JobResult{r}}))
	return b.String()
}

// A stall past fio's 17.18 s ceiling keeps its value in the default
// (36-group) histograms: max, p100 and the per-second bins say 20 s, not
// the last bucket's 17.1 s. With fio's 29 groups the value is clipped, and
// the summary says how many values were.
func TestStallPastFioCeiling(t *testing.T) {
	const stall = 20 * time.Second
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			r := stallJob(t, engine, stall, true, 0)
			require.NoError(t, r.Err)
			clat := r.Dirs[workload.DirRead].Clat
			assert.GreaterOrEqual(t, clat.Max(), uint64(stall))
			assert.Less(t, clat.Max(), uint64(stall+time.Second))
			assert.Zero(t, clat.Clipped())
			p100 := clat.Percentile(100)
			assert.InEpsilon(t, float64(stall), float64(p100), 1.0/64, "p100 %d", p100)
			assert.Equal(t, uint64(1), clat.Count()-countBelow(clat, uint64(time.Second)), "one I/O took 20 s")
			// The per-second bins that feed histogram logs hold it too.
			var found uint64
			for _, s := range r.Seconds {
				for v, c := range s.Clat[workload.DirRead].All() {
					if v > latency.FioLayout.Ceiling() {
						found += c
					}
				}
			}
			assert.Equal(t, uint64(1), found, "the stall in the per-second bins")
			sum := summary(t, r)
			assert.Contains(t, sum, "max=20000") // msec
			assert.NotContains(t, sum, "ceiling")
		})
	}
	t.Run("fio-layout", func(t *testing.T) {
		r := stallJob(t, "psync", stall, true, latency.FioGroups)
		clat := r.Dirs[workload.DirRead].Clat
		assert.Equal(t, uint64(1), clat.Clipped())
		assert.GreaterOrEqual(t, clat.Max(), uint64(stall), "max keeps the real value")
		assert.Contains(t, summary(t, r), "1 values at or above the histogram's 17.2 s ceiling")
	})
	t.Run("past 36 groups", func(t *testing.T) {
		r := stallJob(t, "psync", 40*time.Minute, true, 0)
		clat := r.Dirs[workload.DirRead].Clat
		assert.Equal(t, uint64(1), clat.Clipped())
		assert.GreaterOrEqual(t, clat.Max(), uint64(40*time.Minute))
		assert.Contains(t, summary(t, r), "1 values at or above the histogram's")
	})
}

// The same in real time: the job really waits 18 s for one I/O. Skipped
// with -short; it sleeps, it does not spin.
func TestStallPastFioCeilingRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 18 s (skipped with -short)")
	}
	const stall = 18 * time.Second
	start := time.Now()
	r := stallJob(t, "psync", stall, false, 0)
	require.NoError(t, r.Err)
	assert.GreaterOrEqual(t, time.Since(start), stall)
	clat := r.Dirs[workload.DirRead].Clat
	assert.GreaterOrEqual(t, clat.Max(), uint64(stall))
	assert.Less(t, clat.Max(), uint64(stall+time.Second))
	assert.Zero(t, clat.Clipped())
	assert.InEpsilon(t, float64(stall), float64(clat.Percentile(100)), 1.0/64)
	// The seconds around the stall: one sample spans it, none is lost.
	var longest time.Duration
	var ios uint64
	for _, s := range r.Seconds {
		longest = max(longest, s.Dur)
		ios += s.IOs[workload.DirRead]
	}
	assert.GreaterOrEqual(t, longest, stall, "one per-second sample spans the stall")
	assert.Equal(t, r.Dirs[workload.DirRead].IOs, ios)
	assert.Contains(t, summary(t, r), "max=18")
}

// countBelow counts the histogram's values below v.
func countBelow(h *latency.Histogram, v uint64) uint64 {
	l := h.Layout()
	var n uint64
	for i := 0; i < l.Index(v); i++ {
		n += h.Bucket(i)
	}
	return n
}
