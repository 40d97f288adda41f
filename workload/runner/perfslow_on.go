//go:build stortest_perfslow

package runner

import (
	"math"
	"time"
)

// perfSlowNs: a build with the stortest_perfslow tag, and only such a
// build, spins this long at every completion (see perfslow_off.go).
const perfSlowNs = 20

// perfSlowIters are the iterations of spin that take perfSlowNs, at
// the CPU's best speed (the fastest of several timings, as the perf
// gate takes each tool's cost when the host lets it): a clock read
// costs about as much as the whole wait, so the wait counts instead.
var perfSlowIters = calibrate()

var perfSlowSink uint64

// perfSlowCalls counts the waits, for the test that every completion
// spins whichever loop the job runs (one worker at a time: a plain
// count, whose cost the calibration leaves out, as it is well under a
// nanosecond).
var perfSlowCalls uint64

func spin(n int) {
	s := perfSlowSink
	for i := range n {
		s += uint64(i)
	}
	perfSlowSink = s
}

func calibrate() int {
	const n = 1 << 20
	best := math.Inf(1)
	for range 20 {
		t0 := time.Now()
		spin(n)
		best = math.Min(best, float64(time.Since(t0).Nanoseconds())/n)
	}
	return max(1, int(math.Round(perfSlowNs/best)))
}

// perfSlow spins for perfSlowNs.
func perfSlow() {
	spin(perfSlowIters)
	perfSlowCalls++
}
