package workload

import (
	"time"

	"stortest.dev/latency"
	"stortest.dev/steady"
)

// SteadyResult is one job clone's steady-state outcome.
type SteadyResult struct {
	Criteria steady.Set
	Window   time.Duration // ss_dur
	Ramp     time.Duration // ss_ramp
	Continue bool          // Options.SteadyContinue was set

	// Samples counts the per-second samples judged, ramp included.
	Samples int
	// Attained is true when steady state was attained at least once;
	// AttainedAt is the measured time (since the end of ramp_time) of the
	// first attainment.
	Attained   bool
	AttainedAt time.Duration
	// Steady is true when the criteria held at the last sample.
	Steady bool
	// Stopped is true when steady state ended the job before its runtime;
	// StopReason says why.
	Stopped    bool
	StopReason string
	// Capped is true when a PTS criterion used up its round cap without
	// steady state.
	Capped bool
	// Events are the changes of steady state in order: attained, then
	// lost and regained (losses are seen with Options.SteadyContinue or
	// while a latency window is measured).
	Events []SteadyEvent
	// Losses are the periods out of steady state after attainment.
	Losses []steady.Loss
	// Latency is the latency window (Options.SteadyLatencyWindow) when
	// one was measured in steady state; LatencyAttempts counts the windows
	// started, failed ones included.
	Latency         *SteadyLatency
	LatencyAttempts int
	// Last explains the last verdict in one line.
	Last string
	// Report is what the JSON output prints: fio's "steadystate" object
	// and stortest's extension.
	Report steady.Report
}

// SteadyEvent is a change of steady state.
type SteadyEvent struct {
	Event steady.Event
	// Sample is the detector's sample index: the index in JobResult.Seconds
	// (unless a second under 1 ms was folded into the next, as fio would).
	Sample int
	T      time.Duration // measured time at the end of the sample's second
	Loss   steady.Loss   // for Lost and Regained
	Reason string
}

// SteadyLatency is the latency of a steady window: the window of SSDur
// seconds that follows attainment, kept when the criteria hold over
// exactly that window.
type SteadyLatency struct {
	// Start and End are the measured times the window spans; First and
	// Last index its seconds in JobResult.Seconds.
	Start, End  time.Duration
	First, Last int
	Attempt     int // 1 for the first window started
	// Clat holds the window's completion latencies per direction, All
	// every direction's merged.
	Clat [NumDirs]*latency.Histogram
	All  *latency.Histogram
}
