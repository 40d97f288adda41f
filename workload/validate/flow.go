package validate

import (
	"fmt"
	"time"

	"stortest.dev/workload"
)

// validateFlow checks the flow options: the fio option at fault and why, or "".
func validateFlow(f *workload.Flow) (option, reason string) {
	switch {
	case f.Weight < 0 || f.Weight > workload.MaxFlowWeight:
		return "flow", fmt.Sprintf("%d is not in [0, %d]", f.Weight, workload.MaxFlowWeight)
	case f.ID < 0 || f.ID > workload.MaxFlowValue:
		return "flow_id", fmt.Sprintf("%d is not in [0, %d]", f.ID, int64(workload.MaxFlowValue))
	case f.Sleep < 0 || f.Sleep > workload.MaxFlowValue*time.Microsecond:
		return "flow_sleep", fmt.Sprintf("%v is not in [0, %v]", f.Sleep, workload.MaxFlowValue*time.Microsecond)
	case f.Sleep%time.Microsecond != 0:
		return "flow_sleep", fmt.Sprintf("%v is not a whole number of microseconds", f.Sleep)
	}
	return "", ""
}
