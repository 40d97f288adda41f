package clock

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rates []uint64
		want  rateStats
	}{
		{name: "empty", rates: nil, want: rateStats{}},
		{name: "one sample", rates: []uint64{7}, want: rateStats{mean: 7, stddev: 0, kept: 1, cpm: 7}},
		{name: "all equal kept", rates: []uint64{5, 5, 5}, want: rateStats{mean: 5, stddev: 0, kept: 3, cpm: 5}},
		{
			// mean 280; stddev = sqrt((4*180^2 + 720^2)/4) = 402.49; 1000 is 720 away.
			name:  "high outlier dropped",
			rates: []uint64{100, 100, 100, 100, 1000},
			want:  rateStats{mean: 280, stddev: math.Sqrt(162000), kept: 4, cpm: 100},
		},
		{
			// mean 100; stddev = sqrt(200/4) = 7.07; 90 and 110 are 10 away.
			name:  "both tails dropped",
			rates: []uint64{90, 100, 100, 100, 110},
			want:  rateStats{mean: 100, stddev: math.Sqrt(50), kept: 3, cpm: 100},
		},
		{
			// mean 10.5; stddev 0.707; both kept; 21/2 rounds down.
			name:  "integer mean rounds down",
			rates: []uint64{10, 11},
			want:  rateStats{mean: 10.5, stddev: math.Sqrt(0.5), kept: 2, cpm: 10},
		},
		{
			// Exactly one standard deviation away is kept: mean 2, stddev 1.
			name:  "boundary kept",
			rates: []uint64{1, 2, 3},
			want:  rateStats{mean: 2, stddev: 1, kept: 3, cpm: 2},
		},
		{
			name:  "tsc sized",
			rates: []uint64{2596130, 2596134, 2596132, 2596300},
			// mean 2596174; deviations -44 -40 -42 126; stddev = sqrt(21176/3) = 84.02.
			want: rateStats{mean: 2596174, stddev: math.Sqrt(21176.0 / 3), kept: 3, cpm: 2596132},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(tc.rates)
			opts := cmp.Options{cmp.AllowUnexported(rateStats{}), cmpopts.EquateApprox(0, 1e-9)}
			if diff := cmp.Diff(tc.want, got, opts); diff != "" {
				t.Errorf("summarize(%v) mismatch (-want +got):\n%s", tc.rates, diff)
			}
		})
	}
}

func TestTicksPerMs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ticks, ns uint64
		want      uint64
	}{
		{name: "exact", ticks: 3_840_000, ns: 1_280_000, want: 3_000_000},
		{name: "rounds down", ticks: 10, ns: 3, want: 3_333_333},
		{name: "no 64-bit overflow", ticks: 1 << 60, ns: 1 << 40, want: 1 << 20 * 1e6},
		{name: "saturates", ticks: 1 << 62, ns: 1, want: math.MaxUint64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ticksPerMs(tc.ticks, tc.ns); got != tc.want {
				t.Errorf("ticksPerMs(%d, %d) = %d, want %d", tc.ticks, tc.ns, got, tc.want)
			}
		})
	}
}

// fakeClock is a simulated machine: every read takes time. The counter ticks
// at 3 per ns (3e6 per ms); a reference read takes refCost ns and samples the
// clock halfway through, plus stall[i] ns of delay after the i-th reference
// sample (a preemption between the kernel's read and the return).
type fakeClock struct {
	ns       int64
	refCost  int64
	stall    map[int]int64
	refReads int
	failAt   int // reference read that fails, 1-based; 0 never
}

func (f *fakeClock) counter() uint64 {
	f.ns += 10
	return uint64(f.ns) * 3
}

func (f *fakeClock) mono() (int64, error) {
	f.refReads++
	if f.refReads == f.failAt {
		return 0, errors.New("injected failure")
	}
	f.ns += f.refCost / 2
	m := f.ns
	f.ns += f.refCost/2 + f.stall[f.refReads]
	return m, nil
}

func TestRefPairKeepsTightestBracket(t *testing.T) {
	// Reads 1, 2, 4 and 5 are stretched; read 3 is clean.
	f := &fakeClock{refCost: 300, stall: map[int]int64{1: 5000, 2: 800, 4: 2000, 5: 900}}
	ticks, ns, err := refPair(f.counter, f.mono)
	if err != nil {
		t.Fatal(err)
	}
	if f.refReads != refPairTries {
		t.Errorf("%d reference reads, want %d", f.refReads, refPairTries)
	}
	// Pair 1 spans 10+300+5000+10 ns, pair 2 10+300+800+10, so read 3 happens
	// at 5320 + 1120 + 10 + 150 ns.
	const wantNs = 5320 + 1120 + 10 + 150
	if ns != wantNs {
		t.Errorf("reference = %d ns, want read 3 at %d ns", ns, wantNs)
	}
	// Bracket of read 3: counter at wantNs-150 and wantNs+160; midpoint wantNs+5.
	if want := uint64(wantNs+5) * 3; ticks != want {
		t.Errorf("counter = %d, want midpoint %d", ticks, want)
	}
}

func TestSampleRateExact(t *testing.T) {
	// A constant gap between reference and counter reads, and stalls at both
	// ends, must not bias the rate: the tightest brackets are used and their
	// constant offset cancels.
	f := &fakeClock{refCost: 340, stall: map[int]int64{1: 3000, 4: 700}}
	got, err := sampleRate(f.counter, f.mono)
	if err != nil {
		t.Fatal(err)
	}
	if got != 3_000_000 {
		t.Errorf("sampleRate = %d ticks per ms, want 3000000", got)
	}
	if f.ns < calSampleNs {
		t.Errorf("sample spanned %d ns, want >= %d", f.ns, calSampleNs)
	}
}

func TestCalibrate(t *testing.T) {
	f := &fakeClock{refCost: 340}
	conv, cal, err := calibrate(f.counter, f.mono)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewConverter(3_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, conv, cmp.AllowUnexported(Converter{})); diff != "" {
		t.Errorf("converter mismatch (-want +got):\n%s", diff)
	}
	got := cal
	got.Took = 0
	wantCal := Calibration{
		CyclesPerMs: 3_000_000, Mult: want.Mult(), Shift: want.Shift(), MaxCyclesShift: want.MaxCyclesShift(),
		SamplesKept: calSamples, SamplesTotal: calSamples, Mean: 3_000_000,
	}
	if diff := cmp.Diff(wantCal, got); diff != "" {
		t.Errorf("calibration mismatch (-want +got):\n%s", diff)
	}
	// Simulated time covers the warm-up and every sample.
	if min := int64(calWarmup+calSamples) * calSampleNs; f.ns < min {
		t.Errorf("calibration spanned %d simulated ns, want >= %d", f.ns, min)
	}
}

func TestCalibrateReferenceFailure(t *testing.T) {
	for _, failAt := range []int{1, 3, 700} {
		f := &fakeClock{refCost: 340, failAt: failAt}
		if _, _, err := calibrate(f.counter, f.mono); err == nil || err.Error() != "injected failure" {
			t.Errorf("failure at reference read %d: error = %v, want the injected failure", failAt, err)
		}
	}
}

func TestCalibrateRejectsImpossibleRate(t *testing.T) {
	// A counter that does not move gives 0 ticks per ms.
	f := &fakeClock{refCost: 340}
	_, _, err := calibrate(func() uint64 { return 42 }, f.mono)
	if !errors.Is(err, ErrBadRate) {
		t.Errorf("stopped counter: error = %v, want ErrBadRate", err)
	}
}
