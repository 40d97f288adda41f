package validate

import (
	"stortest.dev/fio"
	"stortest.dev/workload"
)

// validateCPUs checks CPUs' fields: the option and why, or "".
func validateCPUs(j *workload.Job) (string, string) {
	if j.CPUsAllowed == "" {
		if j.CPUsSplit {
			return "cpus_allowed_policy", "split needs cpus_allowed or cpumask"
		}
		return "", ""
	}
	if _, err := fio.ParseCPUList(j.CPUsAllowed); err != nil {
		return "cpus_allowed", err.Error()
	}
	return "", ""
}
