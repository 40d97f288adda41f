package runner_test

import (
	"context"
	"fmt"

	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// Run drives an engine over a job; the null engine moves no data, so this
// measures only the harness and needs no file.
func ExampleRun() {
	res, err := runner.Run(context.Background(), workload.Job{
		Name: "null-4k", Engine: "null", RW: workload.RandRead,
		BlockSize: 4 << 10, Size: 1 << 20, IODepth: 4,
	}, workload.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	j := res.Jobs[0]
	read := j.Dirs[workload.DirRead]
	fmt.Println("reads:", read.IOs, "bytes:", read.Bytes)
	fmt.Println("clat samples:", read.Clat.Count(), "slat samples:", read.Slat.Count())
	// Output:
	// reads: 256 bytes: 1048576
	// clat samples: 256 slat samples: 256
}
