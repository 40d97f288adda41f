package iogen

import (
	"math"
	"testing"
	"time"

	"stortest.dev/workload"
)

// fakeClock is a monotonic ns clock the test advances by hand.
type fakeClock struct{ now int64 }

func (c *fakeClock) sleep(d time.Duration) { c.now += int64(d) }

// startedPacer is NewPacer(rateIOPS, rate) started at time 0 of a fake
// clock.
func startedPacer(rateIOPS [3]int, rate [3]int64) (*fakeClock, Pacer) {
	c := &fakeClock{}
	p := NewPacer(rateIOPS, rate)
	p.Start(c.now)
	return c, p
}

// pace issues n I/Os of size bytes in direction d, sleeping as the pacer
// says, and returns the elapsed fake time.
func pace(p *Pacer, c *fakeClock, d workload.Dir, n int, size int64) time.Duration {
	start := c.now
	for range n {
		c.sleep(p.Wait(d, c.now))
		if w := p.Wait(d, c.now); w != 0 {
			panic("still waiting after the advised sleep")
		}
		p.Issued(d, size)
	}
	return time.Duration(c.now - start)
}

func TestPacerIOPS(t *testing.T) {
	c := &fakeClock{now: 1e12}
	p := NewPacer([3]int{1000, 0, 0}, [3]int64{})
	p.Start(c.now)
	// 1001 reads at 1000/s: the first goes at once, the last at 1 s.
	if got := pace(&p, c, workload.DirRead, 1001, 4096); got != time.Second {
		t.Errorf("1001 reads at 1000 IOPS took %v, want 1s", got)
	}
	// Writes are not limited.
	if got := pace(&p, c, workload.DirWrite, 1000, 4096); got != 0 {
		t.Errorf("unlimited writes waited %v", got)
	}
	if !p.Enabled() || !p.Limited(workload.DirRead) || p.Limited(workload.DirWrite) || p.Limited(workload.DirTrim) {
		t.Error("Enabled/Limited disagree with the limits")
	}
}

func TestPacerBandwidth(t *testing.T) {
	c, p := startedPacer([3]int{}, [3]int64{0, 1 << 20, 0}) // 1 MiB/s of writes
	// 257 writes of 4 KiB: the 257th is due when 1 MiB has gone, at 1 s.
	if got := pace(&p, c, workload.DirWrite, 257, 4096); got != time.Second {
		t.Errorf("took %v, want 1s", got)
	}
	// Mixed sizes: bytes count, not I/Os. 64 KiB then the next waits 62.5 ms.
	p.Start(c.now)
	p.Issued(workload.DirWrite, 65536)
	if w := p.Wait(workload.DirWrite, c.now); w != 62500*time.Microsecond {
		t.Errorf("after 64 KiB at 1 MiB/s: wait %v, want 62.5ms", w)
	}
}

func TestPacerCatchUp(t *testing.T) {
	// The schedule is absolute: after a stall the pacer lets I/O through
	// at once until it is back on schedule, as fio's does.
	c, p := startedPacer([3]int{100, 0, 0}, [3]int64{})
	p.Issued(workload.DirRead, 512)
	c.sleep(500 * time.Millisecond) // a stall: 50 I/Os behind
	burst := 0
	for p.Wait(workload.DirRead, c.now) == 0 {
		p.Issued(workload.DirRead, 512)
		burst++
	}
	if burst != 50 {
		t.Errorf("caught up with %d immediate I/Os, want 50", burst)
	}
	if w := p.Wait(workload.DirRead, c.now); w != 10*time.Millisecond {
		t.Errorf("then waits %v, want 10ms", w)
	}
}

func TestPacerBothLimits(t *testing.T) {
	c, p := startedPacer([3]int{10, 0, 0}, [3]int64{1000, 0, 0}) // both hold
	p.Issued(workload.DirRead, 500)                              // bytes: due at 0.5 s; I/Os: due at 0.1 s
	if w := p.Wait(workload.DirRead, c.now); w != 500*time.Millisecond {
		t.Errorf("wait %v, want 500ms (the stricter limit)", w)
	}
}

func TestPacerChoose(t *testing.T) {
	c, p := startedPacer([3]int{10, 20, 0}, [3]int64{})
	p.Issued(workload.DirRead, 4096)
	// Reads are ahead (next at 100 ms); writes are on schedule: switch.
	if d, w := p.Choose(workload.DirRead, c.now, true); d != workload.DirWrite || w != 0 {
		t.Errorf("Choose = %v, %v; want write, 0", d, w)
	}
	// Without switching, wait for the read.
	if d, w := p.Choose(workload.DirRead, c.now, false); d != workload.DirRead || w != 100*time.Millisecond {
		t.Errorf("Choose without switch = %v, %v; want read, 100ms", d, w)
	}
	p.Issued(workload.DirWrite, 4096)
	// Both ahead: reads due at 100 ms, writes at 50 ms: the earlier wins.
	if d, w := p.Choose(workload.DirRead, c.now, true); d != workload.DirWrite || w != 50*time.Millisecond {
		t.Errorf("Choose = %v, %v; want write, 50ms", d, w)
	}
	if d, w := p.Choose(workload.DirWrite, c.now, true); d != workload.DirWrite || w != 50*time.Millisecond {
		t.Errorf("Choose(write) = %v, %v; want write, 50ms", d, w)
	}
}

func TestPacerUnissued(t *testing.T) {
	c := &fakeClock{}
	p := NewJobPacer(&workload.Job{RateIOPS: [3]int{1, 0, 0}})
	p.Start(c.now)
	p.Issued(workload.DirRead, 4096)
	p.Unissued(workload.DirRead, 4096) // the engine was busy: it did not go
	if w := p.Wait(workload.DirRead, c.now); w != 0 {
		t.Errorf("after Unissued: wait %v, want 0", w)
	}
	p.Unissued(workload.DirRead, 4096) // nothing to take back: no underflow
	p.Issued(workload.DirRead, 4096)
	if w := p.Wait(workload.DirRead, c.now); w != time.Second {
		t.Errorf("wait %v, want 1s", w)
	}
}

func TestPacerLazyStartAndDisabled(t *testing.T) {
	var p Pacer
	if p.Enabled() {
		t.Error("zero Pacer is enabled")
	}
	if w := p.Wait(workload.DirRead, 123); w != 0 {
		t.Errorf("unlimited wait %v", w)
	}
	q := NewPacer([3]int{1, 0, 0}, [3]int64{})
	if w := q.Wait(workload.DirRead, 5e9); w != 0 { // starts the schedule at 5 s
		t.Errorf("first wait %v", w)
	}
	q.Issued(workload.DirRead, 1)
	if w := q.Wait(workload.DirRead, 5e9); w != time.Second {
		t.Errorf("second wait %v, want 1s from the lazy start", w)
	}
}

func TestPacerHuge(t *testing.T) {
	// 128-bit arithmetic: no overflow however many I/Os were issued.
	p := NewPacer([3]int{1, 0, 0}, [3]int64{})
	p.Start(0)
	p.ios[workload.DirRead] = math.MaxUint64 / 2
	if w := p.Wait(workload.DirRead, 0); w != math.MaxInt64 {
		t.Errorf("wait %v, want saturation at MaxInt64", w)
	}
	p.ios[workload.DirRead] = 1 << 30 // 2^30 s ahead: below saturation
	if w := p.Wait(workload.DirRead, 0); w != time.Duration(1<<30)*time.Second {
		t.Errorf("wait %v, want 2^30 s", w)
	}
}

func TestPacerAllocs(t *testing.T) {
	p := NewPacer([3]int{1000, 1000, 0}, [3]int64{})
	p.Start(0)
	now := int64(0)
	if a := testing.AllocsPerRun(1000, func() {
		d, w := p.Choose(workload.DirRead, now, true)
		now += int64(w)
		p.Issued(d, 4096)
	}); a != 0 {
		t.Errorf("Choose+Issued allocate %v times", a)
	}
}
