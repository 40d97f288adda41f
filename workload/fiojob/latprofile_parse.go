package fiojob

import (
	"strconv"
	"time"

	"stortest.dev/workload"
)

// latencyString prints LatencyLimits's options in job-file syntax, for
// Format.
func latencyString(j *workload.Job) string {
	var b jobText
	if j.LatencyTarget > 0 {
		b.kv("latency_target", workload.FormatTime(j.LatencyTarget))
	}
	if j.LatencyWindow > 0 {
		b.kv("latency_window", workload.FormatTime(j.LatencyWindow))
	}
	if j.LatencyPercentile > 0 && j.LatencyPercentile != 100 {
		b.kv("latency_percentile", strconv.FormatFloat(j.LatencyPercentile, 'g', -1, 64))
	}
	b.flag("latency_run", j.LatencyRun)
	if j.MaxLatency != [workload.NumDirs]time.Duration{} {
		b.kv("max_latency", workload.FormatTime(j.MaxLatency[0])+","+workload.FormatTime(j.MaxLatency[1])+","+workload.FormatTime(j.MaxLatency[2]))
	}
	return b.String()
}
