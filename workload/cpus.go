package workload

import (
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/kernelfs"
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

// ConfiguredCPUs is the number of CPUs configured, as fio counts them
// (sysconf(_SC_NPROCESSORS_CONF): the highest possible CPU + 1), or
// the ones this process may use when that cannot be read. The parser
// ($ncpus) and the runner (cpus_allowed) both need it.
func ConfiguredCPUs() int {
	s, err := kernelfs.ReadString(kernelfs.Default().SysPath("devices", "system", "cpu", "possible"))
	if err == nil {
		if i := strings.LastIndexAny(s, ",-"); i >= 0 {
			s = s[i+1:]
		}
		if n, err := strconv.Atoi(s); err == nil {
			return n + 1
		}
	}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		return set.Count()
	}
	return 1
}
