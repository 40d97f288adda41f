package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateLatency checks LatencyLimits's fields of the normalized job: the
// option and why, or "".
func validateLatency(j *workload.Job) (string, string) {
	switch {
	case j.LatencyTarget < 0:
		return "latency_target", "negative"
	case j.LatencyWindow < 0:
		return "latency_window", "negative"
	case j.LatencyPercentile < 0 || j.LatencyPercentile > 100:
		return "latency_percentile", fmt.Sprintf("%v is out of range 0-100", j.LatencyPercentile)
	case j.LatencyTarget > 0 && j.Offload:
		return "latency_target", "with io_submit_mode=offload is not supported by stortest"
	}
	for d := range workload.NumDirs {
		if j.MaxLatency[d] < 0 {
			return "max_latency", "negative"
		}
	}
	return "", ""
}
