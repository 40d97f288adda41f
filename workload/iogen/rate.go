package iogen

import (
	"math"
	"math/bits"
	"time"

	"stortest.dev/workload"
)

// Pacer paces I/O to fio's rate and rate_iops limits the way fio's linear
// rate process does: the n-th I/O of a direction may be issued once the
// time since Start covers the I/Os (rate_iops) or bytes (rate) issued
// before it at the target rate. The schedule is absolute, so a direction
// that fell behind (a slow device, a stall) catches up at full speed until
// it is back on schedule, as fio does.
//
// Times are ns readings of one monotonic clock (the clock package's
// Now). The Pacer never sleeps and allocates nothing: it says how long to
// wait, and the runner waits.
type Pacer struct {
	start   int64
	started bool
	iops    [3]uint64 // per direction; 0: no limit
	bps     [3]uint64
	ios     [3]uint64 // issued since Start
	bytes   [3]uint64
	poisson *poissonGaps // rate_process=poisson; nil: linear
}

// NewPacer returns a pacer for the per-direction (read, write, trim)
// limits: I/Os per second and bytes per second, 0 for none. Where both are
// set for a direction, both hold.
func NewPacer(rateIOPS [3]int, rate [3]int64) Pacer {
	var p Pacer
	for d := range 3 {
		p.iops[d] = uint64(max(rateIOPS[d], 0))
		p.bps[d] = uint64(max(rate[d], 0))
	}
	return p
}

// NewJobPacer returns the pacer of job j's RateIOPS and Rate.
func NewJobPacer(j *workload.Job) Pacer { return NewPacer(j.RateIOPS, j.Rate) }

// Enabled reports whether any limit is set.
func (p *Pacer) Enabled() bool { return p.iops != [3]uint64{} || p.bps != [3]uint64{} }

// Limited reports whether direction d has a limit.
func (p *Pacer) Limited(d workload.Dir) bool {
	return d >= 0 && int(d) < 3 && (p.iops[d] != 0 || p.bps[d] != 0)
}

// Start (re)starts the schedule at now and forgets what was issued. fio
// starts it when the job starts, ramp time included. Wait and Choose start
// it at their first call if Start was not called.
func (p *Pacer) Start(now int64) {
	*p = Pacer{start: now, started: true, iops: p.iops, bps: p.bps, poisson: p.poisson}
	if p.poisson != nil {
		p.poisson.restart()
	}
}

// Wait returns how long to wait before the next I/O in direction d may be
// issued at now: 0 when it may go now.
func (p *Pacer) Wait(d workload.Dir, now int64) time.Duration {
	if !p.started {
		p.Start(now)
	}
	if !p.Limited(d) {
		return 0
	}
	due := p.due(d)
	if due <= now {
		return 0
	}
	return time.Duration(due - now)
}

// due returns the ns time at which direction d's next I/O is due.
func (p *Pacer) due(d workload.Dir) int64 {
	if p.poisson != nil {
		return satAdd(p.start, p.poisson.next[d])
	}
	var after uint64
	if r := p.iops[d]; r != 0 {
		after = max(after, scaleNs(p.ios[d], r))
	}
	if r := p.bps[d]; r != 0 {
		after = max(after, scaleNs(p.bytes[d], r))
	}
	if after > uint64(math.MaxInt64-p.start) {
		return math.MaxInt64
	}
	return p.start + int64(after)
}

// scaleNs returns n*1e9/rate without overflow (128-bit product),
// saturating at MaxInt64.
func scaleNs(n, rate uint64) uint64 {
	hi, lo := bits.Mul64(n, uint64(time.Second))
	if hi >= rate {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, rate)
	return min(q, math.MaxInt64)
}

// Choose picks the direction of the next I/O of a job whose mix drew d,
// as fio does for mixed jobs: d if it is on schedule; else, when switch
// is allowed (the job is mixed and the other direction has a share of the
// mix), the other direction if that one is on schedule; else whichever is
// due first, and how long to wait for it.
func (p *Pacer) Choose(d workload.Dir, now int64, canSwitch bool) (workload.Dir, time.Duration) {
	w := p.Wait(d, now)
	if w == 0 || !canSwitch || (d != workload.DirRead && d != workload.DirWrite) {
		return d, w
	}
	o := workload.DirWrite
	if d == workload.DirWrite {
		o = workload.DirRead
	}
	wo := p.Wait(o, now)
	if wo < w {
		return o, wo
	}
	return d, w
}

// Issued records an I/O of n bytes issued in direction d.
func (p *Pacer) Issued(d workload.Dir, n int64) {
	if d < 0 || int(d) >= 3 {
		return
	}
	p.ios[d]++
	p.bytes[d] += uint64(max(n, 0))
	if p.poisson != nil {
		p.poisson.issued(d, p.gap(d, n))
	}
}

// Unissued takes back an I/O recorded by Issued that the engine refused
// (Busy), so it does not count against the rate.
func (p *Pacer) Unissued(d workload.Dir, n int64) {
	if d < 0 || int(d) >= 3 || p.ios[d] == 0 {
		return
	}
	p.ios[d]--
	p.bytes[d] -= min(uint64(max(n, 0)), p.bytes[d])
	if p.poisson != nil {
		p.poisson.unissued(d)
	}
}
