package workload

import (
	"time"
)

// LatencyLimits are fio's latency-profile options: a search for the deepest
// queue that keeps I/O latency under a target, and a latency no I/O may
// exceed. Job embeds it, so the fields read as Job's.
type LatencyLimits struct {
	// LatencyTarget is fio's latency_target: when set, the job starts at
	// depth 1 and, after each LatencyWindow, doubles the depth (or
	// bisects towards the depth that last failed) while at least
	// LatencyPercentile percent of the window's I/Os completed within it
	// (lat: preparation to completion), and halves towards the depth
	// that last passed when they did not. IODepth is the ceiling. Once the
	// depth stops changing, the statistics are reset, one more window is
	// measured at that depth, and the job ends (unless LatencyRun). A
	// target of 0 means no search.
	LatencyTarget time.Duration `json:"latency_target,omitempty"`
	// LatencyWindow is fio's latency_window: how long each depth is
	// measured (0: every completion round).
	LatencyWindow time.Duration `json:"latency_window,omitempty"`
	// LatencyPercentile is fio's latency_percentile: the percentage of a
	// window's I/Os that must meet LatencyTarget; 0 means 100, fio's
	// default, under which one late I/O lowers the depth at once, and at
	// depth 1 fails the job with ETIMEDOUT as MaxLatency does.
	LatencyPercentile float64 `json:"latency_percentile,omitempty"`
	// LatencyRun is fio's latency_run: keep adjusting the depth for the
	// whole run instead of ending once it is found.
	LatencyRun bool `json:"latency_run,omitempty"`
	// MaxLatency is fio's max_latency per direction (read, write, trim):
	// the first I/O whose lat exceeds it fails the job with ETIMEDOUT
	// (ErrMaxLatency). 0 means no limit.
	MaxLatency [NumDirs]time.Duration `json:"max_latency,omitzero"`
}

// latencyPercentile is the percentile the search holds the target to.
func (j *Job) TargetPercentile() float64 {
	if j.LatencyPercentile == 0 {
		return 100
	}
	return j.LatencyPercentile
}
