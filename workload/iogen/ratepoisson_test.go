package iogen

import (
	"math"
	"testing"

	"stortest.dev/workload"
)

// gaps paces n I/Os of size bytes in direction d and returns the gaps
// between them in ns.
func gaps(p *Pacer, c *fakeClock, d workload.Dir, n int, size int64) []float64 {
	out := make([]float64, 0, n)
	last := c.now
	for i := range n {
		c.sleep(p.Wait(d, c.now))
		if i > 0 {
			out = append(out, float64(c.now-last))
		}
		last = c.now
		p.Issued(d, size)
	}
	return out
}

func meanCV(xs []float64) (mean, cv float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / mean
}

// rate_process=poisson keeps the average rate of the linear process but
// spaces I/Os by exponential gaps: mean 1/rate, coefficient of variation
// 1 (the linear process's is 0), a few zero-length gaps' worth of short
// ones, and the same draws for the same seed.
func TestPacerPoisson(t *testing.T) {
	c := &fakeClock{now: 5e12}
	p := NewPacer([3]int{1000, 0, 0}, [3]int64{})
	p.SetPoisson(42)
	p.Start(c.now)
	g := gaps(&p, c, workload.DirRead, 20001, 4096)
	mean, cv := meanCV(g)
	// 20000 exponential gaps: the mean is within 3% of 1 ms (its standard
	// error is 0.7%), the CV within 5% of 1.
	if math.Abs(mean-1e6) > 0.03e6 {
		t.Errorf("mean gap %.0f ns, want 1e6 within 3%%", mean)
	}
	if math.Abs(cv-1) > 0.05 {
		t.Errorf("gaps' coefficient of variation %.3f, want 1 (exponential)", cv)
	}
	// P(gap < mean/10) = 1 - e^-0.1 = 9.5%.
	short := 0
	for _, x := range g {
		if x < 0.1e6 {
			short++
		}
	}
	if frac := float64(short) / float64(len(g)); math.Abs(frac-0.095) > 0.01 {
		t.Errorf("%.3f of gaps under a tenth of the mean, want 0.095", frac)
	}
	// Start replays the same draws; the linear process's gaps are equal.
	p.Start(c.now)
	again := gaps(&p, c, workload.DirRead, 101, 4096)
	for i := range again {
		if again[i] != g[i] {
			t.Fatalf("gap %d after Start is %v, was %v: not repeatable", i, again[i], g[i])
		}
	}
	lin := NewPacer([3]int{1000, 0, 0}, [3]int64{})
	lin.Start(c.now)
	if _, cv := meanCV(gaps(&lin, c, workload.DirRead, 1001, 4096)); cv != 0 {
		t.Errorf("linear gaps' CV %v, want 0", cv)
	}
}

// With a bandwidth limit the mean gap follows the bytes; Unissued takes
// back the last draw, so a refused I/O does not move the schedule.
func TestPacerPoissonBandwidthAndUnissued(t *testing.T) {
	c := &fakeClock{}
	p := NewPacer([3]int{}, [3]int64{0, 1 << 20, 0}) // 1 MiB/s of writes
	p.SetPoisson(7)
	p.Start(c.now)
	mean, _ := meanCV(gaps(&p, c, workload.DirWrite, 10001, 64<<10)) // 64 KiB: 62.5 ms apart on average
	if want := 62.5e6; math.Abs(mean-want) > 0.03*want {
		t.Errorf("mean gap %.0f ns, want %.0f within 3%%", mean, want)
	}
	w0 := p.Wait(workload.DirWrite, c.now)
	p.Issued(workload.DirWrite, 64<<10)
	p.Unissued(workload.DirWrite, 64<<10)
	if w := p.Wait(workload.DirWrite, c.now); w != w0 {
		t.Errorf("wait after Issued+Unissued %v, want %v", w, w0)
	}
	if n := testing.AllocsPerRun(100, func() {
		p.Wait(workload.DirWrite, c.now)
		p.Issued(workload.DirWrite, 4096)
	}); n != 0 {
		t.Errorf("%v allocations per paced I/O", n)
	}
}
