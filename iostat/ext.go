package iostat

// Ext holds the figures of sysstat's "iostat -d -x" (12.6) for one device
// over one interval, plus the svctm that sysstat dropped in 12.x. Each is
// computed with sysstat's operations in sysstat's order, so printed with
// two decimals it is the same text iostat prints.
//
// The ms times mix queueing with service: an await is the mean time from
// submission to completion, not the device's service time, and %util is
// the share of time with any request in flight, which says nothing of
// spare capacity on a device that serves requests in parallel (an NVMe
// drive at 100% may take several times the load). Keep the raw counters
// (DiskDelta.Diff) next to these.
type Ext struct {
	RPerS float64 // r/s: reads completed per second
	WPerS float64 // w/s
	DPerS float64 // d/s: discards
	FPerS float64 // f/s: flushes

	RkBPerS float64 // rkB/s: kB (1024 B) read per second
	WkBPerS float64 // wkB/s
	DkBPerS float64 // dkB/s

	RrqmPerS float64 // rrqm/s: read requests merged per second
	WrqmPerS float64 // wrqm/s
	DrqmPerS float64 // drqm/s

	RrqmPct float64 // %rrqm: merged share of read requests, percent
	WrqmPct float64 // %wrqm
	DrqmPct float64 // %drqm

	RAwait float64 // r_await: mean ms per read, queue plus service
	WAwait float64 // w_await
	DAwait float64 // d_await
	FAwait float64 // f_await

	RareqSz float64 // rareq-sz: mean read size, kB
	WareqSz float64 // wareq-sz
	DareqSz float64 // dareq-sz

	AquSz float64 // aqu-sz: mean requests in flight (TimeInQueue / interval)
	Util  float64 // %util: percent of the interval with any request in flight; not capped at 100, as in sysstat
	// Svctm is sysstat's former svctm: busy ms per completed read,
	// write or discard (IOTicks / I/Os). Meaningless on devices that
	// serve requests in parallel; kept because old reports have it.
	Svctm float64
}

// Basic holds the figures of sysstat's "iostat -d" without -x.
type Basic struct {
	TPS      float64 // tps: reads, writes and discards per second
	KBReadPS float64 // kB_read/s
	KBWrtnPS float64 // kB_wrtn/s
	KBDscdPS float64 // kB_dscd/s
	KBRead   uint64  // kB_read over the interval
	KBWrtn   uint64  // kB_wrtn
	KBDscd   uint64  // kB_dscd
}

// perSec is sysstat's S_VALUE: a difference over an interval in
// hundredths of a second, per second. The operation order matters for
// the last bit and so for the rounding to two decimals.
func perSec(d, itv uint64) float64 { return float64(d) / float64(itv) * 100 }

// ratio is x/n, or 0 when n is 0.
func ratio(x float64, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}

// mergePct is the merged share of requests in percent.
func mergePct(merges, ios uint64) float64 {
	if merges+ios == 0 {
		return 0
	}
	return float64(merges) / float64(merges+ios) * 100
}

// Ext computes the extended figures.
func (d DiskDelta) Ext() Ext {
	df, itv := d.Diff, d.Interval
	if itv == 0 {
		itv = 1
	}
	// Flushes are counted as writes by the kernel already, so the I/O
	// total for svctm is reads, writes and discards, as in sysstat.
	nios := df.ReadIOs + df.WriteIOs + df.DiscardIOs
	util := perSec(df.IOTicks, itv) // busy ms per second
	var svctm float64
	if tput := float64(nios) * 100 / float64(itv); tput != 0 {
		svctm = util / tput
	}
	return Ext{
		RPerS: perSec(df.ReadIOs, itv), WPerS: perSec(df.WriteIOs, itv),
		DPerS: perSec(df.DiscardIOs, itv), FPerS: perSec(df.FlushIOs, itv),

		RkBPerS: perSec(df.ReadSectors, itv) / 2, WkBPerS: perSec(df.WriteSectors, itv) / 2,
		DkBPerS: perSec(df.DiscardSectors, itv) / 2,

		RrqmPerS: perSec(df.ReadMerges, itv), WrqmPerS: perSec(df.WriteMerges, itv),
		DrqmPerS: perSec(df.DiscardMerges, itv),

		RrqmPct: mergePct(df.ReadMerges, df.ReadIOs), WrqmPct: mergePct(df.WriteMerges, df.WriteIOs),
		DrqmPct: mergePct(df.DiscardMerges, df.DiscardIOs),

		RAwait: ratio(float64(df.ReadTicks), df.ReadIOs), WAwait: ratio(float64(df.WriteTicks), df.WriteIOs),
		DAwait: ratio(float64(df.DiscardTicks), df.DiscardIOs), FAwait: ratio(float64(df.FlushTicks), df.FlushIOs),

		RareqSz: ratio(float64(df.ReadSectors), df.ReadIOs) / 2,
		WareqSz: ratio(float64(df.WriteSectors), df.WriteIOs) / 2,
		DareqSz: ratio(float64(df.DiscardSectors), df.DiscardIOs) / 2,

		AquSz: perSec(df.TimeInQueue, itv) / 1000.0,
		Util:  util / 10.0,
		Svctm: svctm,
	}
}

// Basic computes the figures of the report without -x. The kB totals
// undo a 32-bit wrap of the sector counts as sysstat does: a count that
// went backwards from below 2^32 is taken modulo 2^32.
func (d DiskDelta) Basic() Basic {
	df, itv := d.Diff, d.Interval
	if itv == 0 {
		itv = 1
	}
	wrap := func(c, p, dv uint64) uint64 {
		if c < p && p <= 0xffffffff {
			return dv & 0xffffffff
		}
		return dv
	}
	return Basic{
		TPS:      perSec(df.ReadIOs+df.WriteIOs+df.DiscardIOs, itv),
		KBReadPS: perSec(df.ReadSectors, itv) / 2,
		KBWrtnPS: perSec(df.WriteSectors, itv) / 2,
		KBDscdPS: perSec(df.DiscardSectors, itv) / 2,
		KBRead:   wrap(d.Curr.ReadSectors, d.Prev.ReadSectors, df.ReadSectors) / 2,
		KBWrtn:   wrap(d.Curr.WriteSectors, d.Prev.WriteSectors, df.WriteSectors) / 2,
		KBDscd:   wrap(d.Curr.DiscardSectors, d.Prev.DiscardSectors, df.DiscardSectors) / 2,
	}
}
