package fiojob

import (
	"strconv"
	"time"

	"stortest.dev/workload"
)

// String is the job-file text of the flow options not at their default.
func flowString(f *workload.Flow) string {
	var b jobText
	b.num("flow", int64(f.Weight), 0)
	b.num("flow_id", f.ID, 0)
	if f.Sleep != 0 {
		b.kv("flow_sleep", strconv.FormatInt(int64(f.Sleep/time.Microsecond), 10))
	}
	return b.String()
}
