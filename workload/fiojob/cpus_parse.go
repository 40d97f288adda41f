package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// Reading fio's CPU affinity option cpumask and the percentages of
// size=N% (workload.CPUs, Job.SizePercent).

// cpuMaskList turns fio's cpumask (a bit per CPU, the low 32 bits read)
// into a cpus_allowed list.
func cpuMaskList(mask int64) string {
	var parts []string
	for i := range 32 {
		if mask&(1<<i) != 0 {
			parts = append(parts, strconv.Itoa(i))
		}
	}
	return strings.Join(parts, ",")
}

// parseSizePercent reads fio's size=N% (and N%%): N, and whether v is one.
func parseSizePercent(v string) (int, bool, error) {
	num, ok := strings.CutSuffix(v, "%")
	if !ok {
		return 0, false, nil
	}
	num = strings.TrimRight(num, "%")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 1 || n > 100 {
		return 0, true, fmt.Errorf("%q is not a percentage from 1%% to 100%%", v)
	}
	return n, true, nil
}

// cpusString prints CPUs' options in job-file syntax, for Format.
func cpusString(j *workload.Job) string {
	var b jobText
	b.str("cpus_allowed", j.CPUsAllowed)
	if j.CPUsSplit {
		b.kv("cpus_allowed_policy", "split")
	}
	return b.String()
}
