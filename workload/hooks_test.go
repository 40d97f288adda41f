package workload_test

import (
	"io"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/validate"
)

func init() {
	workload.ParseJobs = func(r io.Reader, name string, args []string) ([]workload.Job, *workload.FioGiven, error) {
		return fiojob.Parse(r, name, fiojob.Config{Args: args})
	}
	workload.FormatJob = fiojob.Format
	workload.ValidateJob = validate.Job
}
