package workload

import (
	"fmt"
	"strconv"
	"strings"
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

func (u UnifiedRW) String() string {
	if int(u) < len(unifiedNames) {
		return unifiedNames[u]
	}
	return "UnifiedRW(" + strconv.Itoa(int(u)) + ")"
}

// ParseUnifiedRW parses fio's values: none, mixed, both, or 0, 1, 2.
func ParseUnifiedRW(s string) (UnifiedRW, error) {
	for i, n := range unifiedNames {
		if s == n || s == strconv.Itoa(i) {
			return UnifiedRW(i), nil
		}
	}
	return 0, fmt.Errorf("unknown unified_rw_reporting %q (want none, mixed, both or 0, 1, 2)", s)
}

// reportOptions are the accepted options about what a run reports and
// logs rather than the I/O it does. They share fioOptions' index, and
// doc.go's table lists them too.
var reportOptions = append([]fioOption{
	{name: "clat_percentiles", field: "clat_percentiles", isBool: true, doc: "NoClatPercentiles = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.NoClatPercentiles = !b
			return err
		}},
	{name: "unified_rw_reporting", field: "unified_rw_reporting", doc: "UnifiedRW: none, mixed, both (0, 1, 2)",
		set: func(st *jobState, v string) error {
			u, err := ParseUnifiedRW(v)
			st.job.UnifiedRW = u
			return err
		}},
	{name: "group_reporting", field: "group_reporting", isBool: true, doc: "GroupReporting: the job's clones report as one",
		set: setBool(func(j *Job) *bool { return &j.GroupReporting })},
	{name: "write_lat_log", field: "write_lat_log", doc: "Logs.Lat (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[0], st.job.Logs.Lat = true, "" },
		set:  setString(func(j *Job) *string { return &j.Logs.Lat })},
	{name: "write_bw_log", field: "write_bw_log", doc: "Logs.BW (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[1], st.job.Logs.BW = true, "" },
		set:  setString(func(j *Job) *string { return &j.Logs.BW })},
	{name: "write_iops_log", field: "write_iops_log", doc: "Logs.IOPS (file name prefix; bare: the job's name)",
		bare: func(st *jobState) { st.logByName[2], st.job.Logs.IOPS = true, "" },
		set:  setString(func(j *Job) *string { return &j.Logs.IOPS })},
	{name: "log_avg_msec", field: "log_avg_msec", doc: "Logs.AvgMsec; 0 logs every I/O",
		set: setInt(0, 1<<31-1, func(j *Job) *int { return &j.Logs.AvgMsec })},
	{name: "log_offset", field: "log_offset", isBool: true, doc: "Logs.Offset",
		set: setBool(func(j *Job) *bool { return &j.Logs.Offset })},
	{name: "log_prio", field: "log_prio", isBool: true, doc: "Logs.Prio",
		set: setBool(func(j *Job) *bool { return &j.Logs.Prio })},
	{name: "per_job_logs", field: "per_job_logs", isBool: true, doc: "Logs.Shared = !value",
		set: func(st *jobState, v string) error {
			b, err := ParseBool(v)
			st.job.Logs.Shared = !b
			return err
		}},
}, cmdprioOptions...)

// reportingString is the job-file text of the reporting options not at
// their default, in reportOptions' order.
func (j *Job) reportingString() string {
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.NoClatPercentiles {
		kv("clat_percentiles", "0")
	}
	if j.UnifiedRW != UnifiedNone {
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
	b.WriteString(j.CmdPrio.String())
	return b.String()
}

// validateReporting checks the reporting options; it returns the fio
// option at fault and why, or "".
func (j *Job) validateReporting() (option, reason string) {
	switch {
	case int(j.UnifiedRW) >= len(unifiedNames):
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
