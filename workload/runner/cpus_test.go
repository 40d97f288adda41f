package runner

import (
	"context"
	"reflect"
	"runtime"
	"stortest.dev/workload"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// cpumask, cpus_allowed and cpus_allowed_policy set each clone's thread's
// affinity (read back with sched_getaffinity on the thread) as fio 3.33
// sets it: split gives the run's n-th thread (fio's numbering) the n-th
// CPU of the list.
func TestCPUsAffinity(t *testing.T) {
	if workload.ConfiguredCPUs() < 2 {
		t.Skip("needs 2 workload.CPUs")
	}
	jobs, err := parseFile(strings.NewReader(`[global]
ioengine=null
size=64k
[mask]
cpumask=0x2
[list]
cpus_allowed=0-1
[split]
numjobs=3
cpus_allowed=0,1
cpus_allowed_policy=split
`), "cpus.fio")
	require.NoError(t, err)
	var mu sync.Mutex
	got := map[string][]int{}
	res, err := RunJobs(context.Background(), jobs, workload.Options{OnStart: func(r *workload.JobResult, tid int) {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			t.Error(err)
			return
		}
		var cpus []int
		for c := range 1024 {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
		mu.Lock()
		got[r.Name+"."+string(rune('0'+r.Clone))] = cpus
		mu.Unlock()
	}})
	require.NoError(t, err)
	for _, j := range res.Jobs {
		require.NoError(t, j.Err)
	}
	// Threads: mask 0, list 1, split clones 0, 2, 1 are threads 2, 3, 4.
	want := map[string][]int{"mask.0": {1}, "list.0": {0, 1}, "split.0": {0}, "split.2": {1}, "split.1": {0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("affinity %v, want %v", got, want)
	}
	// The threads go back to the runtime as they were.
	var set unix.CPUSet
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, unix.SchedGetaffinity(0, &set))
	if set.Count() < 2 {
		t.Errorf("a thread left with %d workload.CPUs", set.Count())
	}
}

// The same jobs move what fio's do; fio refuses a CPU that is not
// configured, and so does stortest.
func TestCPUsMatchFio(t *testing.T) {
	if workload.ConfiguredCPUs() < 2 {
		t.Skip("needs 2 workload.CPUs")
	}
	fio, ours := runBoth(t, "cpus.fio", `[global]
size=256k
rw=randread
[mask]
cpumask=0x02
[split]
numjobs=2
cpus_allowed=0-1
cpus_allowed_policy=split
`, nil)
	if len(fio.Jobs) != 3 || !reflect.DeepEqual(ours.Jobs, fio.Jobs) {
		t.Errorf("jobs:\nstortest %v\nfio      %v", ours.Jobs, fio.Jobs)
	}

	jobs, err := parseFile(strings.NewReader("[a]\nioengine=null\nsize=64k\ncpus_allowed=1000\n"), "t.fio")
	require.NoError(t, err)
	res, err := Run(context.Background(), jobs[0], workload.Options{})
	require.NoError(t, err)
	if err := res.Jobs[0].Err; err == nil || !strings.Contains(err.Error(), "CPU 1000 too large") {
		t.Errorf("error %v", err)
	}
	for _, bad := range []string{"cpus_allowed=1024", "cpus_allowed_policy=spread", "cpus_allowed_policy=split"} {
		if _, err := parseFile(strings.NewReader("[a]\nsize=64k\n"+bad+"\n"), "t.fio"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
