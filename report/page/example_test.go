package page_test

import (
	"fmt"
	"strings"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/report/page"
	"stortest.dev/workload"
)

// A run's page from a workload result: here a made-up second of reads.
func ExampleRenderRun() {
	job := workload.Job{Name: "randread", RW: workload.RandRead, BlockSize: 4096, Engine: "psync"}
	jr := workload.NewJobResult(job, 0, latency.FioLayout)
	jr.Runtime = time.Second
	h := latency.New(latency.FioLayout)
	for i := range 1000 {
		h.Add(uint64(100_000 + 100*i)) // 100µs to 200µs
	}
	_ = jr.Dirs[workload.DirRead].Clat.Merge(h)
	jr.Dirs[workload.DirRead].IOs, jr.Dirs[workload.DirRead].Bytes = 1000, 1000*4096
	s := workload.Second{T: time.Second, Dur: time.Second}
	s.IOs[workload.DirRead], s.Bytes[workload.DirRead] = 1000, 1000*4096
	s.Clat[workload.DirRead] = latency.NewSparse(h)
	jr.Seconds = []workload.Second{s}

	r, err := page.NewRun("TestRandRead / randread", &workload.Result{Jobs: []*workload.JobResult{jr}}, baselines.Fingerprint{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r.Checks = []page.Check{{Name: "clat p99", Limit: "≤ 2ms", Outcome: "pass"}}
	html := page.RenderRun(r)
	fmt.Println(strings.HasPrefix(html, "<!DOCTYPE html>"), strings.Contains(html, "<script"))
	fmt.Println(strings.Contains(html, `id="job0-exceed"`), strings.Contains(html, "≤ 2ms"))
	// Output:
	// true false
	// true true
}
