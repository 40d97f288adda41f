package clock

import (
	"errors"
	"fmt"
	"math/bits"
)

// chunkMs is the span, in milliseconds, of one conversion chunk: one hour.
// (t & mask) * mult must not overflow 64 bits for any t inside a chunk.
const chunkMs = 3600 * 1000

// MaxCyclesPerMs bounds the counter rates a Converter accepts: 1e8 cycles per
// millisecond is a 100 GHz counter. Past it the truncated multiplier would make
// the relative error (at most cpm/(2^Shift*1e6), see Converter) exceed 24 ppm.
const MaxCyclesPerMs = 100_000_000

// ErrBadRate reports a counter rate a Converter cannot represent.
var ErrBadRate = errors.New("clock: counter rate out of range")

// Converter turns counter ticks into nanoseconds with one multiply and one shift
// per hour-long chunk, without division on the hot path:
//
//	ns = (t >> MaxCyclesShift) * NsForMaxCycles + ((t & mask) * Mult) >> Shift
//
// where mask = 2^MaxCyclesShift - 1, 2^MaxCyclesShift is the largest power of two
// not above one hour of ticks, Mult = floor(2^Shift * 1e6 / cpm) and Shift is the
// largest value for which Mult times one hour of ticks still fits in 64 bits.
//
// NsForMaxCycles is (2^MaxCyclesShift * Mult) >> Shift, the same slope the
// low part uses, not the exact 2^MaxCyclesShift*1e6/cpm: the conversion stays
// one straight line through every chunk boundary, so a latency that straddles a
// boundary is not inflated by the chunk's accumulated truncation error.
//
// Every truncation rounds down, so the result never exceeds the exact value
// floor(t*1e6/cpm), and for t with q = t >> MaxCyclesShift the shortfall is
//
//	0 <= exact - Nanos(t) <= t>>Shift + q + 1
//
// (t*(1e6/cpm - Mult/2^Shift) < t/2^Shift from Mult, at most one per chunk from
// NsForMaxCycles, and one from the final floor). The relative error is therefore
// below cpm/(2^Shift*1e6) + 1/exact: Shift is 22 for every supported rate, which
// keeps it under 1 ppm up to 4194304 cycles per ms (4.19 GHz) and under 1.2 ppm
// at 5 GHz.
//
// The zero Converter is not usable; build one with NewConverter.
type Converter struct {
	cpm            uint64 // counter ticks per millisecond
	mult           uint64
	shift          uint
	maxCyclesShift uint
	mask           uint64 // 2^maxCyclesShift - 1
	nsForMaxCycles uint64 // ns in 2^maxCyclesShift ticks, at slope mult/2^shift
}

// NewConverter returns the Converter for a counter that advances cyclesPerMs
// ticks per millisecond, 1 <= cyclesPerMs <= MaxCyclesPerMs.
func NewConverter(cyclesPerMs uint64) (Converter, error) {
	if cyclesPerMs == 0 || cyclesPerMs > MaxCyclesPerMs {
		return Converter{}, fmt.Errorf("%w: %d cycles per ms (want 1..%d)", ErrBadRate, cyclesPerMs, uint64(MaxCyclesPerMs))
	}
	hour := chunkMs * cyclesPerMs // ticks in one hour; <= 3.6e14, no overflow
	// The largest multiplier m with m*hour <= 2^64-1.
	maxMult := ^uint64(0) / hour
	// 2^shift*1e6/cpm <= maxMult  <=>  2^shift <= maxMult*cpm/1e6.
	// maxMult*cpm <= (2^64-1)/chunkMs, so the product cannot overflow.
	scaled := maxMult * cyclesPerMs / 1e6
	if scaled == 0 {
		// Unreachable for cpm <= MaxCyclesPerMs: scaled is about 2^64/3.6e12.
		return Converter{}, fmt.Errorf("%w: no shift fits %d cycles per ms", ErrBadRate, cyclesPerMs)
	}
	shift := uint(bits.Len64(scaled) - 1)
	mult := (uint64(1) << shift) * 1e6 / cyclesPerMs // 2^shift*1e6 <= 2^22*1e6 fits
	maxCyclesShift := uint(bits.Len64(hour) - 1)
	// 2^maxCyclesShift*mult <= hour*maxMult < 2^64, so this cannot overflow either.
	nsForMaxCycles := ((uint64(1) << maxCyclesShift) * mult) >> shift
	return Converter{
		cpm:            cyclesPerMs,
		mult:           mult,
		shift:          shift,
		maxCyclesShift: maxCyclesShift,
		mask:           uint64(1)<<maxCyclesShift - 1,
		nsForMaxCycles: nsForMaxCycles,
	}, nil
}

// Nanos converts a tick count to nanoseconds, rounding down (see Converter for
// the error bound). Results past 2^64 ns (584 years at 1 GHz) wrap.
func (c Converter) Nanos(ticks uint64) uint64 {
	return (ticks>>c.maxCyclesShift)*c.nsForMaxCycles + ((ticks&c.mask)*c.mult)>>c.shift
}

// CyclesPerMs is the counter rate the Converter was built for.
func (c Converter) CyclesPerMs() uint64 { return c.cpm }

// Mult is the fixed-point multiplier: ns per tick = Mult / 2^Shift.
func (c Converter) Mult() uint64 { return c.mult }

// Shift is the fixed-point shift applied after multiplying by Mult.
func (c Converter) Shift() uint { return c.shift }

// MaxCyclesShift is log2 of the chunk length in ticks: the largest power of two
// not above one hour of ticks.
func (c Converter) MaxCyclesShift() uint { return c.maxCyclesShift }

// NsForMaxCycles is the nanoseconds credited for each whole chunk of
// 2^MaxCyclesShift ticks.
func (c Converter) NsForMaxCycles() uint64 { return c.nsForMaxCycles }

// String prints the parameters, e.g. "cpm=2596132 mult=1615597 shift=22 max_cycles_shift=43".
func (c Converter) String() string {
	return fmt.Sprintf("cpm=%d mult=%d shift=%d max_cycles_shift=%d", c.cpm, c.mult, c.shift, c.maxCyclesShift)
}
