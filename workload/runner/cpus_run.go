package runner

import (
	"fmt"

	"golang.org/x/sys/unix"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// setThreadCPUs moves the calling thread (locked to its goroutine) to
// cpus, as fio sets a job's affinity on its thread; restore puts the
// thread's affinity back before it is unlocked.
func setThreadCPUs(cpus []int) (restore func(), err error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	max := workload.ConfiguredCPUs()
	for _, c := range cpus {
		if c >= max {
			// fio: "CPU %d too large (max=%ld)", against the CPUs
			// configured.
			return nil, fmt.Errorf("cpus_allowed: CPU %d too large (max=%d)", c, max-1)
		}
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("cpus_allowed: sched_setaffinity to CPUs %v: %w", cpus, err)
	}
	return func() { _ = unix.SchedSetaffinity(0, &old) }, nil
}

// fioThread is fio's number (from 0) of the thread of clone of a job
// whose first clone is thread first: fio adds clone 0, then numjobs-1
// down to 1.
func fioThread(first, clone, numJobs int) int {
	if clone == 0 {
		return first
	}
	return first + numJobs - clone
}

// cpusFor returns the CPUs of the run's thread n (0-based, fio's
// numbering), or nil when the job leaves affinity alone.
func cpusFor(j *workload.Job, n int) []int {
	if j.CPUsAllowed == "" {
		return nil
	}
	cpus, err := fio.ParseCPUList(j.CPUsAllowed)
	if err != nil || len(cpus) == 0 {
		return cpus
	}
	if j.CPUsSplit {
		return []int{cpus[n%len(cpus)]}
	}
	return cpus
}
