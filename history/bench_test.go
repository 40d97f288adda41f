package history

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchSeries are 20 metrics' histories of 10,000 runs, in log scale,
// each with 5% noise and three steps of 10-30% at places of its own.
func benchSeries() [][]float64 {
	r := rand.New(rand.NewPCG(10000, 20))
	out := make([][]float64, 20)
	for m := range out {
		steps := []int{r.IntN(10000), r.IntN(10000), r.IntN(10000)}
		xs := make([]float64, 10000)
		for i := range xs {
			level := 1.0
			for _, s := range steps {
				if i >= s {
					level *= 1.1 + 0.2*float64(s%3)/2
				}
			}
			xs[i] = math.Log(level * (1 + 0.05*r.NormFloat64()))
		}
		out[m] = xs
	}
	return out
}

// BenchmarkChangePoints10000x20 is the change-point search over 10,000
// runs of 20 metrics: one op is all 20 (make bench holds it under 2 s).
func BenchmarkChangePoints10000x20(b *testing.B) {
	series := benchSeries()
	b.ResetTimer()
	found := 0
	for b.Loop() {
		found = 0
		for _, xs := range series {
			found += len(SplitConfig{}.Split(xs))
		}
	}
	b.ReportMetric(float64(found), "changes/op")
}

// BenchmarkChanges10000Runs is the whole analysis of a history of
// 10,000 runs of a mixed job (8 metrics per direction, 16 in all): the
// series made from the runs, the search, the intervals and what changed.
func BenchmarkChanges10000Runs(b *testing.B) {
	hist := simHistory(1, 10000, 6000, 1.2, 0.05)
	for _, h := range hist {
		w := *h.Dirs[0]
		w.Name = "write"
		h.Dirs = append(h.Dirs, &w)
	}
	es := entries(hist)
	b.ResetTimer()
	for b.Loop() {
		rep, err := Changes(es, Config{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Series[0].Metrics) != 16 {
			b.Fatalf("%d metrics", len(rep.Series[0].Metrics))
		}
	}
}
