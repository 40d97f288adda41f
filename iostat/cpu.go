package iostat

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// CPUStats is the aggregate "cpu" line of /proc/stat: the time all CPUs
// spent in each mode since boot, in USER_HZ ticks (normally 1/100 s).
// Names follow the kernel's documentation (Documentation/filesystems/
// proc.rst) in Go case. User and Nice include Guest and GuestNice.
type CPUStats struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal, Guest, GuestNice uint64
	// Fields is how many of these the kernel gave (4 before 2.6, 10
	// since 2.6.33); the others are zero. 0 when the file had no "cpu"
	// line.
	Fields int
}

// Total is the ticks sysstat's iostat divides by: every mode but the
// guest ones, which User and Nice hold already. It wraps as sysstat's
// unsigned sum does.
func (s CPUStats) Total() uint64 {
	return s.User + s.Nice + s.System + s.Idle + s.IOWait + s.IRQ + s.Steal + s.SoftIRQ
}

// Busy is Total less the idle and iowait ticks.
func (s CPUStats) Busy() uint64 { return s.Total() - s.Idle - s.IOWait }

// ParseCPUStat reads the "cpu" line of /proc/stat as sysstat does:
// numbers up to the first field that is not one, the rest zero. A file
// without the line gives zero counters (Fields 0), as iostat shows them;
// name is used in errors only, and only a failed read is one.
func ParseCPUStat(r io.Reader, name string) (CPUStats, error) {
	var s CPUStats
	found := false
	err := eachLine(r, func(_ int, text []byte, tooLong bool) {
		if found || tooLong {
			return
		}
		rest, ok := strings.CutPrefix(string(text), "cpu ")
		if !ok {
			return
		}
		found = true
		nums, _ := leadingCounters(strings.Fields(rest))
		p := []*uint64{&s.User, &s.Nice, &s.System, &s.Idle, &s.IOWait, &s.IRQ, &s.SoftIRQ, &s.Steal, &s.Guest, &s.GuestNice}
		s.Fields = min(len(nums), len(p))
		for i := range s.Fields {
			*p[i] = nums[i]
		}
	})
	if err != nil {
		return CPUStats{}, fmt.Errorf("iostat: read %s: %w", name, err)
	}
	return s, nil
}

// CPUStats reads <proc>/stat.
func (f FS) CPUStats() (CPUStats, error) {
	p := f.ProcPath("stat")
	fh, err := os.Open(p)
	if err != nil {
		return CPUStats{}, fmt.Errorf("iostat: %w", err)
	}
	defer fh.Close()
	return ParseCPUStat(fh, p)
}

// AvgCPU is iostat's avg-cpu report: the share of all CPUs' time in each
// mode over an interval, in percent. System includes the time serving
// hard and soft interrupts. A mode whose ticks went backwards (iowait
// may on tickless kernels) reads 0, as in sysstat.
type AvgCPU struct {
	User, Nice, System, IOWait, Steal, Idle float64
}

// NewAvgCPU computes avg-cpu from prev to curr with sysstat 12.6's
// operations, so it prints as iostat prints it. A zero prev gives the
// figures since boot, like iostat's first report.
func NewAvgCPU(prev, curr CPUStats) AvgCPU {
	tot := curr.Total() - prev.Total() // wraps as sysstat's does
	if tot == 0 {
		tot = 1 // sysstat's guard
	}
	pct := func(p, c uint64) float64 {
		if c < p {
			return 0
		}
		return float64(c-p) / float64(tot) * 100
	}
	return AvgCPU{
		User:   pct(prev.User, curr.User),
		Nice:   pct(prev.Nice, curr.Nice),
		System: pct(prev.System+prev.SoftIRQ+prev.IRQ, curr.System+curr.SoftIRQ+curr.IRQ),
		IOWait: pct(prev.IOWait, curr.IOWait),
		Steal:  pct(prev.Steal, curr.Steal),
		Idle:   pct(prev.Idle, curr.Idle),
	}
}
