package fiojob

import (
	"strings"

	"stortest.dev/workload"
)

// submitString prints Submission's options in job-file syntax, for
// Format.
func submitString(j *workload.Job) string {
	var b strings.Builder
	if j.Offload {
		b.WriteString("io_submit_mode=offload\n")
	}
	if j.Poisson {
		b.WriteString("rate_process=poisson\n")
	}
	if j.SerializeOverlap {
		b.WriteString("serialize_overlap=1\n")
	}
	return b.String()
}
