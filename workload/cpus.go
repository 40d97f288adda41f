package workload

import (
	"fmt"
	"slices"
	"strings"
)

// CPUs are fio's CPU affinity options (cpumask, cpus_allowed,
// cpus_allowed_policy); Job embeds it, so the fields read as Job's.
type CPUs struct {
	// CPUsAllowed is fio's cpus_allowed (cpumask as a list): the CPUs
	// the job's threads run on, "0-3,6" (sched_setaffinity on each
	// clone's thread before its first I/O); "" leaves the threads'
	// affinity as it is.
	CPUsAllowed string `json:"cpus_allowed,omitempty"`
	// CPUsSplit is fio's cpus_allowed_policy=split: each clone's thread
	// runs on one CPU of the list, the n-th (modulo the list's length)
	// for the run's n-th thread (from 0, numbered as fio numbers them:
	// the jobs in order, a job's clones 0, then numjobs-1 down to 1).
	CPUsSplit bool `json:"cpus_allowed_policy_split,omitempty"`
}

// maxCPUs is the largest CPU number + 1 a list may name: the kernel's
// CPU_SETSIZE, fio's FIO_MAX_CPUS.
const maxCPUs = 1024

// ParseCPUList reads a cpus_allowed list as fio 3.33 does: comma-separated
// CPUs and ranges a-b, each number read as C's atoi reads it (leading
// digits, else 0), an empty entry ending the list. It returns the CPUs
// in order, once each.
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	for _, e := range strings.Split(strings.TrimSpace(s), ",") {
		if e == "" {
			break
		}
		lo, hi := e, ""
		if a, b, ok := strings.Cut(e, "-"); ok {
			lo, hi = a, b
			if i := strings.IndexByte(hi, '-'); i >= 0 {
				hi = hi[:i] // fio takes the last non-empty part; "a-b-" is a-b
			}
		}
		a := atoi(lo)
		b := a
		if hi != "" {
			b = atoi(hi)
		}
		for c := a; c <= b; c++ {
			if c >= maxCPUs {
				return nil, fmt.Errorf("CPU %d: at most %d CPUs", c, maxCPUs)
			}
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// atoi is C's atoi on the non-negative numbers of a CPU list: the leading
// digits after blanks, 0 without any.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t")
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < maxCPUs; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// CPUsFor returns the CPUs of the run's thread n (0-based, fio's
// numbering), or nil when the job leaves affinity alone.
func (j *Job) CPUsFor(n int) []int {
	if j.CPUsAllowed == "" {
		return nil
	}
	cpus, err := ParseCPUList(j.CPUsAllowed)
	if err != nil || len(cpus) == 0 {
		return cpus
	}
	if j.CPUsSplit {
		return []int{cpus[n%len(cpus)]}
	}
	return cpus
}

// validateCPUs checks CPUs' fields: the option and why, or "".
func (j *Job) validateCPUs() (string, string) {
	if j.CPUsAllowed == "" {
		if j.CPUsSplit {
			return "cpus_allowed_policy", "split needs cpus_allowed or cpumask"
		}
		return "", ""
	}
	if _, err := ParseCPUList(j.CPUsAllowed); err != nil {
		return "cpus_allowed", err.Error()
	}
	return "", ""
}
