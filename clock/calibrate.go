package clock

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"golang.org/x/sys/unix"
)

// Calibration budget: (calWarmup + calSamples) * calSampleNs = 65.3 ms.
const (
	calSampleNs = 1_280_000 // ns of CLOCK_MONOTONIC one sample spans, at least
	calSamples  = 50        // samples that enter the statistics
	calWarmup   = 1         // samples taken first and discarded (cold caches, page faults)
)

// monotonicNs reads CLOCK_MONOTONIC, the reference the counter is calibrated
// against, in nanoseconds.
func monotonicNs() (int64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, fmt.Errorf("clock: clock_gettime(CLOCK_MONOTONIC): %w", err)
	}
	return ts.Nano(), nil
}

// refPairTries is how many bracketed reads refPair takes to keep the tightest.
// A clock_gettime system call takes about 0.35 µs here; five tries cost under
// 5 µs per end point, against a 1280 µs sample.
const refPairTries = 5

// refPair reads the reference clock bracketed by two counter reads, several
// times, and returns the tightest bracket: the counter at the bracket's midpoint
// and the reference reading.
//
// A bare (reference, counter) pair, as fio reads it, carries the time from the
// kernel's clock read to the counter read: the system-call return, and any
// preemption that lands in between. That gap differs between the two ends of a
// sample (different code runs before each), and 10 ns of difference is already
// 8 ppm of a 1.28 ms sample. The midpoint cancels the constant part of the
// gap; keeping the smallest bracket drops the reads a preemption or interrupt
// stretched.
func refPair(counter func() uint64, mono func() (int64, error)) (ticks uint64, ns int64, err error) {
	best := ^uint64(0)
	for range refPairTries {
		a := counter()
		m, err := mono()
		if err != nil {
			return 0, 0, err
		}
		b := counter()
		if gap := b - a; gap < best {
			best, ticks, ns = gap, a+gap/2, m
		}
	}
	return ticks, ns, nil
}

// sampleRate measures the counter rate in ticks per millisecond over at least
// calSampleNs of reference time: a reference pair, a spin on the reference
// clock until calSampleNs have passed, another reference pair.
func sampleRate(counter func() uint64, mono func() (int64, error)) (uint64, error) {
	c0, start, err := refPair(counter, mono)
	if err != nil {
		return 0, err
	}
	for {
		now, err := mono()
		if err != nil {
			return 0, err
		}
		if now-start >= calSampleNs {
			break
		}
	}
	c1, end, err := refPair(counter, mono)
	if err != nil {
		return 0, err
	}
	return ticksPerMs(c1-c0, uint64(end-start)), nil
}

// ticksPerMs is ticks*1e6/ns rounded down, in 128 bits so that no tick count
// can overflow.
func ticksPerMs(ticks, ns uint64) uint64 {
	hi, lo := bits.Mul64(ticks, 1e6)
	if hi >= ns {
		return math.MaxUint64 // rate beyond 64 bits; rejected by NewConverter
	}
	q, _ := bits.Div64(hi, lo, ns)
	return q
}

// rateStats summarises calibration samples (ticks per ms) the way the rate is
// chosen: the mean and sample standard deviation of all samples, then the
// integer mean of the samples within one standard deviation of that mean.
type rateStats struct {
	mean, stddev float64 // of all samples, ticks per ms
	kept         int     // samples with |x - mean| <= stddev
	cpm          uint64  // integer mean of the kept samples, rounded down
}

func summarize(rates []uint64) rateStats {
	var st rateStats
	n := len(rates)
	if n == 0 {
		return st
	}
	var sum float64
	for _, r := range rates {
		sum += float64(r)
	}
	st.mean = sum / float64(n)
	if n > 1 {
		var ss float64
		for _, r := range rates {
			d := float64(r) - st.mean
			ss += d * d
		}
		st.stddev = math.Sqrt(ss / float64(n-1))
	}
	var keptSum uint64
	for _, r := range rates {
		if math.Abs(float64(r)-st.mean) <= st.stddev {
			keptSum += r
			st.kept++
		}
	}
	// With the n-1 divisor at least one sample lies within one standard
	// deviation; the guard only covers floating-point rounding.
	if st.kept == 0 {
		keptSum, st.kept = 0, n
		for _, r := range rates {
			keptSum += r
		}
	}
	st.cpm = keptSum / uint64(st.kept)
	return st
}

// calibrate measures the counter against CLOCK_MONOTONIC: one warm-up sample,
// then calSamples samples, summarised by summarize. It fills the calibration
// fields of a Calibration and returns the Converter for the chosen rate.
func calibrate(counter func() uint64, mono func() (int64, error)) (Converter, Calibration, error) {
	began := time.Now()
	var cal Calibration
	rates := make([]uint64, 0, calSamples)
	for i := range calWarmup + calSamples {
		r, err := sampleRate(counter, mono)
		if err != nil {
			return Converter{}, cal, err
		}
		if i >= calWarmup {
			rates = append(rates, r)
		}
	}
	st := summarize(rates)
	cal.CyclesPerMs = st.cpm
	cal.SamplesTotal = len(rates)
	cal.SamplesKept = st.kept
	cal.Mean = st.mean
	cal.StdDev = st.stddev
	cal.Took = time.Since(began)
	conv, err := NewConverter(st.cpm)
	if err != nil {
		return Converter{}, cal, err // names the measured rate
	}
	cal.Mult = conv.Mult()
	cal.Shift = conv.Shift()
	cal.MaxCyclesShift = conv.MaxCyclesShift()
	return conv, cal, nil
}
