package workload

import ()

// Submission are fio's options about how and when a job hands its I/O to
// the engine; Job embeds it, so the fields read as Job's.
type Submission struct {
	// Offload is fio's io_submit_mode=offload (the default, inline, is
	// false): the job's goroutine only prepares each I/O, at the time the
	// rate limit allows, and hands it to a pool of IODepth submitter
	// threads, each with an engine of its own, which perform it and hand
	// it back. Submission then keeps its schedule whatever the device's
	// completion times, as long as a unit is free. Latencies are measured
	// as fio 3.33 measures them: lat from the moment the job prepared the
	// I/O (so it includes the hand-off), clat from the submitter's issue,
	// slat only for asynchronous engines (their commit, on the
	// submitter, minus the preparation).
	Offload bool `json:"io_submit_offload,omitempty"`
	// Poisson is fio's rate_process=poisson (the default, linear, is
	// false): under rate or rate_iops the gaps between I/Os are drawn from
	// an exponential distribution whose mean is the linear gap, so arrivals
	// form a Poisson process of the same average rate (seeded per job).
	Poisson bool `json:"rate_poisson,omitempty"`
	// SerializeOverlap is fio's serialize_overlap: an I/O whose range
	// overlaps one in flight waits for it. Supported where the runner can
	// have more than one I/O in flight only with Offload; with one I/O in
	// flight at a time (iodepth=1, synchronous engines) it holds trivially.
	SerializeOverlap bool `json:"serialize_overlap,omitempty"`
}
