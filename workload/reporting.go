package workload

import (
	"fmt"
	"strconv"
)

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

func (u UnifiedRW) String() string {
	if int(u) < len(unifiedNames) {
		return unifiedNames[u]
	}
	return "UnifiedRW(" + strconv.Itoa(int(u)) + ")"
}

// validateReporting checks the reporting options; it returns the fio
// option at fault and why, or "".
func (j *Job) validateReporting() (option, reason string) {
	switch {
	case j.UnifiedRW >= NumUnifiedRW:
		return "unified_rw_reporting", fmt.Sprintf("invalid UnifiedRW %d", j.UnifiedRW)
	case j.Logs.AvgMsec < 0:
		return "log_avg_msec", fmt.Sprintf("negative (%d)", j.Logs.AvgMsec)
	}
	if opt, reason := j.CmdPrio.validate(j.Engine); opt != "" {
		return opt, reason
	}
	for _, o := range [...]struct{ k, v string }{{"write_lat_log", j.Logs.Lat}, {"write_bw_log", j.Logs.BW}, {"write_iops_log", j.Logs.IOPS}} {
		if r := checkValue(o.v); r != "" {
			return o.k, r
		}
	}
	return "", ""
}
