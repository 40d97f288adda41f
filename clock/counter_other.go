//go:build !amd64 && !arm64

package clock

import "runtime"

// No cycle counter is read on this architecture: the runtime clock is used.

func readCounter() uint64    { return 0 }
func readCounterRaw() uint64 { return 0 }

func counterName() string { return "" }

func probeCounter() (invariant bool, reason string) {
	return false, "no cycle counter support on GOARCH=" + runtime.GOARCH
}
