package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// reportingString is the job-file text of the reporting options not at
// their default, in the option table's order.
func reportingString(j *workload.Job) string {
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.NoClatPercentiles {
		kv("clat_percentiles", "0")
	}
	if j.UnifiedRW != workload.UnifiedNone {
		kv("unified_rw_reporting", j.UnifiedRW.String())
	}
	if j.GroupReporting {
		kv("group_reporting", "1")
	}
	l := j.Logs
	for _, o := range [...]struct{ k, v string }{{"write_lat_log", l.Lat}, {"write_bw_log", l.BW}, {"write_iops_log", l.IOPS}} {
		if o.v != "" {
			kv(o.k, o.v)
		}
	}
	if l.AvgMsec != 0 {
		kv("log_avg_msec", strconv.Itoa(l.AvgMsec))
	}
	if l.Offset {
		kv("log_offset", "1")
	}
	if l.Prio {
		kv("log_prio", "1")
	}
	if l.Shared {
		kv("per_job_logs", "0")
	}
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
