package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateReporting checks the reporting options; it returns the fio
// option at fault and why, or "".
func validateReporting(j *workload.Job) (option, reason string) {
	switch {
	case j.UnifiedRW >= workload.NumUnifiedRW:
		return "unified_rw_reporting", fmt.Sprintf("invalid UnifiedRW %d", j.UnifiedRW)
	case j.Logs.AvgMsec < 0:
		return "log_avg_msec", fmt.Sprintf("negative (%d)", j.Logs.AvgMsec)
	}
	if opt, reason := validateCmdPrio(&j.CmdPrio, j.Engine); opt != "" {
		return opt, reason
	}
	for _, o := range [...]struct{ k, v string }{{"write_lat_log", j.Logs.Lat}, {"write_bw_log", j.Logs.BW}, {"write_iops_log", j.Logs.IOPS}} {
		if r := checkValue(o.v); r != "" {
			return o.k, r
		}
	}
	return "", ""
}
