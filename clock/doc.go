// Package clock is the monotonic nanosecond clock read on the per-I/O hot path:
// Now costs about 22 ns and allocates nothing.
//
// # Sources
//
// Now reads one of two sources, chosen once per process:
//
//   - TSC: the CPU's cycle counter, converted to nanoseconds with a rate
//     calibrated against CLOCK_MONOTONIC. On amd64 it is the time-stamp counter,
//     used only when CPUID reports it invariant (leaf 0x80000007 EDX bit 8,
//     read after checking that leaf 0x80000000 reports it exists): a TSC that
//     changes rate with P-states or stops in deep C-states would make the
//     calibration wrong. On arm64 it is the generic timer's virtual counter
//     CNTVCT_EL0, constant-rate by architecture. Other architectures have no
//     counter support and always use Runtime.
//   - Runtime: the Go runtime's monotonic clock, read as time.Since of a
//     package epoch (about 28 ns; CLOCK_MONOTONIC through the vDSO on Linux).
//
// The environment variable STORTEST_CLOCK=tsc|runtime forces a source. Forcing
// tsc where it is not usable falls back to Runtime, and Init returns an error
// wrapping ErrNoTSC that says why; Info().Reason always records the reason
// for the choice.
//
// # Initialisation
//
// Calibration takes about 65 ms, too long to impose on every program that
// imports the package (the command-line tool does not time I/O for most
// subcommands), so it runs once, on the first call of Init, Info or Now. Now
// checks an atomic flag (a plain load on amd64 and arm64) before its fast
// path; callers that time I/O call Init first so no measured operation pays
// for the calibration. Now then reads a package-level boolean, not a function
// pointer, to pick the source. Its body is too large for the inliner (the
// counter read and the slow path are both calls); the call, the flag and the
// conversion add about 1.5 ns to the ordered counter read.
//
// The epoch is taken before calibrating: every reading after initialisation
// is at least 65 ms of counter ticks past it, so a small offset between CPUs'
// counters cannot make the counter difference underflow.
//
// # Reading the counter
//
// The amd64 read is RDTSCP when CPUID 0x80000001 EDX bit 27 reports it, else
// LFENCE;RDTSC. Both wait for earlier instructions, so a timestamp is not taken
// before the submission or completion it follows in program order. Measured on
// the reference VM (AMD EPYC, KVM) they cost the same, 21 ns, against 10 ns for
// a bare RDTSC. RDTSCP is preferred because its ordering is architectural on
// both vendors, while LFENCE only serialises dispatch on older AMD parts when
// the kernel has set an MSR that a guest cannot check. arm64 reads CNTVCT_EL0
// after an ISB, for the same reason.
//
// For the Runtime source, time.Since was measured against runtime.nanotime
// reached through go:linkname (27-31 ns against 25-27 ns). The 2 ns were not
// worth depending on a linkname into the runtime, which the toolchain restricts
// more with each release.
//
// # Calibration
//
// The method follows fio's: a sample spins on CLOCK_MONOTONIC (read with
// clock_gettime) until at least 1.28 ms have passed and gives the rate
// d(ticks)*1e6/d(ns) in ticks per millisecond (cpm); one warm-up sample is
// discarded, 50 are taken; their mean and standard deviation (n-1 divisor)
// are computed; cpm is the integer mean of the samples within one standard
// deviation of the mean.
//
// It differs in how the end points of a sample are read. fio reads the
// reference clock and then the counter. The time between the two reads (the
// return from the system call, about 0.35 µs here, and any preemption that
// lands in it) differs from one end point to the other, and on a 1.28 ms
// sample each 10 ns of difference is 8 ppm. Measured on the reference VM with
// other work running, fio's method gave rates between -9.5 and +6.5 ppm of a
// 3 s reference, with per-calibration standard deviations of the samples
// from 8 to 33000 ppm: preempted samples reached the mean often enough to put
// the 10 ppm drift budget at risk. This package reads each end point as the
// counter, the reference, the counter again, five times, and keeps the
// tightest bracket with the counter at its midpoint: the constant part of the
// gap cancels and stretched reads are dropped, much like the retry loop the
// Linux kernel uses when it calibrates the TSC against the HPET or PM timer. Over 15 calibrations that gave
// rates within -1.6 to +0.4 ppm and sample standard deviations of 5-10 ppm;
// the drift against CLOCK_MONOTONIC over 3 s measured -2 ppm.
//
// # Conversion
//
// Converter turns ticks since the epoch into nanoseconds with fio's
// multiply-and-shift in one-hour chunks; its documentation derives the error
// bound: the result never exceeds the exact value and is short of it by less
// than cpm/(2^22*1e6) relative (0.62 ppm at this VM's 2.6 GHz; it passes 1 ppm
// only for counters above 4.19 GHz) plus one nanosecond per chunk.
package clock
