package steady

import (
	"math"
	"testing"
	"time"
)

func TestEvaluatePTS(t *testing.T) {
	tests := []struct {
		name   string
		rounds []float64
		last   int
		p      PTSParams
		want   PTSResult
	}{
		{
			name: "steady", rounds: []float64{100, 102, 98, 101, 99}, last: 5,
			want: PTSResult{FirstRound: 1, LastRound: 5, Mean: 100, Min: 98, Max: 102, Range: 4, RangeLimit: 20,
				Slope: -0.3, Intercept: 100.9, Excursion: 1.2, ExcursionLimit: 10, Attained: true},
		},
		{
			// The range is over 20% of the mean.
			name: "range too wide", rounds: []float64{100, 130, 100, 100, 100}, last: 9,
			want: PTSResult{FirstRound: 5, LastRound: 9, Mean: 106, Min: 100, Max: 130, Range: 30, RangeLimit: 21.2,
				Slope: -3, Intercept: 127, Excursion: 12, ExcursionLimit: 10.6},
		},
		{
			// A range exactly at its limit is within it; the trend is not.
			name: "trend", rounds: []float64{90, 95, 100, 105, 110}, last: 5,
			want: PTSResult{FirstRound: 1, LastRound: 5, Mean: 100, Min: 90, Max: 110, Range: 20, RangeLimit: 20,
				Slope: 5, Intercept: 85, Excursion: 20, ExcursionLimit: 10},
		},
		{
			// Slope and intercept against round numbers 3..7.
			name: "line", rounds: []float64{100, 102, 104, 106, 108}, last: 7,
			want: PTSResult{FirstRound: 3, LastRound: 7, Mean: 104, Min: 100, Max: 108, Range: 8, RangeLimit: 20.8,
				Slope: 2, Intercept: 94, Excursion: 8, ExcursionLimit: 10.4, Attained: true},
		},
		{
			// Tighter custom limits.
			name: "custom limits", rounds: []float64{100, 102, 98, 101, 99}, last: 5, p: PTSParams{Range: 3, Excursion: 1},
			want: PTSResult{FirstRound: 1, LastRound: 5, Mean: 100, Min: 98, Max: 102, Range: 4, RangeLimit: 3,
				Slope: -0.3, Intercept: 100.9, Excursion: 1.2, ExcursionLimit: 1},
		},
		{
			name: "idle device", rounds: []float64{0, 0, 0, 0, 0}, last: 5,
			want: PTSResult{FirstRound: 1, LastRound: 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EvaluatePTS(tt.rounds, tt.last, tt.p)
			w := tt.want
			if got.FirstRound != w.FirstRound || got.LastRound != w.LastRound || got.Attained != w.Attained {
				t.Errorf("rounds %d-%d attained %v, want %d-%d %v", got.FirstRound, got.LastRound, got.Attained, w.FirstRound, w.LastRound, w.Attained)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"mean", got.Mean, w.Mean}, {"min", got.Min, w.Min}, {"max", got.Max, w.Max},
				{"range", got.Range, w.Range}, {"range limit", got.RangeLimit, w.RangeLimit},
				{"slope", got.Slope, w.Slope}, {"intercept", got.Intercept, w.Intercept},
				{"excursion", got.Excursion, w.Excursion}, {"excursion limit", got.ExcursionLimit, w.ExcursionLimit},
			} {
				if math.Abs(f.got-f.want) > 1e-9 {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
		})
	}
}

// Rounds are the mean of their seconds; the window slides a round at a
// time; judgement happens at round ends only.
func TestDetectorPTS(t *testing.T) {
	c := MustParse("pts:iops:2s")
	d := newDetector(t, Config{Criteria: All(c), Continue: true})
	// Rounds (2 s each): 50, 80, 100, 100, 100, 100, 100 -> the window of
	// rounds 3-7 is flat.
	secs := []uint64{40, 60, 70, 90, 100, 100, 99, 101, 100, 100, 98, 102, 100, 100}
	for i, v := range secs {
		vd := d.Add(Sample{IOPS: v})
		r := vd.Results[0]
		wantEval := i >= 9 // five rounds done at second 10
		if r.Evaluated != wantEval {
			t.Fatalf("second %d: evaluated %v", i, r.Evaluated)
		}
		switch i {
		case 9:
			if r.Attained || r.PTS.FirstRound != 1 || r.PTS.LastRound != 5 || r.PTS.Min != 50 || r.PTS.Max != 100 {
				t.Fatalf("round 5: %+v", r.PTS)
			}
		case 11:
			if r.Attained || r.PTS.LastRound != 6 || r.PTS.Min != 80 {
				t.Fatalf("round 6: %+v", r.PTS)
			}
		case 13:
			if !r.Attained || vd.Event != Attained || r.PTS.FirstRound != 3 || r.PTS.Range != 0 || r.PTS.Slope != 0 || r.PTS.Intercept != 100 {
				t.Fatalf("round 7: %+v event %v", r.PTS, vd.Event)
			}
			if vd.WindowFirst != 4 || vd.WindowLast != 13 {
				t.Errorf("window %d-%d, want the seconds of rounds 3-7", vd.WindowFirst, vd.WindowLast)
			}
		}
	}
}

// Without steady state after MaxRounds, the detector says stop.
func TestDetectorPTSCap(t *testing.T) {
	c := MustParse("pts:bw:1s")
	c.PTS.MaxRounds = 8
	d := newDetector(t, Config{Criteria: All(c)})
	for i := range 20 {
		v := d.Add(Sample{BW: uint64(1000 * (i + 1))}) // a ramp that never settles
		if v.Stop != (i >= 7) || v.Capped != (i >= 7) {
			t.Fatalf("round %d: stop %v capped %v", i+1, v.Stop, v.Capped)
		}
		if i == 7 {
			if r := v.Reason(); r != "sample 7 at 8s: no steady state within the PTS round cap: "+v.Results[0].String() {
				t.Errorf("reason %q", r)
			}
			break
		}
	}
	// The default cap is 25 rounds.
	d = newDetector(t, Config{Criteria: All(MustParse("pts:iops:1s"))})
	for i := range 25 {
		v := d.Add(Sample{IOPS: uint64(100 << i)})
		if v.Stop != (i == 24) {
			t.Fatalf("round %d: stop %v", i+1, v.Stop)
		}
	}
}

// A PTS latency criterion skips seconds without completions; a round of
// none never satisfies it.
func TestDetectorPTSLatency(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("pts:clat_p99:2s")), Continue: true})
	lat := []time.Duration{0}
	feed := func(vals ...time.Duration) Verdict {
		var v Verdict
		for _, x := range vals {
			lat[0] = x
			v = d.Add(Sample{Lat: lat})
		}
		return v
	}
	v := feed(100, NoLatency, 100, 100, 100, 100, 100, 100, 100, 100)
	if !v.Attained {
		t.Fatalf("five rounds of 100 ns: %s", v.Reason())
	}
	v = feed(NoLatency, NoLatency)
	if v.Attained || v.Event != Lost || !math.IsNaN(v.Results[0].PTS.Max) {
		t.Fatalf("a round without completions: %s", v.Reason())
	}
}
