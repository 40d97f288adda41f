package workload

import "stortest.dev/internal/enum"

// UnifiedRW is fio's unified_rw_reporting: whether a job's reads, writes
// and trims are reported apart, summed into one "mixed" direction, or
// both.
type UnifiedRW uint8

const (
	UnifiedNone  UnifiedRW = iota // read, write, trim apart (fio's default, "none" or 0)
	UnifiedMixed                  // one "mixed" direction only ("mixed" or 1)
	UnifiedBoth                   // read, write, trim and then "mixed" ("both" or 2)
)

var unifiedNames = [...]string{"none", "mixed", "both"}

// NumUnifiedRW is one more than the last UnifiedRW.
const NumUnifiedRW = UnifiedRW(len(unifiedNames))

func (u UnifiedRW) String() string { return enum.Name(unifiedNames[:], u, "UnifiedRW") }
