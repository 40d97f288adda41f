package histlog

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"stortest.dev/latency"
)

// hostLogs writes one host's jobs' logs: per job, ten one-second rows of
// reads whose latencies are lognormal around median ns.
func hostLogs(t *testing.T, host string, jobs int, median float64, seed uint64, total *latency.Histogram) []Input {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	var ins []Input
	for j := range jobs {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		for s := range 10 {
			h := latency.New(latency.FioLayout)
			for range 500 {
				v := uint64(median * math.Exp(0.5*r.NormFloat64()))
				h.Add(v)
				total.Add(v)
			}
			if err := w.WriteInterval(uint64(s+1)*1000, Read, 4096, h); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, memInput(host+"/j"+string(rune('0'+j)), buf.String()))
	}
	return ins
}

// The fleet's percentiles are those of every host's histograms summed,
// which are not the mean of the hosts' percentiles when one host is
// slow; Slowest names that host.
func TestFleet(t *testing.T) {
	all := latency.New(latency.FioLayout)
	groups := []Group{
		{Label: "node1", Inputs: hostLogs(t, "node1", 2, 100e3, 1, all)},
		{Label: "node2", Inputs: hostLogs(t, "node2", 2, 110e3, 2, all)},
		{Label: "node3", Inputs: hostLogs(t, "node3", 1, 900e3, 3, all)},
		{Label: "node4", Inputs: hostLogs(t, "node4", 2, 105e3, 4, all)},
	}
	ps := []float64{50, 99}
	fs, err := Fleet(context.Background(), groups, Config{Percentiles: ps, Directions: []Direction{Read}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Hosts) != 4 || fs.Fleet.Logs != 7 {
		t.Fatalf("hosts %d, fleet logs %d", len(fs.Hosts), fs.Fleet.Logs)
	}
	fleet, ok := fs.Fleet.Dir(Read)
	if !ok || fleet.Samples != float64(all.Count()) {
		t.Fatalf("fleet samples %v, want %d", fleet.Samples, all.Count())
	}
	// The same percentile of the summed buckets, computed here: the rank
	// p/100*N interpolated inside the bucket that reaches it.
	for i, p := range ps {
		want := interpolated(all, p)
		if got := fleet.Percentiles[i]; math.Abs(got-want) > 1e-6*want {
			t.Errorf("fleet p%v = %v, want %v (summed histograms)", p, got, want)
		}
	}
	var mean float64
	for _, h := range fs.Hosts {
		d, _ := h.Dir(Read)
		mean += d.Percentiles[1] / 4
	}
	if math.Abs(mean-fleet.Percentiles[1]) < 0.05*mean {
		t.Errorf("fleet p99 %v is the hosts' mean %v: not merged", fleet.Percentiles[1], mean)
	}
	slow, ratio, ok := fs.Slowest(Read, 1)
	if !ok || slow.Label != "node3" || ratio < 5 {
		t.Errorf("slowest %s at %.1fx, want node3 at about 8x", slow.Label, ratio)
	}
}

// interpolated is Merge's percentile of a histogram, written from its
// definition.
func interpolated(h *latency.Histogram, p float64) float64 {
	l := h.Layout()
	total := float64(h.Count())
	rank := p / 100 * total
	cum := 0.0
	for _, b := range h.Bins() {
		i := l.Index(b.Value)
		lo, hi := l.Bounds(i)
		c := float64(b.Count)
		if cum+c >= rank {
			return float64(lo) + (rank-cum)/c*float64(hi-lo)
		}
		cum += c
	}
	return math.NaN()
}
