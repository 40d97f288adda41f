package iostat

import "fmt"

// NoteKind classifies a sanity note on a delta.
type NoteKind int

const (
	// NoteNew: the device was absent from the earlier snapshot.
	NoteNew NoteKind = iota + 1
	// NoteReset: counters went backwards; counted from zero.
	NoteReset
	// NoteFieldsChanged: the two snapshots have different field counts.
	NoteFieldsChanged
	// NoteUtilOver100: %util above 100, i.e. io_ticks grew faster than
	// the interval (uptime and counters read far apart, or a kernel
	// accounting quirk). sysstat prints it uncapped; so does Ext.
	NoteUtilOver100
	// NoteBusyNoIO: busy time (IOTicks) grew but no request completed:
	// requests were stuck in flight for the interval.
	NoteBusyNoIO
	// NoteNoFlush: the kernel has no flush counters (before 5.5), so
	// f/s and f_await read 0 whatever happened.
	NoteNoFlush
	// NoteNoDiscard: the kernel has no discard counters (before 4.18),
	// so d/s, dkB/s, drqm/s, %drqm, d_await and dareq-sz read 0.
	NoteNoDiscard
	// NoteNoExtended: an old-kernel partition with 4 counters only;
	// sysstat leaves it out of the extended report.
	NoteNoExtended
	// NoteBackwards: a 64-bit counter went backwards without the device
	// looking reset (a 32-bit kernel's unsigned long wrapped): its
	// difference wraps modulo 2^64 as in sysstat, so its rates are
	// meaningless.
	NoteBackwards
	// NoteTickWrap: a 32-bit ms time wrapped (every 49.7 days); the
	// difference is taken modulo 2^32 and is right.
	NoteTickWrap
	// NoteIntervalSkew: the uptime interval and the monotonic clock
	// disagree.
	NoteIntervalSkew
	// NoteSkippedLine: a line of /proc/diskstats held no device's
	// counters (too few fields, a field that is not a number before the
	// basic counters end, too long) and was skipped, as iostat skips it.
	NoteSkippedLine
	// NoteShortStat: a stat file had fewer than the 11 basic counters
	// (and not the 4 of an old partition); its counters read as zero, as
	// iostat shows them.
	NoteShortStat
	// NoteUptimeBackwards: /proc/uptime went backwards between the two
	// snapshots (a reboot between them, or snapshots swapped). The
	// interval wraps as sysstat's unsigned one does, so every rate reads
	// 0.00 as in iostat; the figures mean nothing.
	NoteUptimeBackwards
	// NoteMissing: a named device was not found in this snapshot (it
	// went away, or never existed); iostat leaves it out and goes on.
	NoteMissing
)

var noteNames = [...]string{
	NoteNew: "new", NoteReset: "reset", NoteFieldsChanged: "fields-changed",
	NoteUtilOver100: "util-over-100", NoteBusyNoIO: "busy-no-io",
	NoteNoFlush: "no-flush-fields", NoteNoDiscard: "no-discard-fields",
	NoteNoExtended: "no-extended-fields", NoteBackwards: "counter-backwards",
	NoteTickWrap: "tick-wrap", NoteIntervalSkew: "interval-skew",
	NoteSkippedLine: "skipped-line", NoteShortStat: "short-stat",
	NoteUptimeBackwards: "uptime-backwards", NoteMissing: "missing",
}

func (k NoteKind) String() string {
	if k > 0 && int(k) < len(noteNames) {
		return noteNames[k]
	}
	return fmt.Sprintf("NoteKind(%d)", int(k))
}

// Note is one sanity remark on a delta: something a reader of the
// derived figures should know before trusting them.
type Note struct {
	Kind NoteKind
	Text string
}

func (n Note) String() string { return n.Kind.String() + ": " + n.Text }

// HasNote reports whether the delta carries a note of kind k.
func (d DiskDelta) HasNote(k NoteKind) bool {
	for _, n := range d.Notes {
		if n.Kind == k {
			return true
		}
	}
	return false
}

func sanity(d DiskDelta) []Note {
	var out []Note
	c, p, df := d.Curr, d.Prev, d.Diff
	switch {
	case c.Fields == FieldsPartOld:
		out = append(out, Note{NoteNoExtended, "partition with 4 counters (kernel < 2.6.25): no extended statistics"})
	case c.Fields < FieldsBasic:
		out = append(out, Note{NoteShortStat, fmt.Sprintf("%d counters, fewer than the 11 basic ones: all read as zero", c.Fields)})
	case c.Fields == FieldsBasic:
		out = append(out, Note{NoteNoDiscard, "kernel gives 11 counters: no discard or flush counters"})
	case c.Fields < FieldsDiscard:
		out = append(out, Note{NoteNoDiscard, fmt.Sprintf("kernel gives %d counters, an incomplete discard group: only the first 11 are used", c.Fields)})
	case c.Fields == FieldsDiscard:
		out = append(out, Note{NoteNoFlush, "kernel gives 15 counters: no flush counters"})
	case c.Fields < FieldsFlush:
		out = append(out, Note{NoteNoFlush, fmt.Sprintf("kernel gives %d counters, an incomplete flush group: only the first 15 are used", c.Fields)})
	}
	if !d.New && !d.Reset {
		cp, pp := c.ptrs(), p.ptrs()
		for i, name := range counterNames {
			switch name {
			case "IOsInProgress":
				continue
			case "ReadTicks", "WriteTicks", "IOTicks", "TimeInQueue", "DiscardTicks", "FlushTicks":
				if uint32(*cp[i]) < uint32(*pp[i]) {
					out = append(out, Note{NoteTickWrap, fmt.Sprintf("%s wrapped at 2^32 ms (%d -> %d)", name, *pp[i], *cp[i])})
				}
			default:
				if *cp[i] < *pp[i] {
					out = append(out, Note{NoteBackwards, fmt.Sprintf("%s went backwards (%d -> %d): its rates are meaningless", name, *pp[i], *cp[i])})
				}
			}
		}
	}
	if u := d.Ext().Util; u > 100 {
		out = append(out, Note{NoteUtilOver100, fmt.Sprintf("%%util %.2f: busy time exceeds the interval", u)})
	}
	if df.IOTicks > 0 && df.ReadIOs+df.WriteIOs+df.DiscardIOs+df.FlushIOs == 0 {
		out = append(out, Note{NoteBusyNoIO, fmt.Sprintf("busy %d ms with no request completed (%d in flight)", df.IOTicks, c.IOsInProgress)})
	}
	return out
}
