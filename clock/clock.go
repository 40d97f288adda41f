package clock

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Calibration describes the source Now reads and, for TSC, how its rate was
// measured. Rates are counter ticks per millisecond ("cpm").
type Calibration struct {
	Source    Source
	Reason    string // why Source was chosen
	Counter   string // instruction sequence read for TSC, e.g. "rdtscp"; "" if none
	Invariant bool   // the hardware reports a constant-rate counter

	// Filled only when Source is TSC.
	CyclesPerMs    uint64 // chosen rate: integer mean of the kept samples
	Mult           uint64 // ns per tick = Mult / 2^Shift
	Shift          uint
	MaxCyclesShift uint          // log2 of the conversion chunk, in ticks (<= one hour)
	SamplesKept    int           // samples within one standard deviation of Mean
	SamplesTotal   int           // samples measured, warm-up excluded
	Mean, StdDev   float64       // of all samples, ticks per ms
	Took           time.Duration // wall time the calibration took
}

// String is a one-line summary, e.g.
// "tsc (rdtscp; CPUID 0x80000007 EDX bit 8: invariant TSC) cpm=2596132 mult=1615597
// shift=22 max_cycles_shift=43 kept=34/50 mean=2596131.9 stddev=9.1 (3.5 ppm) took=65ms".
func (c Calibration) String() string {
	s := fmt.Sprintf("%v (", c.Source)
	if c.Source == TSC && c.Counter != "" {
		s += c.Counter + "; "
	}
	s += c.Reason + ")"
	if c.Source != TSC {
		return s
	}
	ppm := 0.0
	if c.Mean > 0 {
		ppm = c.StdDev / c.Mean * 1e6
	}
	return s + fmt.Sprintf(" cpm=%d mult=%d shift=%d max_cycles_shift=%d kept=%d/%d mean=%.1f stddev=%.1f (%.1f ppm) took=%v",
		c.CyclesPerMs, c.Mult, c.Shift, c.MaxCyclesShift, c.SamplesKept, c.SamplesTotal,
		c.Mean, c.StdDev, ppm, c.Took.Round(time.Millisecond))
}

// state is what Now reads. It is written once, before ready is set, and is
// read-only afterwards (tests swap it while nothing else reads).
type state struct {
	useTSC bool
	conv   Converter
	start  uint64    // counter at the epoch
	epoch  time.Time // runtime epoch, with a monotonic reading
	cal    Calibration
	err    error // from choosing the source; the clock works regardless
}

var (
	once  sync.Once
	ready atomic.Bool // st is installed; an acquire load orders the reads of st
	st    state
)

// Now returns nanoseconds since an arbitrary epoch fixed when the clock was
// initialised. Readings are monotonic across goroutines and CPUs.
//
// With the TSC source a reading costs one ordered counter read, a multiply and a
// shift (about 22 ns on the reference VM, no allocation). The first call
// calibrates the clock (about 65 ms) unless Init ran before: call Init before
// timing anything.
func Now() int64 {
	if !ready.Load() {
		initOnce()
	}
	if st.useTSC {
		return int64(st.conv.Nanos(readCounter() - st.start))
	}
	return int64(time.Since(st.epoch))
}

// NowUnordered is Now without the wait for earlier instructions: a bare
// RDTSC on amd64 (fio's own clock read, get_cpu_clock), CNTVCT_EL0
// without ISB on arm64 (the runtime source is the same as Now's). The
// processor may take the reading some instructions before or after its
// place in the program, within its reorder window, never after a later
// Now's (which waits for it), and it costs about half as much (10 ns
// against 21 on the reference VM). It is for the per-I/O stamps of a
// synchronous engine, where two ordered reads an I/O would cost more
// than the play they remove; a caller that subtracts two unordered
// readings holds the later at or above the earlier.
func NowUnordered() int64 {
	if !ready.Load() {
		initOnce()
	}
	if st.useTSC {
		return int64(st.conv.Nanos(readCounterRaw() - st.start))
	}
	return int64(time.Since(st.epoch))
}

// Init chooses the source (honouring EnvSource) and calibrates the counter if it
// has not been done yet; later calls return the first result. A non-nil error
// explains why a forced choice could not be honoured; the clock then still works
// with the source in the returned Calibration.
func Init() (Calibration, error) {
	initOnce()
	return st.cal, st.err
}

// Info returns the Calibration in use, initialising the clock if needed.
func Info() Calibration {
	initOnce()
	return st.cal
}

func initOnce() {
	once.Do(func() {
		install(choose(os.Getenv(EnvSource), host))
	})
}

func install(s state) {
	st = s
	ready.Store(true)
}

// platform is what choose needs from the machine; tests substitute fakes.
type platform struct {
	probe   func() (invariant bool, reason string)
	counter func() uint64
	mono    func() (int64, error)
	name    string // of the counter read, for Calibration.Counter
}

var host = platform{probe: probeCounter, counter: readCounter, mono: monotonicNs, name: counterName()}

// choose picks the source named by env ("" for automatic) and calibrates it.
// The epoch is taken before calibrating, so every reading after it, on any CPU,
// is tens of milliseconds past the epoch and the counter difference in Now
// cannot underflow.
func choose(env string, p platform) state {
	s := state{epoch: time.Now(), start: p.counter()}
	invariant, why := p.probe()
	s.cal.Invariant = invariant
	s.cal.Counter = p.name
	s.cal.Source = Runtime
	want, err := ParseSource(env)
	if err != nil {
		s.err = fmt.Errorf("%s: %w", EnvSource, err)
		want = 0
	}
	switch {
	case want == Runtime:
		s.cal.Reason = EnvSource + "=runtime"
		return s
	case !invariant:
		s.cal.Reason = why
		if want == TSC {
			s.err = fmt.Errorf("%w: %s=tsc: %s", ErrNoTSC, EnvSource, why)
			s.cal.Reason = EnvSource + "=tsc refused: " + why
		}
		return s
	}
	conv, cal, err := calibrate(p.counter, p.mono)
	if err != nil {
		s.cal.Reason = "TSC calibration failed: " + err.Error()
		if want == TSC {
			s.err = fmt.Errorf("%w: %s=tsc: %w", ErrNoTSC, EnvSource, err)
		}
		return s
	}
	cal.Source = TSC
	cal.Invariant, cal.Counter = invariant, p.name
	cal.Reason = why
	if want == TSC {
		cal.Reason = EnvSource + "=tsc; " + why
	}
	s.cal, s.conv, s.useTSC = cal, conv, true
	return s
}
