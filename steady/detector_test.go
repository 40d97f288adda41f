package steady

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newDetector(t *testing.T, cfg Config) *Detector {
	t.Helper()
	d, err := NewDetector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The ring's incremental sums give bit for bit what Evaluate computes on
// the window, for every window position of long random series.
func TestDetectorMatchesEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, crit := range []string{"iops:1%", "iops:5", "iops_slope:0.3%", "iops_slope:2", "bw:2%", "bw_slope:20k", "bw_slope:1%"} {
		for _, n := range []int{2, 3, 7, 30} {
			t.Run(crit+"/"+time.Duration(n*int(time.Second)).String(), func(t *testing.T) {
				c := MustParse(crit)
				d := newDetector(t, Config{Criteria: All(c), Window: time.Duration(n) * time.Second, Continue: true})
				var iops, bw []uint64
				for i := range 300 {
					s := Sample{IOPS: 5000 + rng.Uint64N(200) + uint64(i%17)*3, BW: 1<<30 + rng.Uint64N(1<<22)}
					iops, bw = append(iops, s.IOPS), append(bw, s.BW)
					v := d.Add(s)
					if i < n-1 {
						if v.Evaluated || v.Results[0].Evaluated {
							t.Fatalf("sample %d judged before the window filled", i)
						}
						continue
					}
					y := iops[i-n+1:]
					if c.Metric == BW {
						y = bw[i-n+1:]
					}
					want := Evaluate(c, y)
					got := v.Results[0]
					if math.Float64bits(got.Value) != math.Float64bits(want.Value) ||
						math.Float64bits(got.Slope) != math.Float64bits(want.Slope) ||
						math.Float64bits(got.MaxDeviation) != math.Float64bits(want.MaxDeviation) ||
						got.Attained != want.Attained {
						t.Fatalf("sample %d: detector %+v, Evaluate %+v", i, got, want)
					}
					if v.WindowFirst != i-n+1 || v.WindowLast != i {
						t.Fatalf("sample %d: window %d-%d", i, v.WindowFirst, v.WindowLast)
					}
				}
			})
		}
	}
}

func TestDetectorRampWithAdd(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops:1%")), Window: 3 * time.Second, Ramp: 3 * time.Second})
	// fio counts samples once ramp + 1 s has passed: with a sample per
	// second, the first three are ramp.
	in := []uint64{1, 50, 999, 1000, 1000, 1000}
	var got []bool
	var last Verdict
	for _, v := range in {
		last = d.Add(Sample{IOPS: v})
		got = append(got, last.Counted)
	}
	if diff := cmp.Diff([]bool{false, false, false, true, true, true}, got); diff != "" {
		t.Errorf("counted (-want +got)\n%s", diff)
	}
	if !last.Attained || !last.Stop || last.WindowFirst != 3 || last.WindowLast != 5 {
		t.Errorf("last verdict %+v, want attained over samples 3-5", last)
	}
	if !strings.Contains(last.Reason(), "steady state") {
		t.Errorf("reason %q", last.Reason())
	}
}

func TestDetectorObserve(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops:50%")), Window: 3 * time.Second, Ramp: 2 * time.Second})
	steps := []struct {
		el         time.Duration
		ios, bytes uint64
		counted    bool
	}{
		{1000500 * time.Microsecond, 1234, 1234 * 4096, false},
		{2*time.Second + 200*time.Millisecond - 1, 1234 + 2400, (1234 + 2400) * 4096, false}, // 1199 ms: ramp ends at 3 s
		{2*time.Second + 200*time.Millisecond - 1, 9999, 9999, false},                        // < 1 ms later: folded into the next
		{2999999500 * time.Nanosecond, 5000, 5000 * 4096, false},                             // 2.999999 s in whole µs
		{3001000 * time.Microsecond, 5002, 5002 * 4096, true},                                // 1.0005 ms later: 1 ms
		{4001000 * time.Microsecond, 6002, 6002 * 4096, true},
		{5001000 * time.Microsecond, 7002, 7002 * 4096, true},
	}
	for i, s := range steps {
		v := d.Observe(Counters{Elapsed: s.el, IOs: s.ios, Bytes: s.bytes})
		if v.Counted != s.counted {
			t.Fatalf("step %d at %v: counted %v, want %v", i, s.el, v.Counted, s.counted)
		}
	}
	f, ok := d.Fio()
	if !ok {
		t.Fatal("no fio object")
	}
	// 1000*2/1 = 2000 IOPS over the 1 ms step, then 1000 and 1000.
	want := FioSteadyStateData{IOPS: []uint64{2000, 1000, 1000}, BW: []uint64{2000 * 4096, 1000 * 4096, 1000 * 4096},
		IOPSMean: 1333, BWMean: 4000 * 4096 / 3}
	if diff := cmp.Diff(want, f.Data); diff != "" {
		t.Errorf("fio data (-want +got)\n%s", diff)
	}
	// The first counted deltas use integer division by whole ms.
	d2 := newDetector(t, Config{Criteria: All(MustParse("bw:50%")), Window: 2 * time.Second})
	d2.Observe(Counters{Elapsed: 1000500 * time.Microsecond, IOs: 1234, Bytes: 1234})
	d2.Observe(Counters{Elapsed: 2200 * time.Millisecond, IOs: 1234 + 2400, Bytes: 1234 + 2400})
	f2, _ := d2.Fio()
	if diff := cmp.Diff([]uint64{1234, 1000 * 2400 / 1199}, f2.Data.IOPS); diff != "" {
		t.Errorf("iops (-want +got)\n%s", diff)
	}
}

type lossStep struct {
	iops  uint64
	event Event
}

func TestDetectorLossAndRegain(t *testing.T) {
	tests := []struct {
		name   string
		crit   string
		window int
		steps  []lossStep
		losses []Loss
	}{
		{
			name: "step down then steady again", crit: "iops:5%", window: 3,
			// windows: [1010 990 500] 40% off the mean; [990 500 500] 32.7%;
			// steady again at [500 500 500]
			steps:  []lossStep{{1000, 0}, {1000, 0}, {1010, Attained}, {990, 0}, {500, Lost}, {500, 0}, {500, Regained}, {500, 0}, {505, 0}},
			losses: []Loss{{Start: 4, End: 6, StartElapsed: 5 * time.Second, EndElapsed: 7 * time.Second, Limit: 5}},
		},
		{
			name: "a single outlier", crit: "iops:10%", window: 3,
			steps:  []lossStep{{1000, 0}, {1000, 0}, {1000, Attained}, {3000, Lost}, {1000, 0}, {1000, 0}, {1000, Regained}},
			losses: []Loss{{Start: 3, End: 6, StartElapsed: 4 * time.Second, EndElapsed: 7 * time.Second, Limit: 10}},
		},
		{
			name: "trend that never ends", crit: "iops_slope:1%", window: 4,
			steps:  []lossStep{{1000, 0}, {1000, 0}, {1000, 0}, {1000, Attained}, {1100, Lost}, {1200, 0}, {1300, 0}, {1400, 0}},
			losses: []Loss{{Start: 4, End: -1, StartElapsed: 5 * time.Second, Limit: 1}},
		},
		{
			name: "noise within the limit never loses it", crit: "iops:1%", window: 3,
			steps: []lossStep{{1000, 0}, {1004, 0}, {996, Attained}, {1003, 0}, {997, 0}, {1001, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDetector(t, Config{Criteria: All(MustParse(tt.crit)), Window: time.Duration(tt.window) * time.Second, Continue: true})
			for i, s := range tt.steps {
				v := d.Add(Sample{IOPS: s.iops})
				if v.Event != s.event {
					t.Fatalf("sample %d: event %v, want %v (%s)", i, v.Event, s.event, v.Reason())
				}
				if v.Stop {
					t.Fatalf("sample %d: Stop with Continue", i)
				}
				if v.Event == Lost && !strings.Contains(v.Reason(), "steady state lost") {
					t.Errorf("reason %q", v.Reason())
				}
			}
			got := d.Losses()
			if len(got) != len(tt.losses) {
				t.Fatalf("losses %+v, want %d", got, len(tt.losses))
			}
			for i, l := range got {
				w := tt.losses[i]
				if l.Start != w.Start || l.End != w.End || l.StartElapsed != w.StartElapsed || l.EndElapsed != w.EndElapsed || l.Limit != w.Limit {
					t.Errorf("loss %d = %+v, want %+v", i, l, w)
				}
				if !(math.Abs(l.Worst) >= math.Abs(l.Value)) || !(math.Abs(l.Value) >= l.Limit) {
					t.Errorf("loss %d: value %v, worst %v, limit %v", i, l.Value, l.Worst, l.Limit)
				}
			}
		})
	}
}

// The worst value of a loss is the largest criterion value while lost.
func TestDetectorLossWorst(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops:10%")), Window: 2 * time.Second, Continue: true})
	in := []uint64{100, 100, 120, 200, 100, 100}
	var devs []float64
	for i, v := range in {
		r := d.Add(Sample{IOPS: v})
		if i == 3 || i == 4 { // [100 120] is within 10%: lost at [120 200]
			devs = append(devs, r.Results[0].Value)
		}
	}
	ls := d.Losses()
	if len(ls) != 1 {
		t.Fatalf("losses %+v", ls)
	}
	want := math.Max(devs[0], devs[1])
	if ls[0].Worst != want || ls[0].Value != devs[0] || ls[0].End != 5 {
		t.Errorf("loss %+v; values while lost %v", ls[0], devs)
	}
}

func TestDetectorStopsLikeFio(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops:1%")), Window: 2 * time.Second})
	if v := d.Add(Sample{IOPS: 10}); v.Stop || v.Evaluated {
		t.Fatalf("first sample: %+v", v)
	}
	v := d.Add(Sample{IOPS: 10})
	if !v.Stop || !v.Attained || v.Event != Attained {
		t.Fatalf("second sample: %+v", v)
	}
	if i, el := d.AttainedAt(); i != 1 || el != 2*time.Second {
		t.Errorf("AttainedAt = %d, %v", i, el)
	}
}

// The fio object is the one at the first attainment, where fio stops,
// even when the detector carries on.
func TestDetectorFioSnapshot(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops_slope:1%")), Window: 3 * time.Second, Continue: true})
	for _, v := range []uint64{500, 1000, 1000, 1001, 999, 5000, 9000} {
		d.Add(Sample{IOPS: v, BW: v * 512})
	}
	f, _ := d.Fio()
	want := FioSteadyState{
		SS: "iops_slope:1.000000%", Duration: 3, Attained: 1, Criterion: "0.050000%", Slope: 0.5,
		Data: FioSteadyStateData{IOPS: []uint64{1000, 1000, 1001}, BW: []uint64{512000, 512000, 512512}, IOPSMean: 1000, BWMean: 512170},
	}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// Never attained: the object of the last window.
	d2 := newDetector(t, Config{Criteria: All(MustParse("bw:1%")), Window: 2 * time.Second})
	for _, v := range []uint64{100, 200, 400} {
		d2.Add(Sample{IOPS: v, BW: v})
	}
	f2, _ := d2.Fio()
	want2 := FioSteadyState{SS: "bw:1.000000%", Duration: 2, Criterion: "33.333332%", MaxDeviation: 100,
		Data: FioSteadyStateData{IOPS: []uint64{200, 400}, BW: []uint64{200, 400}, IOPSMean: 300, BWMean: 300}}
	if diff := cmp.Diff(want2, f2); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// Latency-only criteria have no fio object.
	d3 := newDetector(t, Config{Criteria: All(MustParse("clat_p99:1%")), Window: 2 * time.Second})
	if _, ok := d3.Fio(); ok {
		t.Error("latency-only detector has a fio object")
	}
}

func TestDetectorAllCriteria(t *testing.T) {
	d := newDetector(t, Config{Criteria: MustParseSet("iops_slope:1%, clat_p99:10%, lat_p99.9_slope:5us"), Window: 3 * time.Second, Continue: true})
	if diff := cmp.Diff([]LatencySpec{{Clat, 99}, {Lat, 99.9}}, d.Latencies()); diff != "" {
		t.Fatalf("Latencies (-want +got)\n%s", diff)
	}
	us := time.Microsecond
	steps := []struct {
		iops     uint64
		clat     time.Duration
		lat      time.Duration
		attained bool
		holds    []bool
	}{
		{1000, 100 * us, 200 * us, false, []bool{false, false, false}},
		{1000, 100 * us, 200 * us, false, []bool{false, false, false}},
		{1000, 100 * us, 200 * us, true, []bool{true, true, true}},
		{1000, 150 * us, 200 * us, false, []bool{true, false, true}},   // clat p99 jumps 50%
		{1000, 150 * us, 240 * us, false, []bool{true, false, false}},  // lat p99.9 climbs 20 us/s
		{1000, 150 * us, 240 * us, false, []bool{true, true, false}},   // clat window 150,150,150
		{1000, 150 * us, 240 * us, true, []bool{true, true, true}},     // lat window flat again
		{1300, 150 * us, 240 * us, false, []bool{false, true, true}},   // iops trend
		{1600, NoLatency, 240 * us, false, []bool{false, false, true}}, // a second without completions
	}
	for i, s := range steps {
		v := d.Add(Sample{IOPS: s.iops, Lat: []time.Duration{s.clat, s.lat}})
		var holds []bool
		for _, r := range v.Results {
			holds = append(holds, r.Attained)
		}
		if v.Attained != s.attained || !cmp.Equal(holds, s.holds) {
			t.Fatalf("sample %d: attained %v %v, want %v %v: %s", i, v.Attained, holds, s.attained, s.holds, v.Reason())
		}
	}
	last := d.results[1]
	if last.Missing != 1 || !strings.Contains(last.String(), "1 seconds of the window have no latency") {
		t.Errorf("missing latency: %+v %q", last, last.String())
	}
	// A short Lat slice means no latency either.
	v := d.Add(Sample{IOPS: 1000})
	if v.Results[2].Missing != 1 {
		t.Errorf("short Lat: missing = %d", v.Results[2].Missing)
	}
	if n := len(d.Losses()); n != 2 {
		t.Errorf("%d losses, want 2: %+v", n, d.Losses())
	}
}

func TestNewDetectorErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no criteria", Config{Window: time.Second}, "no criteria"},
		{"no window", Config{Criteria: All(MustParse("iops:1%"))}, "needs a window"},
		{"fractional window", Config{Criteria: All(MustParse("iops:1%")), Window: 1500 * time.Millisecond}, "whole seconds"},
		{"negative ramp", Config{Criteria: All(MustParse("iops:1%")), Window: time.Second, Ramp: -1}, "negative"},
		{"slope of one second", Config{Criteria: All(MustParse("iops_slope:1%")), Window: time.Second}, "no slope"},
		{"invalid criterion", Config{Criteria: All(Criterion{Metric: IOPS}), Window: time.Second}, "no method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewDetector(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "steady: ") {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestDetectorReset(t *testing.T) {
	d := newDetector(t, Config{Criteria: MustParseSet("iops:1%,pts:iops:1s"), Window: 2 * time.Second, Continue: true})
	feed := func() []Verdict {
		var vs []Verdict
		for _, v := range []uint64{100, 100, 100, 100, 100, 300, 100} {
			v := d.Add(Sample{IOPS: v})
			v.Results = append([]Result(nil), v.Results...)
			vs = append(vs, v)
		}
		return vs
	}
	first := feed()
	d.Reset()
	second := feed()
	if diff := cmp.Diff(first, second, cmp.AllowUnexported(Verdict{})); diff != "" {
		t.Errorf("after Reset (-first +second)\n%s", diff)
	}
}

// Feeding a sample allocates nothing, with latency criteria, PTS and a
// loss in progress.
func TestDetectorAllocs(t *testing.T) {
	d := newDetector(t, Config{Criteria: MustParseSet("iops_slope:0.5%, bw:1%, clat_p99:5%, pts:iops:2s"), Window: 30 * time.Second, Continue: true})
	lat := []time.Duration{200 * time.Microsecond}
	i := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		lat[0] = time.Duration(200_000 + i%7*1000)
		d.Add(Sample{IOPS: 1000 + i%13, BW: 4096 * (1000 + i%13), Lat: lat})
	})
	if allocs != 0 {
		t.Errorf("Add: %v allocations per sample", allocs)
	}
	el := time.Duration(0)
	ios := uint64(0)
	allocs = testing.AllocsPerRun(1000, func() {
		el += time.Second
		ios += 1000 + uint64(el/time.Second)%5
		d.Observe(Counters{Elapsed: el, IOs: ios, Bytes: ios * 4096, Lat: lat})
	})
	if allocs != 0 {
		t.Errorf("Observe: %v allocations per sample", allocs)
	}
}

func BenchmarkDetectorAdd(b *testing.B) {
	d, err := NewDetector(Config{Criteria: MustParseSet("iops_slope:0.5%, bw:1%, clat_p99:5%"), Window: 60 * time.Second, Continue: true})
	if err != nil {
		b.Fatal(err)
	}
	lat := []time.Duration{200 * time.Microsecond}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d.Add(Sample{IOPS: 1000 + uint64(i%13), BW: 4096 * 1000, Lat: lat})
	}
}
