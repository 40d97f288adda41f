package fiojob_test

import (
	"fmt"
	"strings"

	"stortest.dev/workload/fiojob"
)

// Parse a fio job file, then print the jobs back in fio's syntax and one
// as the values a test would set in Go.
func ExampleParse() {
	const jobFile = `
; 4 KiB random reads at queue depth 32, then a 70/30 mix
[global]
ioengine=io_uring
direct=1
bs=4k
runtime=1m
time_based

[randread-4k-qd32]
rw=randread
iodepth=32

[oltp]
rw=randrw
rwmixwrite=30
random_distribution=zipf:1.2
`
	jobs, _, err := fiojob.Parse(strings.NewReader(jobFile), "example.fio", fiojob.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range jobs {
		fmt.Print(fiojob.Format(j))
	}
	j := jobs[1]
	fmt.Println(j.RW, j.RWMixRead, j.BlockSize, j.IODepth, j.Runtime, j.RandomDistribution)
	// Output:
	// [randread-4k-qd32]
	// ioengine=io_uring
	// rw=randread
	// bs=4k
	// iodepth=32
	// direct=1
	// runtime=1m
	// time_based=1
	// [oltp]
	// ioengine=io_uring
	// rw=randrw
	// rwmixread=70
	// bs=4k
	// direct=1
	// runtime=1m
	// time_based=1
	// random_distribution=zipf:1.2
	// randrw 70 4096 1 1m0s zipf:1.2
}
