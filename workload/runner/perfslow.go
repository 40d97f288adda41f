package runner

import "stortest.dev/clock"

// perfSlow spins for perfSlowNs: the deliberate slowdown of a
// stortest_perfslow build, never called in others (perfslow_off.go).
func perfSlow() {
	for t0 := clock.Now(); clock.Now()-t0 < perfSlowNs; {
	}
}
