package clock

import "fmt"

// CPUID leaves and bits used to judge the TSC (Intel SDM vol. 2A, AMD APM vol. 3).
const (
	leafMaxExtended = 0x80000000 // EAX: highest extended leaf
	leafExtFeatures = 0x80000001 // EDX bit 27: RDTSCP
	leafAdvPower    = 0x80000007 // EDX bit 8: invariant TSC
	bitRDTSCP       = 1 << 27
	bitInvariantTSC = 1 << 8
)

// hasRDTSCP selects the instruction readCounter uses; read by counter_amd64.s.
// A variable initialiser, not init(), so that package-level variables that
// depend on it (host) are initialised after it.
var hasRDTSCP = detectRDTSCP()

func detectRDTSCP() bool {
	maxExt, _, _, _ := cpuid(leafMaxExtended, 0)
	if maxExt < leafExtFeatures {
		return false
	}
	_, _, _, edx := cpuid(leafExtFeatures, 0)
	return edx&bitRDTSCP != 0
}

// Implemented in counter_amd64.s.

func readCounter() uint64
func readCounterRaw() uint64
func rdtscLfence() uint64
func rdtscp() uint64
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// counterName names the instruction sequence readCounter executes.
func counterName() string {
	if hasRDTSCP {
		return "rdtscp"
	}
	return "lfence;rdtsc"
}

// probeCounter reports whether the TSC ticks at a constant rate in every
// P-, C- and T-state (invariant TSC), and why.
func probeCounter() (invariant bool, reason string) {
	maxExt, _, _, _ := cpuid(leafMaxExtended, 0)
	return invariantTSC(maxExt, func() uint32 {
		_, _, _, edx := cpuid(leafAdvPower, 0)
		return edx
	})
}

// invariantTSC decides from the highest extended CPUID leaf and the EDX of leaf
// 0x80000007 (read only when that leaf exists) whether the TSC is invariant.
func invariantTSC(maxExt uint32, advPowerEDX func() uint32) (bool, string) {
	if maxExt < leafAdvPower {
		return false, fmt.Sprintf("CPUID max extended leaf %#x < %#x: TSC invariance unknown", maxExt, leafAdvPower)
	}
	if advPowerEDX()&bitInvariantTSC == 0 {
		return false, fmt.Sprintf("CPUID %#x EDX bit 8 clear: TSC not invariant", leafAdvPower)
	}
	return true, fmt.Sprintf("CPUID %#x EDX bit 8: invariant TSC", leafAdvPower)
}
