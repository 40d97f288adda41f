package workload

import (
	"time"
)

// Flow is fio's flow control: the jobs of a run with the same flow ID
// and a weight share a count of the I/Os they have issued, and a job
// whose share of that count exceeds its share of the flows' weights is
// held back until the others catch up. Jobs with weights 1, 5 and 10 thus
// issue I/Os in the ratio 1:5:10, whatever their engines and block sizes
// (the count is of I/Os, not bytes), at the pace of the slowest in
// proportion (a rate-limited job holds the others to their multiple of
// its rate). The count is cumulative from each job's start: a job that
// starts later (stonewall, startdelay) runs unhindered until its share is
// made up, and a job that finishes takes its weight and its I/Os out of
// the count, so that the rest keep their own ratio, as fio's do.
// Read-back (verify) I/Os are not counted.
type Flow struct {
	// Weight is fio's flow: 1 to 1000; 0 (the default) leaves the job
	// out of flow control.
	Weight int `json:"weight,omitempty"`
	// ID is fio's flow_id: the jobs with the same ID (default 0) share a
	// count.
	ID int64 `json:"id,omitempty"`
	// Sleep is fio's flow_sleep (whole microseconds in a job file): how
	// long a held-back job sleeps, once its I/Os in flight have
	// completed, before it checks again. 0 (the default) checks again at
	// once, yielding the CPU in between.
	Sleep time.Duration `json:"sleep_ns,omitempty"`
}

// maxFlowWeight is fio 3.33's bound on flow=.
const MaxFlowWeight = 1000

// maxFlowValue bounds flow_id and flow_sleep: fio keeps them in 32-bit
// unsigned ints.
const MaxFlowValue = 1<<32 - 1
