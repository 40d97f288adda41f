package fiojob

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
)

// latencyString prints LatencyLimits's options in job-file syntax, for
// Format.
func latencyString(j *workload.Job) string {
	var b strings.Builder
	if j.LatencyTarget > 0 {
		fmt.Fprintf(&b, "latency_target=%s\n", workload.FormatTime(j.LatencyTarget))
	}
	if j.LatencyWindow > 0 {
		fmt.Fprintf(&b, "latency_window=%s\n", workload.FormatTime(j.LatencyWindow))
	}
	if j.LatencyPercentile > 0 && j.LatencyPercentile != 100 {
		fmt.Fprintf(&b, "latency_percentile=%s\n", strconv.FormatFloat(j.LatencyPercentile, 'g', -1, 64))
	}
	if j.LatencyRun {
		b.WriteString("latency_run=1\n")
	}
	if j.MaxLatency != [workload.NumDirs]time.Duration{} {
		fmt.Fprintf(&b, "max_latency=%s,%s,%s\n", workload.FormatTime(j.MaxLatency[0]), workload.FormatTime(j.MaxLatency[1]), workload.FormatTime(j.MaxLatency[2]))
	}
	return b.String()
}
