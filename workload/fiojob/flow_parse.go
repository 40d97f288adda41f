package fiojob

import (
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
)

// String is the job-file text of the flow options not at their default.
func flowString(f *workload.Flow) string {
	var b strings.Builder
	if f.Weight != 0 {
		b.WriteString("flow=" + strconv.Itoa(f.Weight) + "\n")
	}
	if f.ID != 0 {
		b.WriteString("flow_id=" + strconv.FormatInt(f.ID, 10) + "\n")
	}
	if f.Sleep != 0 {
		b.WriteString("flow_sleep=" + strconv.FormatInt(int64(f.Sleep/time.Microsecond), 10) + "\n")
	}
	return b.String()
}
