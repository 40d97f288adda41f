package fiojob

import (
	"strconv"
	"time"

	"stortest.dev/workload"
)

// enginesString prints NoDataEngines' options in job-file syntax, for
// Format.
func enginesString(j *workload.Job) string {
	var b jobText
	if j.NrFiles > 1 {
		b.kv("nrfiles", strconv.Itoa(j.NrFiles))
	}
	b.flag("create_on_open", j.CreateOnOpen)
	b.flag("unlink", j.Unlink)
	b.flag("unlink_each_loop", j.UnlinkEachLoop)
	b.num("cpuload", int64(j.CPULoad), 0)
	if j.CPUChunks != 0 {
		b.kv("cpuchunks", strconv.FormatInt(int64(j.CPUChunks/time.Microsecond), 10))
	}
	b.str("cpumode", j.CPUMode)
	b.str("stat_type", j.StatType)
	b.str("program", j.ExecProgram)
	b.str("arguments", j.ExecArguments)
	if j.ExecGrace != nil {
		b.kv("grace_time", workload.FormatTime(*j.ExecGrace))
	}
	b.unflag("std_redirect", j.ExecNoRedirect)
	return b.String()
}
