package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateSubmit checks Submission's fields of the normalized job: the
// option and why, or "".
func validateSubmit(j *workload.Job) (string, string) {
	if j.SerializeOverlap && !j.Offload && j.IODepth > 1 && !engineTraits(j.Engine).Sync {
		return "serialize_overlap", fmt.Sprintf("with iodepth=%d on ioengine=%s is not supported by stortest unless io_submit_mode=offload", j.IODepth, j.Engine)
	}
	return "", ""
}
