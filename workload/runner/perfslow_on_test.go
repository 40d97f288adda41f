//go:build stortest_perfslow

package runner

import (
	"math"
	"testing"
	"time"
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
