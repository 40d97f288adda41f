package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateIOLog checks IOLogs's fields of the normalized job: the
// option and why, or "".
func validateIOLog(j *workload.Job) (string, string) {
	switch {
	case j.ReplayAlign < 0 || j.ReplayAlign&(j.ReplayAlign-1) != 0:
		return "replay_align", fmt.Sprintf("%d is not a power of 2", j.ReplayAlign)
	case j.ReplayScale < 0:
		return "replay_scale", "negative"
	case j.ReplayTimeScale < 0:
		return "replay_time_scale", "negative"
	case j.Offload && (j.ReadIOLog != "" || j.WriteIOLog != ""):
		return "io_submit_mode", "offload with read_iolog or write_iolog is not supported by stortest"
	case j.ReadIOLog != "" && j.Verify != workload.VerifyNone:
		return "verify", "with read_iolog is not supported by stortest"
	}
	return "", ""
}
