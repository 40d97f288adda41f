package validate

import "stortest.dev/workload"

// Job checks the normalized job and returns a *workload.FieldError
// naming the first bad field (by its fio option name) and why.
func Job(j *workload.Job) error { return j.Validate() }

// Warnings returns notices about a valid job that runs but not as its
// options suggest; nil for most jobs.
func Warnings(j *workload.Job) []string { return j.Warnings() }
