package stortest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"stortest.dev/internal/human"
	"stortest.dev/iostat"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// Warning is a reason to doubt a run's figures that fails nothing: Kind
// is a short stable token (one of the Warn* constants), Message one line
// for people that says what was seen, with the figure. A run has at most
// one warning of each kind.
type Warning = report.Warning

// Kinds of Warning, in the order Run reports them.
const (
	// WarnCPUBound: a job thread, or the machine, was busy nearly all
	// of the run, so latency measures the CPU, not the device.
	WarnCPUBound = "cpu-bound"
	// WarnPageCache: buffered reads were served by the page cache, not
	// the device.
	WarnPageCache = "page-cache"
	// WarnShortRun: the measured part lasted under MinPlausibleRuntime.
	WarnShortRun = "short-run"
	// WarnSmallWorkingSet: reads of a real device touch under
	// MinPlausibleWorkingSet, which the device's cache may hold.
	WarnSmallWorkingSet = "small-working-set"
	// WarnSharedDevice: the target's device, or a disk under it, moved
	// other I/O besides the run's own (another tenant of the disk under
	// a loop device, another process on the device), so the figures are
	// not the device's alone. A comparison with a baseline calls no
	// regression on such a run (regress: inconclusive).
	WarnSharedDevice = "shared-device"
)

// Thresholds of the warnings. They flag runs whose figures mostly
// measure something other than the device, in the spirit of longhorn's
// kbench checks, and are kept coarse so that a plausible run never
// warns.
const (
	// CPUBoundFraction is the busy fraction at which a run counts as
	// CPU-bound: of a job thread, (UsrCPU+SysCPU)/Runtime; of the
	// machine, the busy share of all CPUs' time in /proc/stat. kbench
	// warns from 60% busy; a single psync thread on a fast device can be
	// that busy and still wait on the device most of each I/O, while at
	// 90% the submit and reap loop itself paces the I/O.
	CPUBoundFraction = 0.9
	// PageCacheFraction: buffered reads count as served by the page
	// cache when the target's device read less than this fraction of the
	// bytes the workload read. Read-ahead only makes the device read
	// more, so half leaves room for other I/O on a shared disk.
	PageCacheFraction = 0.5
	// MinPlausibleRuntime is the shortest measured runtime whose figures
	// mean much: under a second there is not one full per-second sample,
	// a tail percentile rests on a few I/Os, and the first I/Os (cold
	// caches, a queue filling) weigh on the mean.
	MinPlausibleRuntime = time.Second
	// MinPlausibleWorkingSet is the smallest span that reads of a real
	// device (KindDevice) should touch. A device does not advertise how
	// much of its data it caches: a hard disk holds tens to hundreds of
	// MiB, a RAID controller or an array GiBs. Below a GiB reads may be
	// cache hits whatever the device; above it this rule cannot tell.
	MinPlausibleWorkingSet = 1 << 30 // bytes
	// SharedFraction and MinSharedRate: a device counts as shared when
	// it moved, besides the run's own bytes, more than this fraction of
	// them and at least MinSharedRate bytes a second. A neighbour reading
	// and writing 20 MiB/s beside a 200 MiB/s job on the same virtual
	// disk moved that job's IOPS between 16k and 65k from run to run;
	// a machine's own background (journal, logs) moves tens of KiB/s.
	SharedFraction = 0.05
	MinSharedRate  = 1 << 20 // bytes/s
)

// plausibilityRules are the checks of a run, in the order of their
// warnings. Each returns the message of its warning, or "" when the run
// gives it no cause.
var plausibilityRules = []struct {
	kind  string
	check func(r *Result, machine cpuBusy) string
}{
	{WarnCPUBound, cpuBoundRule},
	{WarnPageCache, pageCacheRule},
	{WarnShortRun, shortRunRule},
	{WarnSmallWorkingSet, smallWorkingSetRule},
	{WarnSharedDevice, sharedDeviceRule},
}

// plausibility returns the warnings of a run: its job, target, per-clone
// results and iostat, and the machine's CPU use over it.
func plausibility(r *Result, machine cpuBusy) []Warning {
	var ws []Warning
	for _, rule := range plausibilityRules {
		if msg := rule.check(r, machine); msg != "" {
			ws = append(ws, Warning{Kind: rule.kind, Message: msg})
		}
	}
	return ws
}

// cpuBoundRule looks at each clone's thread and at the machine. The
// thread of a null-engine job does nothing but run the harness, and a
// hipri job polls for its completions by design: neither thread says the
// device was not measured, so only the machine is looked at for them.
func cpuBoundRule(r *Result, machine cpuBusy) string {
	var parts []string
	var worst *workload.JobResult
	var worstFrac float64
	over := 0
	if r.Job.Engine != "null" && !r.Job.Hipri {
		for _, j := range r.Jobs {
			if j.Runtime <= 0 {
				continue
			}
			frac := float64(j.UsrCPU+j.SysCPU) / float64(j.Runtime)
			if frac < CPUBoundFraction {
				continue
			}
			over++
			if worst == nil || frac > worstFrac {
				worst, worstFrac = j, frac
			}
		}
	}
	if worst != nil {
		s := fmt.Sprintf("the job thread was %s busy (usr %s, sys %s of its %s runtime)",
			pct(worstFrac), pct(float64(worst.UsrCPU)/float64(worst.Runtime)),
			pct(float64(worst.SysCPU)/float64(worst.Runtime)), human.Duration(worst.Runtime))
		if len(r.Jobs) > 1 {
			s += fmt.Sprintf(" in clone %d; %d of %d clones at %s or more", worst.Clone, over, len(r.Jobs), pct(CPUBoundFraction))
		}
		parts = append(parts, s)
	}
	if machine.known && machine.frac >= CPUBoundFraction {
		parts = append(parts, fmt.Sprintf("the machine's CPUs were %s busy over the run", pct(machine.frac)))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": latency measures the CPU, not the device"
}

// pageCacheRule compares the bytes of buffered reads with what the
// target's device (the first of Devices) read over the run.
func pageCacheRule(r *Result, _ cpuBusy) string {
	if r.Job.Direct || len(r.Devices) == 0 || len(r.IOStatSamples) == 0 {
		return ""
	}
	var read uint64
	for _, j := range r.Jobs {
		read += j.Dirs[workload.DirRead].Bytes
	}
	dd, ok := r.IOStat.Disk(r.Devices[0])
	if read == 0 || !ok {
		return ""
	}
	dev := dd.Diff.ReadSectors * 512 // diskstats counts 512-byte sectors
	if float64(dev) >= PageCacheFraction*float64(read) {
		return ""
	}
	return fmt.Sprintf("buffered reads of %s, but %s read %s (%s of it): the page cache served them, so the figures measure memory, not the device; set Direct or drop the cache first",
		human.Bytes(float64(read)), dd.Name, human.Bytes(float64(dev)), pct(float64(dev)/float64(read)))
}

// shortRunRule looks at the longest clone's measured runtime; a run that
// completed no I/O has failed for reasons of its own, reported already.
func shortRunRule(r *Result, _ cpuBusy) string {
	var longest time.Duration
	var ios uint64
	for _, j := range r.Jobs {
		longest = max(longest, j.Runtime)
		for d := range workload.NumDirs {
			ios += j.Dirs[d].IOs
		}
	}
	if ios == 0 || longest >= MinPlausibleRuntime {
		return ""
	}
	return fmt.Sprintf("measured for %s, under %s: percentiles and throughput of so short a run are mostly noise",
		human.Duration(longest), human.Duration(MinPlausibleRuntime))
}

// smallWorkingSetRule applies to reads of a real block device only: a
// loop device or file stortest made is small by design, and what caches
// it shows in the page-cache warning.
func smallWorkingSetRule(r *Result, _ cpuBusy) string {
	if r.Target == nil || r.Target.Kind != KindDevice || !r.Job.RW.Reads() {
		return ""
	}
	ws := workingSet(r.Job, r.Target.Size)
	if ws <= 0 || ws >= MinPlausibleWorkingSet {
		return ""
	}
	return fmt.Sprintf("reads a working set of %s of %s, under %s: the device's cache may hold it, so reads may measure the cache",
		human.Bytes(float64(ws)), r.Target.Path, human.Bytes(MinPlausibleWorkingSet))
}

// sharedDeviceRule compares the bytes each device under the target moved
// with the bytes its own I/O explains. A disk under the target (the disk
// of a partition, under a loop device's backing file, under dm) is
// judged against the target's device, whose counters cover the same
// interval: ramp, layout and repeats pass through both. The target's
// device itself is judged against the run's bytes only where those are
// all it should have moved: direct I/O to a block device, with no ramp,
// verify pass or repeats outside the measured figures. Buffered I/O
// reaches a disk through the page cache, so a disk may move less than
// its device, and write-back of earlier writes may count as other I/O.
func sharedDeviceRule(r *Result, _ cpuBusy) string {
	if len(r.Devices) == 0 || len(r.IOStatSamples) == 0 || r.IOStat.Interval == 0 {
		return ""
	}
	secs := float64(r.IOStat.Interval) / 100
	moved := func(name string) (uint64, bool) {
		dd, ok := r.IOStat.Disk(name)
		if !ok {
			return 0, false
		}
		return (dd.Diff.ReadSectors + dd.Diff.WriteSectors) * 512, true
	}
	var worst string
	var worstRate, worstOwn float64
	check := func(name string, other, own uint64) {
		if other <= own {
			return
		}
		rate := float64(other-own) / secs
		if rate < MinSharedRate || float64(other-own) <= SharedFraction*float64(own) || rate <= worstRate {
			return
		}
		worst, worstRate, worstOwn = name, rate, float64(own)/secs
	}
	dev, ok := moved(r.Devices[0])
	if !ok {
		return ""
	}
	if r.Job.Direct && r.Job.RampTime == 0 && r.Job.Verify == workload.VerifyNone && len(r.repeats) == 0 &&
		r.Target != nil && r.Target.Kind != KindFile {
		var own uint64
		for _, j := range r.Jobs {
			own += j.Dirs[workload.DirRead].Bytes + j.Dirs[workload.DirWrite].Bytes
		}
		check(r.Devices[0], dev, own)
	}
	for _, d := range r.Devices[1:] {
		if b, ok := moved(d); ok {
			check(d, b, dev)
		}
	}
	if worst == "" {
		return ""
	}
	return fmt.Sprintf("%s moved %s/s besides the run's I/O (%s/s): something else shared the device, so the figures are not the device's alone",
		worst, human.Bytes(worstRate), human.Bytes(worstOwn))
}

// shared is what the run's shared-device warning saw, the figures
// without the explanation ("vda moved 20MiB/s besides the run's I/O
// (195MiB/s)"), for baselines.Baseline.Shared; "" without the warning.
func (r *Result) shared() string {
	for _, w := range r.Warnings {
		if w.Kind == WarnSharedDevice {
			before, _, _ := strings.Cut(w.Message, ": ")
			return before
		}
	}
	return ""
}

// workingSet is the span of a target of size bytes that job touches:
// Size bytes from Offset, or up to the end; 0 when unknown.
func workingSet(job workload.Job, size int64) int64 {
	rest := size - job.Offset
	switch {
	case job.Size > 0 && size > 0:
		return min(job.Size, rest)
	case job.Size > 0:
		return job.Size
	case size > 0:
		return rest
	}
	return 0
}

// pct prints a fraction as a whole percentage: "97%".
func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" }

// cpuBusy is the busy fraction of all the machine's CPUs over a run;
// known is false when the CPUs' times could not be read.
type cpuBusy struct {
	frac  float64
	known bool
}

// machineBusy is the busy share of the machine's CPUs in the avg-cpu
// figures sampled over a run (Result.IOStat.CPU): user, nice, system
// (with interrupts) and steal, of the time that is not lost to a counter
// gone back; idle and iowait are not busy (a CPU waiting on I/O could
// have run something). Unknown without figures or when no tick passed.
func machineBusy(c *iostat.AvgCPU) cpuBusy {
	if c == nil {
		return cpuBusy{}
	}
	busy := c.User + c.Nice + c.System + c.Steal
	if busy+c.Idle+c.IOWait == 0 {
		return cpuBusy{}
	}
	return cpuBusy{frac: busy / (busy + c.Idle + c.IOWait), known: true}
}
