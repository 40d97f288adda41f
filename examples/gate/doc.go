// Package gate is the README's regression gate, to copy: one job compared
// with a baseline grown over sessions, run again while the comparison is
// inconclusive and another run could settle it.
//
// Pointed at a device (-stortest.device or STORTEST_DEVICE), it compares
// with the baseline under -stortest.baselines (or testdata/baselines);
// without one it measures a temporary target and compares nothing. The
// README's section "Growing a baseline, and the gate in CI" runs it on a
// loop device over /dev/shm throttled by cgroup v1 blkio: five sessions
// recorded with -stortest.update=append, an unchanged rerun that passes
// under -stortest.strict, and a 15% slower device that fails.
package gate
