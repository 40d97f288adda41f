package page

import (
	"math"
	"strings"
	"testing"
)

// TestPathSkipsWhatCannotBeDrawn: NaN, infinities and, on a log axis,
// values at or below zero break the line instead of reaching the SVG.
func TestPathSkipsWhatCannotBeDrawn(t *testing.T) {
	c := &chart{id: "t", title: "t", x: axis{label: "time", kind: kindTime}, y: axis{label: "clat", kind: kindNS, log: true},
		lines: []series{{name: "s", class: "c0",
			xs: []float64{0, 1, 2, 3, 4, 5, 6, math.NaN(), 8},
			ys: []float64{1e3, math.NaN(), 2e3, math.Inf(1), 0, -5, 3e3, 4e3, 5e3}}}}
	var b strings.Builder
	c.svg(&b)
	out := b.String()
	i := strings.Index(out, ` d="`)
	if i < 0 {
		t.Fatalf("no path: %s", out)
	}
	d := out[i+4 : i+4+strings.IndexByte(out[i+4:], '"')]
	checkPathData(t, d)
	if got := strings.Count(d, "M"); got != 4 { // 1e3 | 2e3 | 3e3 | 5e3: four pieces
		t.Errorf("path %q has %d pieces, want 4", d, got)
	}
	// A line with nothing drawable writes no path at all.
	c.lines = []series{{name: "none", xs: []float64{1, 2}, ys: []float64{math.NaN(), -1}}}
	b.Reset()
	c.svg(&b)
	if strings.Contains(b.String(), "<path") {
		t.Errorf("a path for a line with nothing to draw")
	}
}

// TestDecimateKeepsSpikes: many more points than pixel columns are cut
// to at most four a column, keeping each column's extremes in order.
func TestDecimateKeepsSpikes(t *testing.T) {
	n := 100000
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
		ys[i] = 10
	}
	ys[4321], ys[77777] = 1e6, -1e6 // one spike up, one down
	ys[50000] = math.NaN()          // a gap
	ox, oy := decimate(xs, ys, 0, float64(n), 500)
	if len(ox) > 4*500+4 || len(ox) != len(oy) {
		t.Fatalf("%d points for 500 columns", len(ox))
	}
	var up, down, gap bool
	for i := range ox {
		if i > 0 && ox[i] < ox[i-1] {
			t.Fatalf("x out of order at %d: %v < %v", i, ox[i], ox[i-1])
		}
		up = up || oy[i] == 1e6 && ox[i] == 4321
		down = down || oy[i] == -1e6 && ox[i] == 77777
		gap = gap || math.IsNaN(oy[i])
	}
	if !up || !down || !gap {
		t.Errorf("spike up kept %v, down %v, gap %v", up, down, gap)
	}
	// Few points pass unchanged.
	if ox, _ := decimate(xs[:100], ys[:100], 0, 100, 500); len(ox) != 100 {
		t.Errorf("100 points became %d", len(ox))
	}
}

// TestTicks: ticks fall inside the axis, ascending, labelled with units.
func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    axis
		want []string // labels that must be among the ticks
	}{
		{"latency decades", axis{kind: kindNS, log: true, min: 80e3, max: 30e6}, []string{"100µs", "1ms", "10ms"}},
		{"latency one decade", axis{kind: kindNS, log: true, min: 120e3, max: 900e3}, []string{"100µs", "200µs", "500µs", "1ms"}},
		{"IOPS", axis{kind: kindCount, min: 41e3, max: 77e3}, []string{"0", "20k", "80k"}},
		{"MiB/s", axis{kind: kindBytes, min: 160 << 20, max: 300 << 20}, []string{"0", "100", "300"}},
		{"hour", axis{kind: kindTime, min: 0, max: 3600}, []string{"0", "20", "60"}},
		{"probability", axis{kind: kindProb, log: true, min: 1e-5, max: 1}, []string{"100%", "1%", "0.001%"}},
		{"huge", axis{kind: kindCount, min: -math.MaxFloat64, max: math.MaxFloat64}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			a.pick()
			ticks := a.ticks()
			var labels []string
			for i, v := range ticks {
				if i > 0 && v <= ticks[i-1] {
					t.Errorf("ticks not ascending: %v", ticks)
				}
				if v < a.min*(1+1e-9)-1e-9 && v < a.min || v > a.max*(1+1e-9)+1e-9 {
					t.Errorf("tick %v outside [%v, %v]", v, a.min, a.max)
				}
				labels = append(labels, a.tickLabel(v))
			}
			for _, w := range tc.want {
				found := false
				for _, l := range labels {
					found = found || l == w
				}
				if !found {
					t.Errorf("no tick %q among %q", w, labels)
				}
			}
		})
	}
}
