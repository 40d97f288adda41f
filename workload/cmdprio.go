package workload

import (
	"fmt"

	"stortest.dev/latency"
)

// CmdPrio are fio's per-I/O priority options of the libaio and io_uring
// engines: cmdprio_percentage of the I/Os get priority class
// cmdprio_class (default 1, real time) at level cmdprio (default 0), or,
// with cmdprio_bssplit, a share of the I/Os of each block size gets its
// own class and level. Each has a read and a write value ("r[,w]"). The
// rest keep the thread's priority. Results keep per-priority latencies
// (JobResult.Prios; fio's "prios").
type CmdPrio struct {
	Percentage [2]int         `json:"percentage,omitzero"` // 0-100, read and write
	Class      [2]int         `json:"class,omitzero"`      // 1 real time, 2 best effort, 3 idle; 0 means 1
	Level      [2]int         `json:"level,omitzero"`      // 0-7
	BSSplit    [2][]PrioSplit `json:"bssplit,omitempty"`   // read and write
}

// PrioSplit is one cmdprio_bssplit entry: Percent of the I/Os of Size get
// Class and Level (-1: cmdprio_class's, cmdprio's).
type PrioSplit struct {
	Size    int64 `json:"size"`
	Percent int   `json:"percent"`
	Class   int   `json:"class"`
	Level   int   `json:"level"`
}

// On reports whether any I/O gets a priority.
func (c *CmdPrio) On() bool {
	return c.Percentage != [2]int{} || len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0
}

// IsZero reports whether no cmdprio option is set.
func (c *CmdPrio) IsZero() bool {
	return !c.On() && c.Class == [2]int{} && c.Level == [2]int{}
}

// ioprio makes the kernel's ioprio value.
func IOPrio(class, level int) uint16 { return uint16(class<<13 | level) }

// prioOf returns the class and level of ioprio value p.
func PrioOf(p uint16) (class, level int) { return int(p >> 13), int(p & 0x1fff) }

// validate returns the option at fault and why, or "".
func (c *CmdPrio) validate(engine string) (option, reason string) {
	if c.IsZero() {
		return "", ""
	}
	if engine != "libaio" && engine != "io_uring" {
		return "cmdprio_percentage", "ioengine=" + engine + " does not take the cmdprio options (only libaio, io_uring)"
	}
	for d := range 2 {
		if p := c.Percentage[d]; p < 0 || p > 100 {
			return "cmdprio_percentage", fmt.Sprintf("%d is not a percentage", p)
		}
		if k := c.Class[d]; k < 0 || k > 3 {
			return "cmdprio_class", fmt.Sprintf("class %d is outside [1, 3]", k)
		}
		if l := c.Level[d]; l < 0 || l > 7 {
			return "cmdprio", fmt.Sprintf("level %d is outside [0, 7]", l)
		}
		sums := map[int64]int{}
		for _, s := range c.BSSplit[d] {
			sums[s.Size] += s.Percent
			if sums[s.Size] > 100 {
				return "cmdprio_bssplit", fmt.Sprintf("percentages for %s add up to more than 100", FormatSize(s.Size))
			}
		}
	}
	if c.Percentage != [2]int{} && (len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0) {
		return "cmdprio_bssplit", "cmdprio_percentage and cmdprio_bssplit are mutually exclusive (as in fio)"
	}
	return "", ""
}

// PrioStats are one priority's latencies in one direction.
type PrioStats struct {
	Class, Level int
	Clat, Lat    *latency.Histogram
}
