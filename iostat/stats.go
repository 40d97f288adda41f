package iostat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrParse marks input that is not a well-formed /proc/diskstats, block
// device stat or /proc/uptime file. Errors wrapping it name the file, the
// line and the field.
var ErrParse = errors.New("malformed stat data")

// Field counts the kernel has used. In /proc/diskstats a line holds
// major, minor and name before the counters, so its field count is the
// counter count plus 3 (14, 18 or 20 fields).
const (
	// FieldsPartOld is the counter count of partitions on kernels before
	// 2.6.25: read I/Os, read sectors, write I/Os, write sectors only.
	FieldsPartOld = 4
	// FieldsBasic: the 11 counters of every kernel since 2.6.
	FieldsBasic = 11
	// FieldsDiscard: discard counters added in kernel 4.18.
	FieldsDiscard = 15
	// FieldsFlush: flush counters added in kernel 5.5.
	FieldsFlush = 17
)

// IOStats are the counters of one block device or partition as the kernel
// exports them in /proc/diskstats and /sys/block/<dev>/stat (see the
// kernel's Documentation/admin-guide/iostats.rst). Names follow the
// kernel's documentation in Go case.
//
// Each counter is kept as read. The kernel keeps I/O, merge and sector
// counts in unsigned long (64 bits on 64-bit kernels, 32 bits on 32-bit
// ones) and times in unsigned int milliseconds, which wrap after 49.7
// days; Diff applies those widths.
type IOStats struct {
	ReadIOs     uint64 // read requests completed
	ReadMerges  uint64 // read requests merged into a queued one
	ReadSectors uint64 // 512-byte sectors read
	ReadTicks   uint64 // ms spent by all reads, from submission to completion

	WriteIOs     uint64 // write requests completed
	WriteMerges  uint64 // write requests merged into a queued one
	WriteSectors uint64 // 512-byte sectors written
	WriteTicks   uint64 // ms spent by all writes

	IOsInProgress uint64 // requests in flight now (a gauge, not a counter)
	IOTicks       uint64 // ms during which at least one request was in flight ("busy")
	TimeInQueue   uint64 // ms, weighted: each ms counts once per request in flight

	DiscardIOs     uint64 // discard requests completed (kernel >= 4.18)
	DiscardMerges  uint64 // discard requests merged
	DiscardSectors uint64 // 512-byte sectors discarded
	DiscardTicks   uint64 // ms spent by all discards

	FlushIOs   uint64 // flush requests completed (kernel >= 5.5)
	FlushTicks uint64 // ms spent by all flushes

	// Fields is how many counters the kernel gave: 4 (old partitions),
	// 11, 15 or 17, or more on a kernel newer than this package, whose
	// extra counters are ignored. Counters beyond Fields are zero
	// because the kernel has none, not because nothing happened.
	Fields int
}

// HasDiscard reports whether the kernel exported the discard counters.
func (s IOStats) HasDiscard() bool { return s.Fields >= FieldsDiscard }

// HasFlush reports whether the kernel exported the flush counters.
func (s IOStats) HasFlush() bool { return s.Fields >= FieldsFlush }

// DiskStat is one line of /proc/diskstats, or one block device's stat
// file with the device's name and numbers.
type DiskStat struct {
	Major, Minor uint32
	// Name as the kernel spells it in /proc/diskstats ("sda1",
	// "cciss/c0d0"); sysfs writes '/' as '!'.
	Name string
	IOStats
}

// counterNames are the kernel's counters in file order, for error
// messages.
var counterNames = [FieldsFlush]string{
	"ReadIOs", "ReadMerges", "ReadSectors", "ReadTicks",
	"WriteIOs", "WriteMerges", "WriteSectors", "WriteTicks",
	"IOsInProgress", "IOTicks", "TimeInQueue",
	"DiscardIOs", "DiscardMerges", "DiscardSectors", "DiscardTicks",
	"FlushIOs", "FlushTicks",
}

// ptrs returns pointers to the counters in file order.
func (s *IOStats) ptrs() [FieldsFlush]*uint64 {
	return [FieldsFlush]*uint64{
		&s.ReadIOs, &s.ReadMerges, &s.ReadSectors, &s.ReadTicks,
		&s.WriteIOs, &s.WriteMerges, &s.WriteSectors, &s.WriteTicks,
		&s.IOsInProgress, &s.IOTicks, &s.TimeInQueue,
		&s.DiscardIOs, &s.DiscardMerges, &s.DiscardSectors, &s.DiscardTicks,
		&s.FlushIOs, &s.FlushTicks,
	}
}

// maxLineBytes bounds one line of input: a real diskstats line is under
// 300 bytes, so anything past 64 KiB is not a stat file.
const maxLineBytes = 64 << 10

// ParseDiskstats parses /proc/diskstats text. name is used in errors
// only ("/proc/diskstats"). Lines have 14, 18 or 20 fields depending on
// the kernel (more are accepted and the extra counters ignored), or 7 for
// partitions on kernels before 2.6.25. Blank lines are skipped. Any other
// line is an error wrapping ErrParse that names the line and field.
func ParseDiskstats(r io.Reader, name string) ([]DiskStat, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	var out []DiskStat
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		ds, err := parseDiskstatsLine(f)
		if err != nil {
			return nil, fmt.Errorf("iostat: parse %s line %d: %w", name, line, err)
		}
		out = append(out, ds)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("iostat: read %s: %w", name, err)
	}
	return out, nil
}

func parseDiskstatsLine(f []string) (DiskStat, error) {
	var ds DiskStat
	n := len(f) - 3
	switch {
	case n == FieldsPartOld, n == FieldsBasic, n == FieldsDiscard, n >= FieldsFlush:
	default:
		return ds, fmt.Errorf("%w: %d fields, want 14, 18 or 20 (or 7 for an old partition)", ErrParse, len(f))
	}
	maj, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return ds, fmt.Errorf("%w: field 1 (major) %q: not a 32-bit unsigned number", ErrParse, f[0])
	}
	minr, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return ds, fmt.Errorf("%w: field 2 (minor) %q: not a 32-bit unsigned number", ErrParse, f[1])
	}
	ds.Major, ds.Minor, ds.Name = uint32(maj), uint32(minr), f[2]
	if err := parseCounters(&ds.IOStats, f[3:], 3); err != nil {
		return ds, err
	}
	return ds, nil
}

// parseCounters fills s from the counter fields; first is how many
// fields precede them on the line, for error messages.
func parseCounters(s *IOStats, f []string, first int) error {
	s.Fields = len(f)
	p := s.ptrs()
	names := counterNames[:]
	if len(f) == FieldsPartOld {
		// Old partitions: rd_ios rd_sectors wr_ios wr_sectors.
		p = [FieldsFlush]*uint64{&s.ReadIOs, &s.ReadSectors, &s.WriteIOs, &s.WriteSectors}
		names = []string{"ReadIOs", "ReadSectors", "WriteIOs", "WriteSectors"}
	}
	for i, v := range f {
		if i >= len(names) {
			break // counters of a newer kernel
		}
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: field %d (%s) %q: not an unsigned 64-bit number", ErrParse, first+i+1, names[i], v)
		}
		*p[i] = u
	}
	return nil
}

// ParseSysStat parses one /sys/block/<dev>/stat or
// /sys/block/<dev>/<part>/stat file: 11, 15 or 17 counters on one line
// (4 for partitions on kernels before 2.6.25; more are accepted and
// ignored). name is used in errors only.
func ParseSysStat(r io.Reader, name string) (IOStats, error) {
	var s IOStats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxLineBytes)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return s, fmt.Errorf("iostat: read %s: %w", name, err)
		}
		return s, fmt.Errorf("iostat: parse %s line 1: %w: empty file", name, ErrParse)
	}
	f := strings.Fields(sc.Text())
	switch n := len(f); {
	case n == FieldsPartOld, n == FieldsBasic, n == FieldsDiscard, n >= FieldsFlush:
	default:
		return s, fmt.Errorf("iostat: parse %s line 1: %w: %d fields, want 11, 15 or 17 (or 4 for an old partition)", name, ErrParse, n)
	}
	if err := parseCounters(&s, f, 0); err != nil {
		return s, fmt.Errorf("iostat: parse %s line 1: %w", name, err)
	}
	for line := 2; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) != "" {
			return s, fmt.Errorf("iostat: parse %s line %d: %w: unexpected text after the counters", name, line, ErrParse)
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("iostat: read %s: %w", name, err)
	}
	return s, nil
}
