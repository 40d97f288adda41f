//go:build stortest_perfslow

package runner

// perfSlowNs: a build with the stortest_perfslow tag, and only such a
// build, spins this long at every completion (see perfslow_off.go).
const perfSlowNs = 20
