package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateCmdPrio returns the option at fault and why, or "".
func validateCmdPrio(c *workload.CmdPrio, engine string) (option, reason string) {
	if c.IsZero() {
		return "", ""
	}
	if engine != "libaio" && engine != "io_uring" {
		return "cmdprio_percentage", "ioengine=" + engine + " does not take the cmdprio options (only libaio, io_uring)"
	}
	for d := range 2 {
		if p := c.Percentage[d]; p < 0 || p > 100 {
			return "cmdprio_percentage", fmt.Sprintf("%d is not a percentage", p)
		}
		if k := c.Class[d]; k < 0 || k > 3 {
			return "cmdprio_class", fmt.Sprintf("class %d is outside [1, 3]", k)
		}
		if l := c.Level[d]; l < 0 || l > 7 {
			return "cmdprio", fmt.Sprintf("level %d is outside [0, 7]", l)
		}
		sums := map[int64]int{}
		for _, s := range c.BSSplit[d] {
			sums[s.Size] += s.Percent
			if sums[s.Size] > 100 {
				return "cmdprio_bssplit", fmt.Sprintf("percentages for %s add up to more than 100", workload.FormatSize(s.Size))
			}
		}
	}
	if c.Percentage != [2]int{} && (len(c.BSSplit[0]) > 0 || len(c.BSSplit[1]) > 0) {
		return "cmdprio_bssplit", "cmdprio_percentage and cmdprio_bssplit are mutually exclusive (as in fio)"
	}
	return "", ""
}
