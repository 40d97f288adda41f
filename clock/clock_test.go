package clock

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

// useState installs s for the rest of the test and restores the previous state
// on cleanup. Tests that swap the state must not run in parallel.
func useState(t *testing.T, s state) {
	t.Helper()
	initOnce() // so the first-use initialisation cannot overwrite s later
	old := st
	install(s)
	t.Cleanup(func() { install(old) })
}

// hostTSC returns the host state with the TSC source, or skips the test with
// the reason the TSC is not used (FailNow via SkipNow).
func hostTSC(t *testing.T) state {
	t.Helper()
	s := choose("tsc", host)
	if !s.useTSC {
		t.Skipf("TSC source unavailable on this host: %s", s.cal.Reason)
	}
	return s
}

func fakePlatform(invariant bool, counter func() uint64, mono func() (int64, error)) platform {
	why := "fake: not invariant"
	if invariant {
		why = "fake: invariant"
	}
	return platform{
		probe:   func() (bool, string) { return invariant, why },
		counter: counter,
		mono:    mono,
		name:    "fake",
	}
}

func TestChoose(t *testing.T) {
	type want struct {
		Source      Source
		Reason      string
		CyclesPerMs uint64
		UseTSC      bool
	}
	broken := func() (int64, error) { return 0, errors.New("no clock") }
	for _, tc := range []struct {
		name      string
		env       string
		invariant bool
		failMono  bool
		want      want
		wantErr   error
	}{
		{name: "auto invariant", invariant: true,
			want: want{Source: TSC, Reason: "fake: invariant", CyclesPerMs: 3_000_000, UseTSC: true}},
		{name: "auto not invariant",
			want: want{Source: Runtime, Reason: "fake: not invariant"}},
		{name: "auto spelled out", env: " AUTO ", invariant: true,
			want: want{Source: TSC, Reason: "fake: invariant", CyclesPerMs: 3_000_000, UseTSC: true}},
		{name: "forced runtime skips calibration", env: "runtime", invariant: true,
			want: want{Source: Runtime, Reason: "STORTEST_CLOCK=runtime"}},
		{name: "forced tsc", env: "tsc", invariant: true,
			want: want{Source: TSC, Reason: "STORTEST_CLOCK=tsc; fake: invariant", CyclesPerMs: 3_000_000, UseTSC: true}},
		{name: "forced tsc not invariant", env: "tsc",
			want:    want{Source: Runtime, Reason: "STORTEST_CLOCK=tsc refused: fake: not invariant"},
			wantErr: ErrNoTSC},
		{name: "unknown name falls back to auto", env: "hpet", invariant: true,
			want:    want{Source: TSC, Reason: "fake: invariant", CyclesPerMs: 3_000_000, UseTSC: true},
			wantErr: ErrBadSource},
		{name: "calibration failure", invariant: true, failMono: true,
			want: want{Source: Runtime, Reason: "TSC calibration failed: no clock"}},
		{name: "forced tsc calibration failure", env: "tsc", invariant: true, failMono: true,
			want:    want{Source: Runtime, Reason: "TSC calibration failed: no clock"},
			wantErr: ErrNoTSC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeClock{refCost: 340}
			mono := f.mono
			if tc.failMono {
				mono = broken
			}
			s := choose(tc.env, fakePlatform(tc.invariant, f.counter, mono))
			got := want{Source: s.cal.Source, Reason: s.cal.Reason, CyclesPerMs: s.cal.CyclesPerMs, UseTSC: s.useTSC}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("choose(%q) mismatch (-want +got):\n%s", tc.env, diff)
			}
			if !errors.Is(s.err, tc.wantErr) || (tc.wantErr == nil) != (s.err == nil) {
				t.Errorf("choose(%q) error = %v, want %v", tc.env, s.err, tc.wantErr)
			}
			if s.err != nil && !strings.HasPrefix(s.err.Error(), "clock: ") && !strings.HasPrefix(s.err.Error(), EnvSource) {
				t.Errorf("error %q lacks the package or variable prefix", s.err)
			}
			if s.cal.Invariant != tc.invariant || s.cal.Counter != "fake" {
				t.Errorf("Invariant, Counter = %v, %q; want %v, \"fake\"", s.cal.Invariant, s.cal.Counter, tc.invariant)
			}
		})
	}
}

// TestHostCalibration logs this machine's calibration and checks it is sane:
// on amd64 and arm64 the counter is expected to be usable.
func TestHostCalibration(t *testing.T) {
	s := hostTSC(t)
	c := s.cal
	t.Logf("%v", c)
	if c.Source != TSC || c.SamplesTotal != calSamples || c.SamplesKept < 1 || c.SamplesKept > c.SamplesTotal {
		t.Errorf("implausible calibration: %+v", c)
	}
	// 1 MHz .. 10 GHz counters.
	if c.CyclesPerMs < 1_000 || c.CyclesPerMs > 10_000_000 {
		t.Errorf("CyclesPerMs = %d outside 1e3..1e7", c.CyclesPerMs)
	}
	if math.Abs(float64(c.CyclesPerMs)-c.Mean) > c.StdDev+1 {
		t.Errorf("CyclesPerMs %d further than one stddev (%.1f) from the mean %.1f", c.CyclesPerMs, c.StdDev, c.Mean)
	}
	// The calibration budget is 51 samples of >= 1.28 ms.
	if min := time.Duration(calWarmup+calSamples) * calSampleNs; c.Took < min {
		t.Errorf("calibration took %v, less than %v", c.Took, min)
	}
}

// refReading reads Now and CLOCK_MONOTONIC together: the reference read
// bracketed by two Now calls, the tightest of five, returned with the midpoint.
func refReading(t *testing.T) (now, mono int64) {
	t.Helper()
	best := int64(math.MaxInt64)
	for range 5 {
		a := Now()
		m, err := monotonicNs()
		if err != nil {
			t.Fatal(err)
		}
		b := Now()
		if b-a < best {
			best, now, mono = b-a, a+(b-a)/2, m
		}
	}
	return now, mono
}

// TestDriftAgainstMonotonic: over 3 s of sleep, the calibrated TSC must agree
// with CLOCK_MONOTONIC within 25 ppm (75 µs). Under make flake's load (both
// CPUs busy) 23 runs here drifted -2.4 to +1.6 ppm, and one -12.4 ppm: every
// sample its calibration kept was 11 ppm off the usual cycles per ms
// together, as if the reference itself (kvm-clock, which the hypervisor
// rescales) had moved in those 66 ms. 25 ppm is twice that; a calibration
// that is wrong, not disturbed, is off by far more (a wrong shift or
// multiplier by percents).
func TestDriftAgainstMonotonic(t *testing.T) {
	testenv.SkipShort(t, "sleeps 3 s; skipped with -short")
	s := hostTSC(t)
	useState(t, s)
	n0, m0 := refReading(t)
	time.Sleep(3 * time.Second)
	n1, m1 := refReading(t)
	dn, dm := n1-n0, m1-m0
	ppm := float64(dn-dm) / float64(dm) * 1e6
	t.Logf("over %v: clock %d ns, CLOCK_MONOTONIC %d ns, drift %+.2f ppm (%v)", time.Duration(dm), dn, dm, ppm, s.cal)
	if math.Abs(ppm) >= 25 {
		t.Errorf("drift %+.2f ppm, want within 25 ppm", ppm)
	}
}

// TestNowMonotonicAcrossGoroutines: writers publish their readings into a
// shared maximum; readers load the maximum, then read Now, which must not be
// smaller: a reading taken after another (in happens-before order) on any CPU
// is not earlier.
func TestNowMonotonicAcrossGoroutines(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	sources := []struct {
		name string
		s    state
	}{{name: "runtime", s: choose("runtime", host)}}
	if s := choose("tsc", host); s.useTSC {
		sources = append(sources, struct {
			name string
			s    state
		}{name: "tsc", s: s})
	} else {
		t.Logf("tsc case skipped: %s", s.cal.Reason)
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			useState(t, src.s)
			const run = 250 * time.Millisecond
			var (
				maxSeen    atomic.Int64
				stop       atomic.Bool
				violations atomic.Int64
				checks     atomic.Int64
				firstMu    sync.Mutex
				first      string
				wg         sync.WaitGroup
			)
			for range 2 { // writers
				wg.Go(func() {
					for !stop.Load() {
						v := Now()
						for old := maxSeen.Load(); v > old && !maxSeen.CompareAndSwap(old, v); old = maxSeen.Load() {
						}
					}
				})
			}
			for range 2 { // readers
				wg.Go(func() {
					var n int64
					for !stop.Load() {
						v := maxSeen.Load()
						if now := Now(); now < v {
							if violations.Add(1) == 1 {
								firstMu.Lock()
								first = fmt.Sprintf("Now() = %d after %d was published (%d ns back)", now, v, v-now)
								firstMu.Unlock()
							}
						}
						n++
					}
					checks.Add(n)
				})
			}
			time.Sleep(run)
			stop.Store(true)
			wg.Wait()
			t.Logf("%d checks", checks.Load())
			if checks.Load() == 0 {
				t.Fatal("readers made no checks")
			}
			if v := violations.Load(); v > 0 {
				t.Errorf("%d of %d readings went backwards; first: %s", v, checks.Load(), first)
			}
		})
	}
}

// TestForcedRuntime: with the runtime source Now follows CLOCK_MONOTONIC.
func TestForcedRuntime(t *testing.T) {
	s := choose("runtime", host)
	if s.err != nil || s.useTSC || s.cal.Source != Runtime {
		t.Fatalf("choose(runtime) = %v, err %v", s.cal, s.err)
	}
	useState(t, s)
	if got := Info().Source; got != Runtime {
		t.Fatalf("Info().Source = %v, want runtime", got)
	}
	n0, m0 := refReading(t)
	prev := n0
	for range 1000 {
		n := Now()
		if n < prev {
			t.Fatalf("Now() went back from %d to %d", prev, n)
		}
		prev = n
	}
	time.Sleep(50 * time.Millisecond)
	n1, m1 := refReading(t)
	// The same clock read two ways: only the read cost separates them.
	if d := (n1 - n0) - (m1 - m0); d < -5000 || d > 5000 {
		t.Errorf("over %v the runtime source differs from CLOCK_MONOTONIC by %d ns", time.Duration(m1-m0), d)
	}
	if n1-n0 < int64(50*time.Millisecond) {
		t.Errorf("Now advanced %d ns across a 50 ms sleep", n1-n0)
	}
}

// An unordered reading followed by an ordered one is never later than
// it, and NowUnordered reads the same clock as Now.
func TestNowUnorderedBeforeNow(t *testing.T) {
	Init()
	for i := range 1000000 {
		a := NowUnordered()
		b := Now()
		if a > b {
			t.Fatalf("reading %d: NowUnordered %d after the Now that follows it, %d", i, a, b)
		}
		if b-a > int64(time.Second) {
			t.Fatalf("reading %d: NowUnordered %d is %v before Now %d: not the same clock", i, a, time.Duration(b-a), b)
		}
	}
	if a := testing.AllocsPerRun(1000, func() { _ = NowUnordered() }); a != 0 {
		t.Errorf("NowUnordered allocates %v", a)
	}
}

func TestNowAllocs(t *testing.T) {
	Init()
	var sink int64
	if n := testing.AllocsPerRun(1000, func() { sink += Now() }); n != 0 {
		t.Errorf("Now allocates %v times per call", n)
	}
}

func TestCalibrationString(t *testing.T) {
	for _, tc := range []struct {
		name string
		cal  Calibration
		want string
	}{
		{
			name: "tsc",
			cal: Calibration{Source: TSC, Reason: "why", Counter: "rdtscp", Invariant: true,
				CyclesPerMs: 2596132, Mult: 1615597, Shift: 22, MaxCyclesShift: 43,
				SamplesKept: 34, SamplesTotal: 50, Mean: 2596133.25, StdDev: 25.96132, Took: 65432 * time.Microsecond},
			want: "tsc (rdtscp; why) cpm=2596132 mult=1615597 shift=22 max_cycles_shift=43 kept=34/50 mean=2596133.2 stddev=26.0 (10.0 ppm) took=65ms",
		},
		{
			name: "runtime",
			cal:  Calibration{Source: Runtime, Reason: "STORTEST_CLOCK=runtime", Counter: "rdtscp", Invariant: true},
			want: "runtime (STORTEST_CLOCK=runtime)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cal.String(); got != tc.want {
				t.Errorf("String() =\n%q, want\n%q", got, tc.want)
			}
		})
	}
}

// TestEnvSelectsSource runs this test binary again with EnvSource set and
// checks what the first-use initialisation chose.
func TestEnvSelectsSource(t *testing.T) {
	if os.Getenv("STORTEST_CLOCK_HELPER") == "1" {
		cal, err := Init()
		fmt.Printf("source=%v err=%v\n", cal.Source, err)
		return
	}
	invariant, why := probeCounter()
	autoSource := Runtime
	if invariant {
		autoSource = TSC
	}
	for _, tc := range []struct {
		env        string
		wantSource Source
		wantErr    string
	}{
		{env: "runtime", wantSource: Runtime, wantErr: "<nil>"},
		{env: "", wantSource: autoSource, wantErr: "<nil>"},
		{env: "bogus", wantSource: autoSource, wantErr: `STORTEST_CLOCK: clock: unknown source "bogus" (want tsc, runtime or auto)`},
	} {
		t.Run("env="+tc.env, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestEnvSelectsSource$")
			cmd.Env = append(os.Environ(), "STORTEST_CLOCK_HELPER=1", EnvSource+"="+tc.env)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			want := fmt.Sprintf("source=%v err=%s\n", tc.wantSource, tc.wantErr)
			if !strings.Contains(string(out), want) {
				t.Errorf("helper output %q does not contain %q (probe: %s)", out, want, why)
			}
		})
	}
}
