package iostat

import (
	"bufio"
	"bytes"
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
	// 11, 15 or 17, more on a kernel newer than this package, or an odd
	// count from a kernel or a file that does not follow the pattern.
	// Counters are used in whole groups, as sysstat uses them: the basic
	// 11, the 4 discard ones, the 2 flush ones; the counters of an
	// incomplete group, and all of them when fewer than 11 were given,
	// are left zero. Counters not filled are zero because the kernel
	// gave none, not because nothing happened.
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
// 300 bytes, so anything past 64 KiB is not a stat file and is skipped.
const maxLineBytes = 64 << 10

// Field counts of a /proc/diskstats line that sysstat reads: major, minor
// and name, then 11 counters at least (or 4 for an old partition).
const (
	diskstatsMinFields     = 3 + FieldsBasic
	diskstatsPartOldFields = 3 + FieldsPartOld
)

// ParseDiskstats parses /proc/diskstats text as sysstat's iostat reads
// it; name is used in notes and errors only. A line of 14 fields or more
// gives a device: its counters are used up to the last complete group the
// kernel gave (11, 15 or 17; a newer kernel's extra counters are data this
// package does not know), and a line of 7 fields is an old partition. Any
// other line (too short to hold the basic counters, a counter that is not
// a number before the basic ones end, longer than 64 KiB) is skipped with
// a NoteSkippedLine note that names it, as iostat skips it. Blank lines
// are skipped silently. Only a failed read is an error.
func ParseDiskstats(r io.Reader, name string) ([]DiskStat, []Note, error) {
	var (
		out   []DiskStat
		notes []Note
	)
	err := eachLine(r, func(line int, text []byte, tooLong bool) {
		if tooLong {
			notes = append(notes, Note{NoteSkippedLine, fmt.Sprintf("%s line %d: longer than %d bytes: skipped", name, line, maxLineBytes)})
			return
		}
		f := strings.Fields(string(text))
		if len(f) == 0 {
			return
		}
		ds, why := parseDiskstatsLine(f)
		if why != "" {
			notes = append(notes, Note{NoteSkippedLine, fmt.Sprintf("%s line %d: %s: skipped", name, line, why)})
			return
		}
		out = append(out, ds)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("iostat: read %s: %w", name, err)
	}
	return out, notes, nil
}

// eachLine calls fn with each line of r (without its newline), numbered
// from 1. A line longer than maxLineBytes is passed as tooLong, without
// its text, and reading goes on after it.
func eachLine(r io.Reader, fn func(line int, text []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, 4096)
	var buf []byte
	tooLong, pending := false, false
	for line := 1; ; {
		chunk, err := br.ReadSlice('\n')
		pending = pending || len(chunk) > 0
		if !tooLong {
			if len(buf)+len(chunk) > maxLineBytes+1 /* newline */ {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue // the rest of a line longer than the buffer
		}
		if err != nil && err != io.EOF {
			return err
		}
		if pending {
			fn(line, bytes.TrimRight(buf, "\r\n"), tooLong)
			line++
		}
		buf, tooLong, pending = buf[:0], false, false
		if err == io.EOF {
			return nil
		}
	}
}

// parseDiskstatsLine reads one line's fields, or says why it holds no
// device. Like sysstat's scanf, it reads numbers up to the first field
// that is not one and decides on how many it got.
func parseDiskstatsLine(f []string) (DiskStat, string) {
	var ds DiskStat
	if len(f) < 3 {
		return ds, fmt.Sprintf("%d fields, want 14 or more (or 7 for an old partition)", len(f))
	}
	maj, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return ds, fmt.Sprintf("field 1 (major) %q: not a 32-bit unsigned number", f[0])
	}
	minr, err := strconv.ParseUint(f[1], 10, 32)
	if err != nil {
		return ds, fmt.Sprintf("field 2 (minor) %q: not a 32-bit unsigned number", f[1])
	}
	ds.Major, ds.Minor, ds.Name = uint32(maj), uint32(minr), f[2]
	nums, bad := leadingCounters(f[3:])
	switch n := 3 + len(nums); {
	case n >= diskstatsMinFields, n == diskstatsPartOldFields && bad == -1:
	case bad >= 0:
		return ds, fmt.Sprintf("field %d (%s) %q: not an unsigned number", 3+bad+1, counterName(bad, len(f)-3), f[3+bad])
	default:
		return ds, fmt.Sprintf("%d fields, want 14 or more (or 7 for an old partition)", len(f))
	}
	ds.IOStats = countersFrom(nums)
	return ds, ""
}

// counterName names the i-th counter of a line with n counters.
func counterName(i, n int) string {
	if n == FieldsPartOld {
		return partOldNames[i]
	}
	if i < len(counterNames) {
		return counterNames[i]
	}
	return fmt.Sprintf("counter %d", i+1)
}

var partOldNames = [FieldsPartOld]string{"ReadIOs", "ReadSectors", "WriteIOs", "WriteSectors"}

// leadingCounters parses fields up to the first that is not an unsigned
// number, whose index it returns as bad (-1 when all are numbers). A
// number past 2^64-1 reads as 2^64-1, as C's strtoul gives it.
func leadingCounters(f []string) (nums []uint64, bad int) {
	nums = make([]uint64, 0, len(f))
	for i, v := range f {
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nums, i
		}
		nums = append(nums, u)
	}
	return nums, -1
}

// countersFrom fills IOStats from the counters a kernel gave, in file
// order. sysstat uses the counters of whole groups only: 4 (old
// partitions), the basic 11, the 4 discard ones (15) and the 2 flush
// ones (17); the counters of an incomplete group, and fewer than 11, are
// left zero. Fields records how many were given.
func countersFrom(nums []uint64) IOStats {
	var s IOStats
	s.Fields = len(nums)
	if len(nums) == FieldsPartOld {
		s.ReadIOs, s.ReadSectors, s.WriteIOs, s.WriteSectors = nums[0], nums[1], nums[2], nums[3]
		return s
	}
	use := 0
	switch n := len(nums); {
	case n >= FieldsFlush:
		use = FieldsFlush
	case n >= FieldsDiscard:
		use = FieldsDiscard
	case n >= FieldsBasic:
		use = FieldsBasic
	}
	p := s.ptrs()
	for i := range use {
		*p[i] = nums[i]
	}
	return s
}

// ParseSysStat parses one /sys/block/<dev>/stat or
// /sys/block/<dev>/<part>/stat file as sysstat reads it: numbers up to
// the first that is not one, used in whole groups (see IOStats.Fields).
// A file with fewer than 11 numbers (and not the 4 of an old partition)
// gives zero counters, as iostat shows it; sanity notes on a delta say
// so. Text after the numbers is ignored. name is used in errors only;
// only a failed read is an error.
func ParseSysStat(r io.Reader, name string) (IOStats, error) {
	var s IOStats
	err := eachLine(r, func(line int, text []byte, tooLong bool) {
		if line != 1 || tooLong {
			return
		}
		nums, _ := leadingCounters(strings.Fields(string(text)))
		s = countersFrom(nums)
	})
	if err != nil {
		return IOStats{}, fmt.Errorf("iostat: read %s: %w", name, err)
	}
	return s, nil
}
