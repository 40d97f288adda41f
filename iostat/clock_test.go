package iostat

import (
	"testing"
	"time"
)

func TestMonotonicNow(t *testing.T) {
	start, m0 := time.Now(), monotonicNow()
	time.Sleep(20 * time.Millisecond)
	m1, wall := monotonicNow(), time.Since(start)
	if m0 <= 0 || m1 <= m0 {
		t.Fatalf("CLOCK_MONOTONIC %v then %v", m0, m1)
	}
	if d := (m1 - m0) - wall; d.Abs() > 5*time.Millisecond {
		t.Errorf("CLOCK_MONOTONIC advanced %v, Go's monotonic clock %v", m1-m0, wall)
	}
	up, err := DefaultFS().Uptime()
	if err != nil {
		t.Skip(err)
	}
	// /proc/uptime is CLOCK_BOOTTIME: equal to CLOCK_MONOTONIC unless
	// the machine slept, and never behind it.
	if u := time.Duration(up) * 10 * time.Millisecond; u < m1-20*time.Millisecond {
		t.Errorf("uptime %v behind CLOCK_MONOTONIC %v", u, m1)
	}
}

func TestElapsedFromMonotonic(t *testing.T) {
	t0 := time.Now()
	a := Snapshot{Time: t0, Monotonic: 10 * time.Second, Uptime: 1000}
	b := Snapshot{Time: t0.Add(time.Hour), Monotonic: 12 * time.Second, Uptime: 1200}
	d := NewDelta(a, b)
	if d.Elapsed != 2*time.Second || len(d.Notes) != 0 {
		t.Errorf("Elapsed %v notes %v: want 2s from CLOCK_MONOTONIC, no note", d.Elapsed, d.Notes)
	}
}
