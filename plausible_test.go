package stortest

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/iostat"
	"stortest.dev/latency"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// plausibleRun is a run that gives no warning: 2 s of direct 4 KiB
// random reads (100,000 of them, 391MiB) over the whole of a 100 GiB
// device, its thread 25% busy, the device reading every byte.
func plausibleRun() *Result {
	job := workload.Job{Name: "rr", Engine: "io_uring", RW: workload.RandRead, BlockSize: 4096,
		IODepth: 32, Direct: true, Runtime: 2 * time.Second, Filename: "/dev/sdb"}.Normalized()
	return &Result{
		Result:  &workload.Result{Jobs: []*workload.JobResult{plausibleClone(job, 0)}},
		Job:     job,
		Target:  &Dev{Path: "/dev/sdb", Kind: KindDevice, Size: 100 << 30},
		Devices: []string{"sdb"},
		IOStat: iostat.Delta{Interval: 200, Disks: []iostat.DiskDelta{{
			Name: "sdb", Interval: 200, Diff: iostat.IOStats{ReadIOs: 100_000, ReadSectors: 800_000},
		}}},
		IOStatSamples: []iostat.Delta{{}, {}},
	}
}

func plausibleClone(job workload.Job, clone int) *workload.JobResult {
	jr := workload.NewJobResult(job, clone, latency.FioLayout)
	jr.Runtime, jr.UsrCPU, jr.SysCPU = 2*time.Second, 300*time.Millisecond, 200*time.Millisecond
	jr.Dirs[workload.DirRead].IOs, jr.Dirs[workload.DirRead].Bytes = 100_000, 100_000*4096
	return jr
}

// The messages of the rules for plausibleRun's figures.
const (
	cpuThreadMsg = "the job thread was 95% busy (usr 60%, sys 35% of its 2s runtime)"
	cpuMachine   = "the machine's CPUs were 95% busy over the run"
	cpuTail      = ": latency measures the CPU, not the device"
	pageCacheMsg = "buffered reads of 390.6MiB, but sdb read 0B (0% of it): the page cache served them, " +
		"so the figures measure memory, not the device; set Direct or drop the cache first"
	shortRunMsg   = "measured for 300ms, under 1s: percentiles and throughput of so short a run are mostly noise"
	smallWSPrefix = "reads a working set of "
	smallWSTail   = " of /dev/sdb, under 1GiB: the device's cache may hold it, so reads may measure the cache"
)

func TestPlausibilityRules(t *testing.T) {
	busy := cpuBusy{frac: 0.95, known: true}
	threadBusy := func(r *Result) { r.Jobs[0].UsrCPU, r.Jobs[0].SysCPU = 1200*time.Millisecond, 700*time.Millisecond }
	buffered := func(sectors uint64) func(r *Result) {
		return func(r *Result) { r.Job.Direct, r.IOStat.Disks[0].Diff.ReadSectors = false, sectors }
	}
	short := func(r *Result) {
		r.Jobs[0].Runtime, r.Jobs[0].UsrCPU, r.Jobs[0].SysCPU = 300*time.Millisecond, 50*time.Millisecond, 20*time.Millisecond
	}
	for _, tc := range []struct {
		name    string
		machine cpuBusy
		edit    func(r *Result)
		want    []Warning
	}{
		{name: "plausible", machine: cpuBusy{frac: 0.3, known: true}},

		// cpu-bound
		{name: "thread busy", edit: threadBusy, want: []Warning{{Kind: WarnCPUBound, Message: cpuThreadMsg + cpuTail}}},
		{name: "thread at 89%", edit: func(r *Result) { r.Jobs[0].UsrCPU, r.Jobs[0].SysCPU = 1180*time.Millisecond, 600*time.Millisecond }},
		{name: "thread of a null job", edit: func(r *Result) { threadBusy(r); r.Job.Engine = "null" }},
		{name: "thread polling (hipri)", edit: func(r *Result) { threadBusy(r); r.Job.Hipri = true }},
		{name: "thread without runtime", edit: func(r *Result) { threadBusy(r); r.Jobs[0].Runtime = 0; r.Jobs[0].Dirs[0].IOs = 0 }},
		{name: "machine busy", machine: busy, want: []Warning{{Kind: WarnCPUBound, Message: cpuMachine + cpuTail}}},
		{name: "machine at 89%", machine: cpuBusy{frac: 0.89, known: true}},
		{name: "machine unknown", machine: cpuBusy{frac: 1, known: false}},
		{name: "thread and machine", machine: busy, edit: threadBusy,
			want: []Warning{{Kind: WarnCPUBound, Message: cpuThreadMsg + "; " + cpuMachine + cpuTail}}},
		{name: "busiest of clones", edit: func(r *Result) {
			for c := 1; c < 4; c++ {
				r.Jobs = append(r.Jobs, plausibleClone(r.Job, c))
			}
			r.Jobs[1].UsrCPU, r.Jobs[1].SysCPU = 1140*time.Millisecond, 700*time.Millisecond // 92%
			r.Jobs[3].UsrCPU, r.Jobs[3].SysCPU = 1240*time.Millisecond, 700*time.Millisecond // 97%
			r.IOStat.Disks[0].Diff.ReadSectors *= 4
		}, want: []Warning{{Kind: WarnCPUBound, Message: "the job thread was 97% busy (usr 62%, sys 35% of its 2s runtime) in clone 3; " +
			"2 of 4 clones at 90% or more" + cpuTail}}},

		// page-cache
		{name: "buffered, device idle", edit: buffered(0), want: []Warning{{Kind: WarnPageCache, Message: pageCacheMsg}}},
		{name: "buffered, device read 40%", edit: buffered(320_000), want: []Warning{{Kind: WarnPageCache, Message: "buffered reads of 390.6MiB, but sdb read 156.2MiB (40% of it): the page cache served them, " +
			"so the figures measure memory, not the device; set Direct or drop the cache first"}}},
		{name: "buffered, device read 60%", edit: buffered(480_000)},
		{name: "buffered, device read more (read-ahead)", edit: buffered(1_600_000)},
		{name: "direct, device idle", edit: func(r *Result) { r.IOStat.Disks[0].Diff.ReadSectors = 0 }},
		{name: "buffered, no iostat", edit: func(r *Result) { buffered(0)(r); r.IOStatSamples, r.IOStat = nil, iostat.Delta{} }},
		{name: "buffered, no devices (tmpfs)", edit: func(r *Result) { buffered(0)(r); r.Devices = nil }},
		{name: "buffered writes", edit: func(r *Result) {
			buffered(0)(r)
			r.Job.RW = workload.RandWrite
			d := &r.Jobs[0].Dirs
			d[workload.DirWrite], d[workload.DirRead] = d[workload.DirRead], workload.DirStats{}
		}},

		// short-run
		{name: "300ms", edit: short, want: []Warning{{Kind: WarnShortRun, Message: shortRunMsg}}},
		{name: "1s", edit: func(r *Result) { r.Jobs[0].Runtime = time.Second; r.Jobs[0].UsrCPU /= 2; r.Jobs[0].SysCPU /= 2 }},
		{name: "300ms without I/O", edit: func(r *Result) { short(r); r.Jobs[0].Dirs[workload.DirRead].IOs = 0 }},
		{name: "one clone of two long enough", edit: func(r *Result) {
			short(r)
			r.Jobs = append(r.Jobs, plausibleClone(r.Job, 1))
			r.IOStat.Disks[0].Diff.ReadSectors *= 2
		}},

		// small-working-set
		{name: "64MiB of a device", edit: func(r *Result) { r.Job.Size = 64 << 20 },
			want: []Warning{{Kind: WarnSmallWorkingSet, Message: smallWSPrefix + "64MiB" + smallWSTail}}},
		{name: "the last 512MiB of a device", edit: func(r *Result) { r.Job.Offset = r.Target.Size - 512<<20 },
			want: []Warning{{Kind: WarnSmallWorkingSet, Message: smallWSPrefix + "512MiB" + smallWSTail}}},
		{name: "Size past the end of a device", edit: func(r *Result) { r.Job.Offset, r.Job.Size = r.Target.Size-(256<<20), 4<<30 },
			want: []Warning{{Kind: WarnSmallWorkingSet, Message: smallWSPrefix + "256MiB" + smallWSTail}}},
		{name: "a whole 900MiB device", edit: func(r *Result) { r.Target.Size = 900 << 20 },
			want: []Warning{{Kind: WarnSmallWorkingSet, Message: smallWSPrefix + "900MiB" + smallWSTail}}},
		{name: "1GiB of a device", edit: func(r *Result) { r.Job.Size = 1 << 30 }},
		{name: "64MiB of a device, writes", edit: func(r *Result) { r.Job.Size, r.Job.RW = 64<<20, workload.RandWrite }},
		{name: "64MiB of a loop device", edit: func(r *Result) { r.Job.Size, r.Target.Kind = 64<<20, KindLoop }},
		{name: "64MiB of a file", edit: func(r *Result) { r.Job.Size, r.Target.Kind = 64<<20, KindFile }},
		{name: "device of unknown size", edit: func(r *Result) { r.Target.Size = 0 }},

		{name: "everything", machine: busy, edit: func(r *Result) { threadBusy(r); buffered(0)(r); r.Job.Size = 64 << 20 },
			want: []Warning{
				{Kind: WarnCPUBound, Message: cpuThreadMsg + "; " + cpuMachine + cpuTail},
				{Kind: WarnPageCache, Message: pageCacheMsg},
				{Kind: WarnSmallWorkingSet, Message: smallWSPrefix + "64MiB" + smallWSTail},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := plausibleRun()
			if tc.edit != nil {
				tc.edit(r)
			}
			if diff := cmp.Diff(tc.want, plausibility(r, tc.machine)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlausibleCPUFixtures reads /proc/stat captured on a 2-CPU machine
// idle for 2 s, and while two shell loops spun for 2 s, as Run's iostat
// samples read it (avg-cpu).
func TestPlausibleCPUFixtures(t *testing.T) {
	read := func(name string) iostat.CPUStats {
		t.Helper()
		f, err := os.Open(filepath.Join("testdata", "procstat", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c, err := iostat.ParseCPUStat(f, name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	between := func(before, after string) cpuBusy {
		c := iostat.NewAvgCPU(read(before), read(after))
		return machineBusy(&c)
	}
	idle := between("idle-before", "idle-after")
	busy := between("busy-before", "busy-after")
	if !idle.known || idle.frac > 0.05 {
		t.Errorf("idle machine: %+v, want known and under 5%% busy", idle)
	}
	if !busy.known || busy.frac < 0.99 {
		t.Errorf("spinning machine: %+v, want known and over 99%% busy", busy)
	}
	r := plausibleRun()
	if ws := plausibility(r, idle); len(ws) != 0 {
		t.Errorf("idle machine: warnings %v", ws)
	}
	want := []Warning{{Kind: WarnCPUBound, Message: "the machine's CPUs were 100% busy over the run" + cpuTail}}
	if diff := cmp.Diff(want, plausibility(r, busy)); diff != "" {
		t.Errorf("spinning machine: warnings (-want +got):\n%s", diff)
	}
	if got := between("busy-before", "busy-before"); got.known {
		t.Errorf("no tick between = %+v, want unknown", got)
	}
	if got := machineBusy(nil); got.known {
		t.Errorf("no CPU figures = %+v, want unknown", got)
	}
	// iowait can go back on a tickless kernel: it reads 0 and the rest
	// is shared among the modes that moved.
	if got := machineBusy(&iostat.AvgCPU{User: 60, System: 30, IOWait: 0, Idle: 10}); got.frac != 0.9 || !got.known {
		t.Errorf("iowait gone back: %+v, want 90%% busy", got)
	}
}

// TestPlausibleRunLoop runs 300 ms of buffered reads of a loop device
// read once before, so that its page cache holds it: the run warns
// "page-cache" and "short-run" in the log, the Result and the JUnit
// testcase, and fails nothing.
//
// The job keeps the cache (fio's invalidate=0). By default a job drops a
// block device's cache before its first I/O (BLKFLSBUF), undoing the
// warm-up, and the warning then rested on the run itself reading its
// 16 MiB more than twice over in 300 ms. On a loaded machine it did not:
// its reads missed the cache and went to the disk, the device rightly
// read as much as the job, and the test failed in 91 of 100 runs under
// stress-ng --cpu 2 --io 2 (1-minute load average 19 to 690, median 22,
// on 2 CPUs). With the cache kept it failed in none of 100 (load 22 to
// 58, median 31): the device read 0 bytes in 99 runs and 256 KiB in one
// (1.4% of that run's 19 MB), the job 17 MB at the least, against the
// warning's threshold of half the job's bytes.
func TestPlausibleRunLoop(t *testing.T) {
	testenv.RequireRoot(t)
	f := newFake(t)
	defer f.finish()
	var r *Result
	f.run(func(tb testing.TB) {
		dev := LoopDevice(tb, 16<<20)
		warm, err := os.Open(dev.Path)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = io.Copy(io.Discard, warm)
		warm.Close()
		if err != nil {
			tb.Fatal(err)
		}
		r = Run(tb, dev, workload.Job{Name: "cached", RW: workload.RandRead, BlockSize: 4096,
			Runtime: 300 * time.Millisecond, TimeBased: true, PageCache: workload.PageCache{NoInvalidate: true}},
			IOStatEvery(100*time.Millisecond))
	})
	if r == nil || len(f.fatals)+len(f.errors) > 0 || f.failed {
		t.Fatalf("fatals %q, errors %q, skips %q", f.fatals, f.errors, f.skips)
	}
	var read uint64
	for _, j := range r.Jobs {
		read += j.Dirs[workload.DirRead].Bytes
	}
	if len(r.Devices) == 0 {
		t.Fatalf("no devices under %s", r.Target)
	}
	if dd, ok := r.IOStat.Disk(r.Devices[0]); ok {
		t.Logf("the job read %d bytes, %s %d", read, dd.Name, dd.Diff.ReadSectors*512)
	}
	byKind := map[string]string{}
	for _, w := range r.Warnings {
		byKind[w.Kind] = w.Message
	}
	for _, k := range []string{WarnPageCache, WarnShortRun} {
		if byKind[k] == "" {
			t.Errorf("no %s warning: %+v (devices %v, iostat %+v)", k, r.Warnings, r.Devices, r.IOStat.Disks)
		}
	}
	if byKind[WarnSmallWorkingSet] != "" {
		t.Errorf("small-working-set on a loop device: %s", byKind[WarnSmallWorkingSet])
	}

	cs := casesOf(t, t.Name())
	if len(cs) != 1 {
		t.Fatalf("%d testcases", len(cs))
	}
	c := cs[0]
	if len(c.Failures)+len(c.Errors) > 0 || c.Skipped != "" {
		t.Errorf("warnings failed the testcase: %+v %+v %q", c.Failures, c.Errors, c.Skipped)
	}
	for _, w := range r.Warnings {
		t.Logf("%s: %s", w.Kind, w.Message)
		line := "stortest: cached: warning: " + w.Message
		if !slices.Contains(f.logs, line) {
			t.Errorf("log lacks %q: %q", line, f.logs)
		}
		if !slices.Contains(c.Properties, report.Property{Name: "warning." + w.Kind, Value: w.Message}) {
			t.Errorf("no property warning.%s=%q: %v", w.Kind, w.Message, c.Properties)
		}
		if !strings.Contains(c.Output, "warning: "+w.Message+"\n") {
			t.Errorf("system-out lacks the warning %q:\n%s", w.Message, c.Output)
		}
	}
}

// TestSharedDeviceRule: other I/O on the target's device, or on the disk
// under it, beyond 5% of the run's own bytes and 1 MiB/s is a warning;
// where the device's bytes need not be the run's (buffered I/O, a ramp,
// a file's file system) only the disks under it are judged.
func TestSharedDeviceRule(t *testing.T) {
	const own = 100_000 * 4096 // plausibleRun's bytes, over 2 s
	extra := func(dev string, bytes uint64) func(r *Result) {
		return func(r *Result) {
			for i := range r.IOStat.Disks {
				if r.IOStat.Disks[i].Name == dev {
					r.IOStat.Disks[i].Diff.WriteSectors += bytes / 512
				}
			}
		}
	}
	// overLoop makes the target a loop device over a file on vda,
	// which moved the loop device's bytes and more.
	overLoop := func(more uint64) func(r *Result) {
		return func(r *Result) {
			r.Target.Kind, r.Target.Path, r.Devices = KindLoop, "/dev/loop3", []string{"loop3", "vda"}
			r.IOStat.Disks = []iostat.DiskDelta{
				{Name: "loop3", Interval: 200, Diff: iostat.IOStats{ReadSectors: own / 512}},
				{Name: "vda", Interval: 200, Diff: iostat.IOStats{ReadSectors: own / 512, WriteSectors: more / 512}},
			}
		}
	}
	msg := func(dev, rate string) []Warning {
		return []Warning{{Kind: WarnSharedDevice, Message: dev + " moved " + rate +
			"/s besides the run's I/O (195.3MiB/s): something else shared the device, so the figures are not the device's alone"}}
	}
	for _, tc := range []struct {
		name string
		edit func(r *Result)
		want []Warning
	}{
		{name: "device moved 20MiB/s more", edit: extra("sdb", 40<<20), want: msg("sdb", "20MiB")},
		{name: "device moved 4% more", edit: extra("sdb", own*4/100)},
		{name: "device moved 6% more", edit: extra("sdb", own*6/100), want: msg("sdb", "11.72MiB")},
		{name: "under 1MiB/s", edit: func(r *Result) {
			// A slow run: 1000 I/Os, and 1.5 MiB of other I/O.
			r.Jobs[0].Dirs[workload.DirRead].Bytes = 1000 * 4096
			r.IOStat.Disks[0].Diff.ReadSectors = (1000*4096 + 3<<19) / 512
		}},
		{name: "buffered: the device is not judged", edit: func(r *Result) { extra("sdb", 40<<20)(r); r.Job.Direct = false }},
		{name: "ramp: the device is not judged", edit: func(r *Result) { extra("sdb", 40<<20)(r); r.Job.RampTime = time.Second }},
		{name: "a file: its file system is not judged", edit: func(r *Result) { extra("sdb", 40<<20)(r); r.Target.Kind = KindFile }},
		{name: "disk under a loop device, quiet", edit: overLoop(0)},
		{name: "disk under a loop device, a neighbour", edit: overLoop(40 << 20), want: msg("vda", "20MiB")},
		{name: "disk under a loop device, buffered", edit: func(r *Result) { overLoop(40 << 20)(r); r.Job.Direct = false },
			want: msg("vda", "20MiB")},
		{name: "no iostat", edit: func(r *Result) { extra("sdb", 40<<20)(r); r.IOStatSamples = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := plausibleRun()
			tc.edit(r)
			if diff := cmp.Diff(tc.want, plausibility(r, cpuBusy{})); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSharedDeviceLoop: a neighbour writing 16 MiB/s with O_DIRECT to
// another file on the disk under a loop device's backing file, while a
// rated job reads the loop device at 8 MB/s, shows as the shared-device
// warning naming that disk, and the baseline the run records says so.
func TestSharedDeviceLoop(t *testing.T) {
	testenv.RequireRoot(t)
	dev := LoopDevice(t, 64<<20, LoopDirectIO())
	if len(dev.Path) == 0 {
		t.Fatal("no loop device")
	}
	dir := t.TempDir()
	nb, err := os.OpenFile(filepath.Join(dir, "neighbour"), os.O_CREATE|os.O_RDWR|unix.O_DIRECT, 0o600)
	require.NoError(t, err)
	defer nb.Close()
	buf, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(buf)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		// 1 MiB every 62.5 ms over 32 MiB of file, synced.
		tick := time.NewTicker(time.Second / 16)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			case <-tick.C:
			}
			if _, err := nb.WriteAt(buf, int64(i%32)<<20); err != nil {
				done <- err
				return
			}
			if err := unix.Fdatasync(int(nb.Fd())); err != nil {
				done <- err
				return
			}
		}
	}()
	t.Setenv(EnvUpdate, "1")
	res := Run(t, dev, workload.Job{Name: "rated", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Direct: true, Runtime: 2 * time.Second, TimeBased: true, RateIOPS: [3]int{2000}})
	close(stop)
	require.NoError(t, <-done)
	require.GreaterOrEqual(t, len(res.Devices), 2, "a loop device over a file on a disk: %v", res.Devices)
	var msg string
	for _, w := range res.Warnings {
		if w.Kind == WarnSharedDevice {
			msg = w.Message
		}
	}
	require.NotEmpty(t, msg, "no shared-device warning: %+v (iostat %+v)", res.Warnings, res.IOStat.Disks)
	require.True(t, strings.HasPrefix(msg, res.Devices[len(res.Devices)-1]+" moved "), msg)
	t.Logf("%s", msg)

	bdir := t.TempDir()
	ok, errs, _ := checkBaselineFake(t, res, BaselineDir(bdir))
	require.True(t, ok, "%v", errs)
	b, err := baselines.Load(baselines.Path(bdir, t.Name(), "rated"))
	require.NoError(t, err)
	require.Equal(t, res.shared(), b.Shared)
	require.True(t, strings.HasPrefix(b.Shared, res.Devices[len(res.Devices)-1]+" moved "), b.Shared)
}
