package fiojob

import (
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// iologString prints IOLogs's options in job-file syntax, for
// Format.
func iologString(j *workload.Job) string {
	var b strings.Builder
	str := func(k, v string) {
		if v != "" {
			b.WriteString(k + "=" + v + "\n")
		}
	}
	num := func(k string, v int64) {
		if v != 0 {
			b.WriteString(k + "=" + strconv.FormatInt(v, 10) + "\n")
		}
	}
	str("write_iolog", j.WriteIOLog)
	str("read_iolog", strings.ReplaceAll(j.ReadIOLog, ":", `\:`))
	if j.ReplayNoStall {
		b.WriteString("replay_no_stall=1\n")
	}
	str("replay_redirect", j.ReplayRedirect)
	num("replay_scale", j.ReplayScale)
	num("replay_align", j.ReplayAlign)
	num("replay_time_scale", int64(j.ReplayTimeScale))
	if j.ReplaySkip != 0 {
		var w []string
		for _, s := range workload.ReplaySkipNames {
			if j.ReplaySkip&s.Bits != 0 {
				w = append(w, s.Name)
			}
		}
		str("replay_skip", strings.Join(w, ","))
	}
	return b.String()
}
