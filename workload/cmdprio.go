package workload

import (
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

// PrioStats are one priority's latencies in one direction.
type PrioStats struct {
	Class, Level int
	Clat, Lat    *latency.Histogram
}
