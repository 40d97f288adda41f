package fiojob

import (
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
)

// enginesString prints NoDataEngines' options in job-file syntax, for
// Format.
func enginesString(j *workload.Job) string {
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if j.NrFiles > 1 {
		kv("nrfiles", strconv.Itoa(j.NrFiles))
	}
	if j.CreateOnOpen {
		kv("create_on_open", "1")
	}
	if j.Unlink {
		kv("unlink", "1")
	}
	if j.UnlinkEachLoop {
		kv("unlink_each_loop", "1")
	}
	if j.CPULoad != 0 {
		kv("cpuload", strconv.Itoa(j.CPULoad))
	}
	if j.CPUChunks != 0 {
		kv("cpuchunks", strconv.FormatInt(int64(j.CPUChunks/time.Microsecond), 10))
	}
	if j.CPUMode != "" {
		kv("cpumode", j.CPUMode)
	}
	if j.StatType != "" {
		kv("stat_type", j.StatType)
	}
	if j.ExecProgram != "" {
		kv("program", j.ExecProgram)
	}
	if j.ExecArguments != "" {
		kv("arguments", j.ExecArguments)
	}
	if j.ExecGrace != nil {
		kv("grace_time", workload.FormatTime(*j.ExecGrace))
	}
	if j.ExecNoRedirect {
		kv("std_redirect", "0")
	}
	return b.String()
}
