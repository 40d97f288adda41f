package iogen

import (
	"math"
	"time"

	"stortest.dev/workload"
)

// poissonGaps is the state of fio's rate_process=poisson: each direction's
// next I/O is due an exponentially distributed gap after the one before,
// the gap's mean being what the linear process would leave between the
// two (1/rate_iops, or the I/O's bytes at rate). The due times are
// absolute from the pacer's start, so a direction that fell behind catches
// up, as the linear process does. The draws come from a seeded generator:
// the same job and seed give the same arrivals.
type poissonGaps struct {
	seed, state uint64
	next        [3]int64 // ns after the pacer's start: the next I/O's due time
	prev        [3]int64 // next before the last issued, for unissued
}

// SetPoisson switches the pacer to fio's rate_process=poisson with the
// generator seeded by seed; Start restarts the draws from that seed.
func (p *Pacer) SetPoisson(seed uint64) {
	p.poisson = &poissonGaps{seed: seed}
	p.poisson.restart()
}

func (g *poissonGaps) restart() {
	*g = poissonGaps{seed: g.seed, state: g.seed}
}

// gap is the linear process's gap in ns after an I/O of n bytes in
// direction d: the larger of the IOPS and the bandwidth limit's.
func (p *Pacer) gap(d workload.Dir, n int64) int64 {
	var g uint64
	if r := p.iops[d]; r != 0 {
		g = max(g, scaleNs(1, r))
	}
	if r := p.bps[d]; r != 0 {
		g = max(g, scaleNs(uint64(max(n, 0)), r))
	}
	return int64(min(g, math.MaxInt64/2))
}

// issued moves direction d's due time on by an exponential draw with
// mean gap ns.
func (g *poissonGaps) issued(d workload.Dir, gap int64) {
	g.prev[d] = g.next[d]
	if gap <= 0 {
		return
	}
	// -ln(U) with U uniform in (0, 1]: 53 random bits, never 0.
	u := float64(g.rand()>>11+1) / (1 << 53)
	step := -math.Log(u) * float64(gap)
	g.next[d] = satAdd(g.next[d], int64(min(step, float64(100*365*24*time.Hour))))
}

// unissued takes back the last draw of direction d.
func (g *poissonGaps) unissued(d workload.Dir) { g.next[d] = g.prev[d] }

// rand is splitmix64.
func (g *poissonGaps) rand() uint64 {
	g.state += 0x9e3779b97f4a7c15
	z := g.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// satAdd returns a+b for b >= 0, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}
