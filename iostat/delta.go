package iostat

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Delta is what happened between two snapshots.
type Delta struct {
	Prev, Curr time.Time
	// Elapsed is the monotonic time between the snapshots: from their
	// Monotonic readings, else from Time (zero when either is missing,
	// as for the zero snapshot).
	Elapsed time.Duration
	// Interval is in hundredths of a second and is what rates are
	// divided by, as sysstat does: the difference of /proc/uptime, or
	// the interval given to NewDeltaInterval. Never zero. When the
	// uptime went backwards it wraps as sysstat's unsigned difference
	// does, so rates read 0 (NoteUptimeBackwards).
	Interval uint64
	Disks    []DiskDelta
	// CPU is the avg-cpu report over the same interval, from the
	// snapshots' /proc/stat readings; nil when either lacks one (a
	// snapshot from Zero counts as boot).
	CPU *AvgCPU
	// Notes on the pair as a whole (e.g. uptime and monotonic clock
	// disagreeing).
	Notes []Note
}

// DiskDelta is one device's counters over a Delta, with the raw counters
// kept beside the figures derived from them (Ext, Basic).
type DiskDelta struct {
	Major, Minor uint32
	Name         string
	// Prev and Curr are the counters as read. Prev is zero when the
	// device is New or was Reset.
	Prev, Curr IOStats
	// Diff is Curr - Prev the way the kernel's and sysstat's types wrap:
	// counts and sectors modulo 2^64, the ms times (ReadTicks,
	// WriteTicks, DiscardTicks, FlushTicks, IOTicks, TimeInQueue)
	// modulo 2^32. IOsInProgress is Curr's gauge, not a difference.
	// Fields is Curr's.
	Diff IOStats
	// Interval in hundredths of a second (the Delta's).
	Interval uint64
	// New: the device was not in the earlier snapshot, so it is
	// counted from zero (sysstat does the same).
	New bool
	// Reset: its counters went backwards (removed and re-added, or
	// reset), so it is counted from zero as a new device, by sysstat's
	// rule: fewer I/Os than before and every sector count that was
	// non-zero lower than before.
	Reset bool
	Notes []Note
}

// Zero is the snapshot at boot: no devices, uptime zero. A delta from
// Zero covers the time since boot, like the first report of iostat.
var Zero = Snapshot{Source: FromDiskstats}

// NewDelta returns the delta between two snapshots, with rates over the
// difference of their /proc/uptime readings. Devices are listed in
// curr's order; a device missing from curr is left out (sysstat skips
// devices that disappeared). Snapshots whose uptime runs backwards (a
// reboot between them, or swapped arguments) give a delta whose rates
// read 0, as iostat prints them, with a NoteUptimeBackwards note.
func NewDelta(prev, curr Snapshot) Delta {
	d := newDelta(prev, curr, curr.Uptime-prev.Uptime) // wraps as sysstat's does
	if curr.Uptime < prev.Uptime {
		d.Notes = append(d.Notes, Note{NoteUptimeBackwards, fmt.Sprintf(
			"uptime went backwards from %d.%02d s to %d.%02d s (a reboot, or snapshots out of order): rates read 0",
			prev.Uptime/100, prev.Uptime%100, curr.Uptime/100, curr.Uptime%100)})
		return d
	}
	if d.Elapsed > 0 && prev.Uptime > 0 {
		// Both intervals measure the same span; a gap of more than 5%
		// (and more than the 10 ms uptime resolution) means the uptime
		// was not read where the counters were, or a clock misbehaves.
		up := time.Duration(d.Interval) * 10 * time.Millisecond
		gap := (up - d.Elapsed).Abs()
		if gap > 20*time.Millisecond && float64(gap) > 0.05*float64(d.Elapsed) {
			d.Notes = append(d.Notes, Note{NoteIntervalSkew,
				fmt.Sprintf("uptime interval %v but monotonic clock %v", up, d.Elapsed)})
		}
	}
	return d
}

// NewDeltaInterval returns the delta between two snapshots over a given
// interval, for counters saved without an uptime reading. The interval
// is rounded to the hundredth of a second sysstat works in.
func NewDeltaInterval(prev, curr Snapshot, interval time.Duration) (Delta, error) {
	if interval <= 0 {
		return Delta{}, fmt.Errorf("iostat: interval %v: must be positive", interval)
	}
	cs := uint64(math.Round(float64(interval) / float64(10*time.Millisecond)))
	return newDelta(prev, curr, cs), nil
}

func newDelta(prev, curr Snapshot, itv uint64) Delta {
	if itv == 0 {
		itv = 1 // sysstat's guard against dividing by zero
	}
	d := Delta{Prev: prev.Time, Curr: curr.Time, Interval: itv, Notes: slices.Clone(curr.Notes)}
	if curr.CPU.Fields > 0 && (prev.CPU.Fields > 0 || prev.Uptime == 0) {
		c := NewAvgCPU(prev.CPU, curr.CPU)
		d.CPU = &c
	}
	switch {
	case prev.Monotonic > 0 && curr.Monotonic > 0:
		d.Elapsed = curr.Monotonic - prev.Monotonic
	case !prev.Time.IsZero() && !curr.Time.IsZero():
		d.Elapsed = curr.Time.Sub(prev.Time)
	}
	old := make(map[string]IOStats, len(prev.Disks))
	for _, p := range prev.Disks {
		old[p.Name] = p.IOStats
	}
	d.Disks = make([]DiskDelta, 0, len(curr.Disks))
	// From boot (Zero) every device is new; that needs no note.
	boot := prev.Uptime == 0 && len(prev.Disks) == 0
	for _, c := range curr.Disks {
		p, ok := old[c.Name]
		dd := diskDelta(c, p, !ok, itv)
		if boot {
			dd.Notes = slices.DeleteFunc(dd.Notes, func(n Note) bool { return n.Kind == NoteNew })
		}
		d.Disks = append(d.Disks, dd)
	}
	return d
}

func diskDelta(c DiskStat, p IOStats, isNew bool, itv uint64) DiskDelta {
	dd := DiskDelta{Major: c.Major, Minor: c.Minor, Name: c.Name, Curr: c.IOStats, Interval: itv, New: isNew}
	if isNew {
		dd.Notes = append(dd.Notes, Note{NoteNew, "not in the earlier snapshot: counted from zero"})
	} else {
		if wasReset(p, c.IOStats) {
			dd.Reset = true
			dd.Notes = append(dd.Notes, Note{NoteReset, "counters went backwards: counted from zero as a new device"})
			p = IOStats{}
		} else if p.Fields != c.Fields {
			dd.Notes = append(dd.Notes, Note{NoteFieldsChanged,
				fmt.Sprintf("field count changed from %d to %d", p.Fields, c.Fields)})
		}
		dd.Prev = p
	}
	dd.Diff = diff(dd.Prev, dd.Curr)
	dd.Notes = append(dd.Notes, sanity(dd)...)
	return dd
}

// wasReset is sysstat's test for a device removed and inserted again.
func wasReset(p, c IOStats) bool {
	ios := func(s IOStats) uint64 { return s.ReadIOs + s.WriteIOs + s.DiscardIOs + s.FlushIOs }
	lower := func(pv, cv uint64) bool { return pv == 0 || cv < pv }
	return ios(c) < ios(p) &&
		lower(p.ReadSectors, c.ReadSectors) &&
		lower(p.WriteSectors, c.WriteSectors) &&
		lower(p.DiscardSectors, c.DiscardSectors)
}

// sub32 subtracts ms times the way the kernel's unsigned int wraps.
func sub32(c, p uint64) uint64 { return uint64(uint32(c) - uint32(p)) }

func diff(p, c IOStats) IOStats {
	return IOStats{
		ReadIOs: c.ReadIOs - p.ReadIOs, ReadMerges: c.ReadMerges - p.ReadMerges,
		ReadSectors: c.ReadSectors - p.ReadSectors, ReadTicks: sub32(c.ReadTicks, p.ReadTicks),
		WriteIOs: c.WriteIOs - p.WriteIOs, WriteMerges: c.WriteMerges - p.WriteMerges,
		WriteSectors: c.WriteSectors - p.WriteSectors, WriteTicks: sub32(c.WriteTicks, p.WriteTicks),
		IOsInProgress: c.IOsInProgress,
		IOTicks:       sub32(c.IOTicks, p.IOTicks), TimeInQueue: sub32(c.TimeInQueue, p.TimeInQueue),
		DiscardIOs: c.DiscardIOs - p.DiscardIOs, DiscardMerges: c.DiscardMerges - p.DiscardMerges,
		DiscardSectors: c.DiscardSectors - p.DiscardSectors, DiscardTicks: sub32(c.DiscardTicks, p.DiscardTicks),
		FlushIOs: c.FlushIOs - p.FlushIOs, FlushTicks: sub32(c.FlushTicks, p.FlushTicks),
		Fields: c.Fields,
	}
}

// Disk returns the named device's delta.
func (d Delta) Disk(name string) (DiskDelta, bool) {
	for _, dd := range d.Disks {
		if dd.Name == name {
			return dd, true
		}
	}
	return DiskDelta{}, false
}
