package validate_test

import (
	"errors"
	"fmt"

	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// A job built in Go is checked before it runs: the error names the job
// and the fio option at fault, and matches the model's error types.
func ExampleJob() {
	job := workload.Job{Name: "randread", Engine: "io_uring", RW: workload.RandRead,
		BlockSize: 4096, Size: 1 << 30, Filename: "/dev/loop7"}.Normalized()
	fmt.Println(validate.Job(&job))

	job.IODepth = workload.MaxIODepth + 1
	err := validate.Job(&job)
	var fe *workload.FieldError
	fmt.Println(errors.As(err, &fe), errors.Is(err, workload.ErrInvalid))
	fmt.Println(err)
	// Output:
	// <nil>
	// true true
	// workload: job "randread": iodepth: 65537 is outside [1, 65536]
}
