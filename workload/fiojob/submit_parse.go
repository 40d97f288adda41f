package fiojob

import "stortest.dev/workload"

// submitString prints Submission's options in job-file syntax, for
// Format.
func submitString(j *workload.Job) string {
	var b jobText
	if j.Offload {
		b.kv("io_submit_mode", "offload")
	}
	if j.Poisson {
		b.kv("rate_process", "poisson")
	}
	b.flag("serialize_overlap", j.SerializeOverlap)
	return b.String()
}
