//go:build !stortest_perfslow

package runner

// perfSlowNs is the busy wait the stortest_perfslow build tag adds to
// every completion (perfslow_on.go), to show that stortest's perf gate
// (internal/perfgate) catches a slowdown of 20 ns per I/O. 0 in every
// other build: the compiler drops the call in complete.
const perfSlowNs = 0

func perfSlow() {}
