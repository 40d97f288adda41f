package clock

import (
	"strings"
	"testing"
)

func TestInvariantTSC(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxExt     uint32
		edx        uint32
		want       bool
		wantReason string
		wantRead   bool // leaf 0x80000007 may be read only when it exists
	}{
		{name: "no extended leaves", maxExt: 0x80000000, edx: bitInvariantTSC, wantReason: "TSC invariance unknown"},
		{name: "leaf 0x80000007 missing", maxExt: 0x80000006, edx: bitInvariantTSC, wantReason: "max extended leaf 0x80000006"},
		{name: "bit clear", maxExt: 0x80000008, edx: ^uint32(bitInvariantTSC), wantReason: "not invariant", wantRead: true},
		{name: "bit set", maxExt: 0x80000007, edx: bitInvariantTSC, want: true, wantReason: "invariant TSC", wantRead: true},
		{name: "bit set among others", maxExt: 0x80000021, edx: 0x1f9, want: true, wantReason: "EDX bit 8", wantRead: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := false
			got, reason := invariantTSC(tc.maxExt, func() uint32 { read = true; return tc.edx })
			if got != tc.want || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("invariantTSC(%#x, %#x) = %v, %q; want %v, reason containing %q", tc.maxExt, tc.edx, got, reason, tc.want, tc.wantReason)
			}
			if read != tc.wantRead {
				t.Errorf("leaf 0x80000007 read = %v, want %v", read, tc.wantRead)
			}
		})
	}
}

// TestCPUIDVendor checks the CPUID stub against a value every x86 CPU returns:
// leaf 0 gives the vendor string in EBX, EDX, ECX.
func TestCPUIDVendor(t *testing.T) {
	_, b, c, d := cpuid(0, 0)
	vendor := string([]byte{
		byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24),
		byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24),
		byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24),
	})
	known := []string{"GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls", "  Shanghai  ", "KVMKVMKVM\x00\x00\x00"}
	for _, k := range known {
		if vendor == k {
			t.Logf("vendor %q, rdtscp %v, counter %s", vendor, hasRDTSCP, counterName())
			return
		}
	}
	t.Errorf("CPUID leaf 0 vendor %q is not a known x86 vendor", vendor)
}

func TestTSCReadsAgree(t *testing.T) {
	// The three instruction sequences read the same counter: interleaved, they
	// are non-decreasing within one goroutine (a goroutine migrating between
	// CPUs is fine on an invariant, synchronised TSC).
	if ok, why := probeCounter(); !ok {
		t.Skipf("TSC not invariant: %s", why)
	}
	prev := rdtscLfence()
	for i := range 3000 {
		var v uint64
		switch i % 3 {
		case 0:
			v = rdtscp()
		case 1:
			v = rdtscLfence()
		case 2:
			v = readCounter()
		}
		if v < prev {
			t.Fatalf("read %d: %d < previous %d", i, v, prev)
		}
		prev = v
	}
}

// BenchmarkLFENCERDTSC and BenchmarkRDTSCP compare the two ordered reads
// readCounter can use (both about 21 ns on the reference VM).
func BenchmarkLFENCERDTSC(b *testing.B) {
	var sink uint64
	for b.Loop() {
		sink += rdtscLfence()
	}
	_ = sink
}

func BenchmarkRDTSCP(b *testing.B) {
	var sink uint64
	for b.Loop() {
		sink += rdtscp()
	}
	_ = sink
}
