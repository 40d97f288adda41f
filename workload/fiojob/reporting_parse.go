package fiojob

import (
	"fmt"
	"strconv"

	"stortest.dev/workload"
)

// reportingString is the job-file text of the reporting options not at
// their default, in the option table's order.
func reportingString(j *workload.Job) string {
	var b jobText
	b.unflag("clat_percentiles", j.NoClatPercentiles)
	if j.UnifiedRW != workload.UnifiedNone {
		b.kv("unified_rw_reporting", j.UnifiedRW.String())
	}
	b.flag("group_reporting", j.GroupReporting)
	l := j.Logs
	b.str("write_lat_log", l.Lat)
	b.str("write_bw_log", l.BW)
	b.str("write_iops_log", l.IOPS)
	b.num("log_avg_msec", int64(l.AvgMsec), 0)
	b.flag("log_offset", l.Offset)
	b.flag("log_prio", l.Prio)
	b.unflag("per_job_logs", l.Shared)
	b.WriteString(cmdprioString(&j.CmdPrio))
	return b.String()
}

// parseUnifiedRW parses fio's values: none, mixed, both, or 0, 1, 2.
func parseUnifiedRW(s string) (workload.UnifiedRW, error) {
	for u := workload.UnifiedNone; u <= workload.UnifiedBoth; u++ {
		if s == u.String() || s == strconv.Itoa(int(u)) {
			return u, nil
		}
	}
	return 0, fmt.Errorf("unknown unified_rw_reporting %q (want none, mixed, both or 0, 1, 2)", s)
}
