package fiojob

import (
	"strings"

	"stortest.dev/workload"
)

// iologString prints IOLogs's options in job-file syntax, for
// Format.
func iologString(j *workload.Job) string {
	var b jobText
	b.str("write_iolog", j.WriteIOLog)
	b.str("read_iolog", strings.ReplaceAll(j.ReadIOLog, ":", `\:`))
	b.flag("replay_no_stall", j.ReplayNoStall)
	b.str("replay_redirect", j.ReplayRedirect)
	b.num("replay_scale", j.ReplayScale, 0)
	b.num("replay_align", j.ReplayAlign, 0)
	b.num("replay_time_scale", int64(j.ReplayTimeScale), 0)
	if j.ReplaySkip != 0 {
		var w []string
		for _, s := range workload.ReplaySkipNames {
			if j.ReplaySkip&s.Bits != 0 {
				w = append(w, s.Name)
			}
		}
		b.str("replay_skip", strings.Join(w, ","))
	}
	return b.String()
}
