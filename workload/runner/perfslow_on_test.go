//go:build stortest_perfslow

package runner

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// A stortest_perfslow build spins 20 ns at each call, at best: between
// 15 and 30 ns per call at the fastest of several timings.
func TestPerfSlowSpins20ns(t *testing.T) {
	const n = 100000
	best := math.Inf(1)
	for range 20 {
		t0 := time.Now()
		for range n {
			perfSlow()
		}
		best = math.Min(best, float64(time.Since(t0).Nanoseconds())/n)
	}
	if best < 15 || best > 30 {
		t.Errorf("perfSlow takes %.1f ns per call at best, want 20 (%d iterations)", best, perfSlowIters)
	}
	t.Logf("%.1f ns per call at best, %d iterations", best, perfSlowIters)
}

// Every completion spins, in the lean loop as in the full one: a
// stortest_perfslow build whose loop skipped the wait would not be
// slower, and the perf gate would pass it for want of a slowdown.
func TestPerfSlowAtEveryCompletion(t *testing.T) {
	job := workload.Job{Name: "slow", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 4 << 20}
	full := job
	full.MaxLatency = [workload.NumDirs]time.Duration{time.Hour, time.Hour, time.Hour}
	for name, j := range map[string]workload.Job{"lean": job, "full": full} {
		require.Equal(t, name == "lean", loopShape(t, j, workload.Options{}), name)
		before := perfSlowCalls
		res := runJob(t, j, workload.Options{})
		require.NoError(t, res.Err)
		assert.Equal(t, uint64(1024), res.Dirs[workload.DirRead].IOs, name)
		assert.Equal(t, res.Dirs[workload.DirRead].IOs, perfSlowCalls-before, "%s loop: waits per completion", name)
	}
}
