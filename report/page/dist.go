package page

import (
	"math"

	"stortest.dev/latency"
)

// Whole-run latency distributions: a histogram on log axes and the
// exceedance plot (1 - CDF), for one run or overlaid for two.

// dist is one distribution to draw.
type dist struct {
	name  string
	class string
	bins  []latency.Bin // ascending values (ns), as latency.Histogram.Bins
}

// count returns the number of I/Os in d, the sum of its bins' counts:
// the whole of which the histogram's shares and the exceedance plot's
// probabilities are parts.
func (d dist) count() uint64 {
	var n uint64
	for _, b := range d.bins {
		n += b.Count
	}
	return n
}

// binsPerDecade is the histogram's resolution on its log axis: fio's
// buckets are finer (64 a power of two), too fine to read as bars.
const binsPerDecade = 20

// histChart draws the distributions as step lines of the share of I/Os
// in each of binsPerDecade log-spaced bins, on log axes so that the
// tail's few I/Os show next to the bulk.
func histChart(id, title string, ds []dist) *chart {
	c := &chart{id: id, title: title,
		x: axis{label: "latency", kind: kindNS, log: true},
		y: axis{label: "share of I/Os per bin", kind: kindPercent, log: true}}
	for _, d := range ds {
		total := d.count()
		if total == 0 {
			continue
		}
		counts := map[int]uint64{}
		lo, hi := math.MaxInt, math.MinInt
		for _, b := range d.bins {
			v := math.Max(float64(b.Value), 1)
			k := int(math.Floor(math.Log10(v) * binsPerDecade))
			counts[k] += b.Count
			lo, hi = min(lo, k), max(hi, k)
		}
		s := series{name: d.name, class: d.class, step: true}
		for k := lo; k <= hi; k++ {
			y := math.NaN()
			if n := counts[k]; n > 0 {
				y = 100 * float64(n) / float64(total)
			}
			s.xs = append(s.xs, math.Pow(10, float64(k)/binsPerDecade))
			s.ys = append(s.ys, y)
		}
		// The last bin's right edge closes the step.
		s.xs = append(s.xs, math.Pow(10, float64(hi+1)/binsPerDecade))
		s.ys = append(s.ys, s.ys[len(s.ys)-1])
		c.lines = append(c.lines, s)
	}
	return c
}

// exceedancePcts are the percentiles marked on an exceedance plot.
var exceedancePcts = []struct {
	p     float64 // 1 - percentile/100
	label string
}{{0.5, "p50"}, {0.1, "p90"}, {0.01, "p99"}, {1e-3, "p99.9"}, {1e-4, "p99.99"}, {1e-5, "p99.999"}}

// exceedanceChart draws P(latency > x) against x on log axes: the
// percentiles read off where a line crosses the dotted p-lines, and a
// tail that bends away shows at once.
func exceedanceChart(id, title string, ds []dist) *chart {
	c := &chart{id: id, title: title,
		x: axis{label: "latency", kind: kindNS, log: true},
		y: axis{label: "P(clat > x)", kind: kindProb, log: true}}
	lowest := 1.0
	for _, d := range ds {
		total := d.count()
		if total == 0 {
			continue
		}
		s := series{name: d.name, class: d.class}
		var cum uint64
		for i, b := range d.bins {
			if i == 0 {
				// Everything is slower than just below the first value.
				s.xs = append(s.xs, math.Max(float64(b.Value)*0.99, 1))
				s.ys = append(s.ys, 1)
			}
			cum += b.Count
			p := float64(total-cum) / float64(total)
			if p <= 0 {
				break
			}
			s.xs = append(s.xs, float64(b.Value))
			s.ys = append(s.ys, p)
			lowest = math.Min(lowest, p)
		}
		c.lines = append(c.lines, s)
	}
	c.y.min, c.y.max = math.Max(math.Min(lowest, 1e-5), 1e-7), 1
	for _, e := range exceedancePcts {
		c.hlines = append(c.hlines, mark{x: e.p, label: e.label})
	}
	return c
}
