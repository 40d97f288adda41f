package stortest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/engines"
	"stortest.dev/internal/owner"
	"stortest.dev/internal/testenv"
	"stortest.dev/iostat"
	"stortest.dev/latency/histlog"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// casesOf returns the JUnit testcases of the named test's runs.
func casesOf(t *testing.T, name string) []report.Case {
	t.Helper()
	all, err := cases()
	if err != nil {
		t.Errorf("cases: %v", err)
	}
	var out []report.Case
	for _, c := range all {
		if c.Classname == name {
			out = append(out, c)
		}
	}
	return out
}

func TestRunFile(t *testing.T) {
	f := newFake(t)
	defer f.finish()
	var r, again *Result
	job := workload.Job{Name: "rr 4k", RW: workload.RandRead, BlockSize: 4096, Runtime: 1200 * time.Millisecond, TimeBased: true}
	f.run(func(tb testing.TB) {
		dev := File(tb, 8<<20)
		r = Run(tb, dev, job, IOStatEvery(250*time.Millisecond))
		job.Runtime = 200 * time.Millisecond
		again = Run(tb, dev, job)
	})
	if len(f.fatals)+len(f.errors) > 0 || r == nil || again == nil {
		t.Fatalf("Run: fatals %q, errors %q", f.fatals, f.errors)
	}
	if r.Name() != "rr 4k" || r.Job.Filename != r.Target.Path || r.Job.Engine != "psync" {
		t.Errorf("job as run: %+v", r.Job)
	}
	if ios := r.Jobs[0].Dirs[workload.DirRead].IOs; ios == 0 || r.Elapsed < 1200*time.Millisecond {
		t.Fatalf("%d reads in %v", ios, r.Elapsed)
	}

	// Test attributes: one per metric, keys without white space.
	for _, p := range report.Metrics(r.Result) {
		key := "rr_4k." + p.Name
		v, ok := f.attrs[key]
		if !ok {
			t.Errorf("no attribute %s (have %v)", key, f.attrs)
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err != nil || n <= 0 {
			t.Errorf("attribute %s=%q", key, v)
		}
	}
	if _, ok := f.attrs["rr_4k.read.clat_p99.9_ns"]; !ok {
		t.Errorf("no p99.9 attribute: %v", f.attrs)
	}

	// Artifacts, in the test's artifact directory; a second run of the
	// same job gets names of its own.
	var bases []string
	for _, a := range append(slices.Clone(r.Artifacts), again.Artifacts...) {
		if filepath.Dir(a) != r.Dir {
			t.Errorf("artifact %s outside %s", a, r.Dir)
		}
		bases = append(bases, filepath.Base(a))
	}
	// The CPUs' figures (avg-cpu) are sampled with or without a device.
	if c := r.IOStat.CPU; c == nil || c.User+c.Nice+c.System+c.Steal+c.IOWait+c.Idle == 0 {
		t.Errorf("no avg-cpu over the run: %+v", c)
	}
	if len(r.Devices) == 0 {
		t.Skipf("the temporary directory has no block device (%v): no iostat to check", r.Devices)
	}
	want := []string{"rr_4k.fio.json", "rr_4k.summary.txt", "rr_4k.iostat.json", "rr_4k.iostat.txt", "rr_4k_clat_hist.1.log", "rr_4k.html",
		"rr_4k.2.fio.json", "rr_4k.2.summary.txt", "rr_4k.2.iostat.json", "rr_4k.2.iostat.txt", "rr_4k.2_clat_hist.1.log", "rr_4k.2.html"}
	if diff := cmp.Diff(want, bases); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}

	// fio's json+: bins present, the job named.
	var fio struct {
		Jobs []struct {
			Jobname string `json:"jobname"`
			Read    struct {
				TotalIOs uint64 `json:"total_ios"`
				Clat     struct {
					Bins map[string]uint64 `json:"bins"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	readJSON(t, r.Artifacts[0], &fio)
	if len(fio.Jobs) != 1 || fio.Jobs[0].Jobname != "rr 4k" || len(fio.Jobs[0].Read.Clat.Bins) == 0 ||
		fio.Jobs[0].Read.TotalIOs != r.Jobs[0].Dirs[workload.DirRead].IOs {
		t.Errorf("fio json+: %+v", fio)
	}

	// iostat samples in sysstat's schema: one report per interval, the
	// target's devices in each.
	var ios struct {
		Sysstat struct {
			Hosts []struct {
				Nodename   string `json:"nodename"`
				Statistics []struct {
					Timestamp string `json:"timestamp"`
					AvgCPU    *struct {
						Idle float64 `json:"idle"`
					} `json:"avg-cpu"`
					Disk []struct {
						Device string  `json:"disk_device"`
						Util   float64 `json:"util"`
					} `json:"disk"`
				} `json:"statistics"`
			} `json:"hosts"`
		} `json:"sysstat"`
	}
	readJSON(t, r.Artifacts[2], &ios)
	if len(ios.Sysstat.Hosts) != 1 || len(ios.Sysstat.Hosts[0].Statistics) < 4 {
		t.Fatalf("iostat JSON: %+v (want 4 or more reports of 250ms over 1.2s)", ios)
	}
	for _, st := range ios.Sysstat.Hosts[0].Statistics {
		var devs []string
		for _, d := range st.Disk {
			devs = append(devs, d.Device)
		}
		if diff := cmp.Diff(r.Devices, devs); diff != "" || st.Timestamp == "" {
			t.Errorf("iostat report at %q: devices (-want +got):\n%s", st.Timestamp, diff)
		}
		if st.AvgCPU == nil {
			t.Errorf("iostat report at %q: no avg-cpu", st.Timestamp)
		}
	}
	if len(r.IOStatSamples) != len(ios.Sysstat.Hosts[0].Statistics) || r.IOStat.Elapsed < time.Second {
		t.Errorf("%d samples, total over %v", len(r.IOStatSamples), r.IOStat.Elapsed)
	}
	// The histogram log in fio's format holds every measured read, one
	// row per second (the last, partial one too).
	hf, err := os.Open(r.Artifacts[4])
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	hr := histlog.NewReader(hf, r.Artifacts[4], histlog.ReaderOptions{})
	var rows int
	var logged uint64
	for hr.Scan() {
		rec := hr.Record()
		rows++
		if rec.Dir != histlog.Read || rec.BlockSize != 4096 {
			t.Errorf("row %d: %v bs=%d", rec.Line, rec.Dir, rec.BlockSize)
		}
		for _, c := range rec.Counts {
			logged += c
		}
	}
	if err := hr.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != len(r.Jobs[0].Seconds) || logged != r.Jobs[0].Dirs[workload.DirRead].IOs || hr.Format().FioVersion() != 3 {
		t.Errorf("histogram log: %d rows, %d reads, %v; want %d rows, %d reads, fio 3's format",
			rows, logged, hr.Format(), len(r.Jobs[0].Seconds), r.Jobs[0].Dirs[workload.DirRead].IOs)
	}

	summary, err := os.ReadFile(r.Artifacts[1])
	if err != nil || !strings.Contains(string(summary), "read: IOPS=") || !strings.Contains(string(summary), "iostat over the run:") {
		t.Errorf("summary: %v\n%s", err, summary)
	}

	// The JUnit testcases: two, the second with a name of its own.
	cs := casesOf(t, t.Name())
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"rr 4k", "rr 4k#2"}, names); diff != "" {
		t.Fatalf("testcases (-want +got):\n%s", diff)
	}
	c := cs[0]
	if !strings.Contains(c.Output, "Device            r/s") || !strings.Contains(c.Output, "avg-cpu:  %user") || !hasProp(c.Properties, "fingerprint.job") ||
		!hasProp(c.Properties, "read.clat_p99.9_ns") || !slices.Equal(c.Attachments, r.Artifacts) {
		t.Errorf("testcase: %+v", c)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestRunLoop runs io_uring with direct I/O on a loop device and checks
// iostat against the runner: the loop device's counters saw the reads.
func TestRunLoop(t *testing.T) {
	testenv.RequireRoot(t)
	f := newFake(t)
	defer f.finish()
	var r *Result
	f.run(func(tb testing.TB) {
		dev := LoopDevice(tb, 16<<20, LoopDirectIO())
		r = Run(tb, dev, workload.Job{Name: "uring", Engine: "io_uring", RW: workload.RandRead, BlockSize: 4096,
			IODepth: 8, Direct: true, Runtime: time.Second, TimeBased: true})
	})
	if r == nil || len(f.fatals)+len(f.errors) > 0 {
		t.Fatalf("fatals %q, errors %q, skips %q", f.fatals, f.errors, f.skips)
	}
	loop := filepath.Base(r.Target.Path)
	if len(r.Devices) < 2 || r.Devices[0] != loop {
		t.Fatalf("devices %v, want %s and the disk under its backing file", r.Devices, loop)
	}
	dd, ok := r.IOStat.Disk(loop)
	if !ok {
		t.Fatalf("no iostat for %s: %+v", loop, r.IOStat)
	}
	ios := r.Jobs[0].Dirs[workload.DirRead].IOs
	// The device completed every measured read, plus those in flight at
	// the end (at most the depth) and the odd read of udev or blkid.
	if dd.Diff.ReadIOs < ios || dd.Diff.ReadIOs > ios+ios/50+64 {
		t.Errorf("iostat counted %d reads on %s, the runner %d", dd.Diff.ReadIOs, loop, ios)
	}
	t.Logf("%s: %d reads, %.0f IOPS, iostat r/s %.2f over %v", loop, ios, r.IOPS(), dd.Ext().RPerS, r.IOStat.Elapsed)
}

func TestRunRefusesUnsafeWrite(t *testing.T) {
	testenv.RequireRoot(t)
	loop := LoopDevice(t, 4<<20)
	job := workload.Job{Name: "wipe", RW: workload.Write, BlockSize: 64 << 10, Size: 1 << 20}

	t.Setenv(EnvAllowDestructive, "")
	f := newFake(t)
	f.run(func(tb testing.TB) { Run(tb, Device(tb, loop.Path), job) })
	f.finish()
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "refusing to write "+loop.Path) ||
		!strings.Contains(f.fatals[0], "STORTEST_ALLOW_DESTRUCTIVE") {
		t.Fatalf("fatals %q", f.fatals)
	}

	// A trim discards data as surely as a write.
	f = runFake(t, func(tb testing.TB) {
		Run(tb, Device(tb, loop.Path), workload.Job{Name: "discard", RW: workload.RandTrim, BlockSize: 64 << 10, Size: 1 << 20})
	})
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "refusing to write "+loop.Path) {
		t.Fatalf("trim: fatals %q", f.fatals)
	}

	// Reads are not refused.
	f = runFake(t, func(tb testing.TB) {
		Run(tb, Device(tb, loop.Path), workload.Job{Name: "look", RW: workload.Read, Size: 1 << 20})
	})
	if len(f.fatals)+len(f.errors) > 0 {
		t.Errorf("a read was refused: %q %q", f.fatals, f.errors)
	}

	t.Setenv(EnvAllowDestructive, loop.Path)
	requireWrites(t, loop.Path, job, 1<<20, "listed device")
}

func TestRunCannotStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dev    *Dev
		job    workload.Job
		want   string // in the fatal message
		record string // the JUnit error, "" for none
	}{
		{"nil target", nil, workload.Job{Name: "x"}, "Run: nil target", ""},
		{"invalid job", &Dev{Path: "/dev/null"}, workload.Job{Name: "x", IODepth: -1}, "iodepth", ""},
		{"filename set", &Dev{Path: "/dev/null"}, workload.Job{Name: "x", Filename: "/etc/passwd"},
			`Filename "/etc/passwd": leave it empty, the target (/dev/null) sets it`, ""},
		{"missing target", &Dev{Path: "/nonexistent/stortest", Kind: KindFile}, workload.Job{Name: "gone", Runtime: time.Second},
			"/nonexistent/stortest", "gone: cannot run: "},
		// A mistyped device path with a size: fio would make it (and its
		// directories); Run refuses it.
		{"missing device", &Dev{Path: "/nonexistent/stortest-nvme"}, workload.Job{Name: "typo", Size: 1 << 20},
			"target /nonexistent/stortest-nvme: ", "typo: cannot run: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := runFake(t, func(tb testing.TB) { Run(tb, tc.dev, tc.job) })
			if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], tc.want) {
				t.Fatalf("fatals %q, want %q", f.fatals, tc.want)
			}
			cs := casesOf(t, t.Name())
			if tc.record == "" {
				if len(cs) != 0 {
					t.Errorf("testcases %+v", cs)
				}
				return
			}
			if len(cs) != 1 || len(cs[0].Errors) != 1 || !strings.HasPrefix(cs[0].Errors[0].Message, tc.record) {
				t.Errorf("testcases %+v, want an error %q", cs, tc.record)
			}
		})
	}
}

func TestArtifactDir(t *testing.T) {
	out := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("GOTMPDIR", tmp)
	// inTemp is the directory of the test made in tmp, "" when none.
	inTemp := func(t *testing.T) string {
		d, _ := filepath.Glob(filepath.Join(tmp, "stortest-artifacts-*", strings.ReplaceAll(t.Name(), "/", "__")))
		if len(d) != 1 {
			t.Errorf("in %s: %q, want one artifact directory", tmp, d)
			return ""
		}
		return d[0]
	}
	for _, tc := range []struct {
		name, out, junit, noCleanup string
		want                        func(t *testing.T, tb testing.TB) string
		temp                        bool
		owned, removed              bool // named after this process; gone after the test
		logs                        []string
	}{
		{name: "out", out: out, want: func(t *testing.T, _ testing.TB) string {
			return filepath.Join(out, strings.ReplaceAll(t.Name(), "/", "__"))
		}},
		{name: "junit", junit: filepath.Join(out, "junit.xml"), want: func(t *testing.T, _ testing.TB) string {
			return filepath.Join(out, "pkg", "testdata", "out", strings.ReplaceAll(t.Name(), "/", "__"))
		}},
		// The test binary removes it, or if it is killed first, the next
		// one (target.CleanOrphans): named after its process.
		{name: "default", want: func(t *testing.T, _ testing.TB) string { return inTemp(t) }, temp: true, owned: true, removed: true},
		{name: "out beats nocleanup", out: out, noCleanup: "1", want: func(t *testing.T, _ testing.TB) string {
			return filepath.Join(out, strings.ReplaceAll(t.Name(), "/", "__"))
		}},
		// Kept, so named after nobody.
		{name: "nocleanup", noCleanup: "1", want: func(t *testing.T, _ testing.TB) string { return inTemp(t) },
			logs: []string{"stortest: STORTEST_NOCLEANUP=1: keeping the artifacts in "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STORTEST_OUT", tc.out)
			t.Setenv("STORTEST_JUNIT", tc.junit)
			t.Setenv(EnvNoCleanup, tc.noCleanup)
			// testdata/out is relative to the package's directory, the
			// working directory of go test: one made for the test here.
			pkg := filepath.Join(out, "pkg")
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(pkg)
			f := newFake(t)
			st := stateOf(f)
			dir, err := st.artifactDir(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want(t, f); dir != want || st.tempDir != tc.temp {
				t.Errorf("dir %s (temporary %v), want %s", dir, st.tempDir, want)
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				t.Errorf("not made: %v", err)
			}
			if tag, ok := owner.Parse(filepath.Base(filepath.Dir(dir))); ok != tc.owned || ok && tag != owner.Tag() {
				t.Errorf("%s: owner %q (%v), want this process's: %v", filepath.Dir(dir), tag, ok, tc.owned)
			}
			f.finish()
			if _, err := os.Stat(dir); tc.removed != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after the test %s: %v, want removed: %v", dir, err, tc.removed)
			}
			if tc.removed {
				if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after the test %s: %v, want removed", filepath.Dir(dir), err)
				}
			} else if strings.HasPrefix(dir, tmp) {
				os.RemoveAll(filepath.Dir(dir))
			}
			var logs []string
			for _, l := range f.logs {
				logs = append(logs, strings.TrimSuffix(l, dir))
			}
			if !slices.Equal(logs, tc.logs) {
				t.Errorf("logs %q, want %q followed by %s", f.logs, tc.logs, dir)
			}
		})
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"randread-4k_qd32": "randread-4k_qd32",
		"a b/c":            "a_b_c",
		"..":               "_..",
		"":                 "_",
		"µs":               "__s",
		"x=1,y@2+z.3":      "x=1,y@2+z.3",
	} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := testDirName("TestA/sub case"); got != "TestA__sub_case" {
		t.Errorf("testDirName = %q", got)
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    workload.Progress
		want string
	}{
		{"ramp", workload.Progress{Elapsed: 2 * time.Second, Ramp: true, ETA: -1}, "j: 2s (ramp): no I/O completed yet"},
		{"mixed", workload.Progress{Elapsed: 5*time.Second + 400*time.Millisecond, ETA: 55 * time.Second,
			IOs:  [workload.NumDirs]uint64{100, 50},
			IOPS: [workload.NumDirs]float64{41873, 12000.4},
			BW:   [workload.NumDirs]float64{41873 * 4096, 12000 * 4096}},
			"j: 5s: read 41.9k IOPS 163.6MiB/s, write 12k IOPS 46.88MiB/s, ETA 55s"},
	} {
		if got := progressLine("j", tc.p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTargetDevices(t *testing.T) {
	fsys := iostat.DefaultFS()
	devs, err := targetDevices(fsys, os.TempDir())
	if err != nil {
		t.Skipf("the temporary directory is not on a block device: %v", err)
	}
	if len(devs) == 0 || slices.Contains(devs[1:], devs[0]) {
		t.Errorf("devices %v: want the device first, no duplicates", devs)
	}
}

// A device that stops answering fails the test, naming the I/Os it never
// answered, instead of hanging it: an injected stall of an hour, far past
// the test's own timeout, ends at the runtime plus the grace period.
func TestRunFailsOnStall(t *testing.T) {
	f := newFake(t)
	defer f.finish()
	var r *Result
	start := time.Now()
	f.run(func(tb testing.TB) {
		dev := File(tb, 4<<20)
		r = Run(tb, dev, workload.Job{Name: "hung", RW: workload.Read, BlockSize: 4096, Runtime: 500 * time.Millisecond, TimeBased: true},
			WithOptions(workload.Options{Grace: 500 * time.Millisecond,
				Faults: &engines.Faults{StallAt: []engines.Range{{Off: 1 << 20, Len: 1 << 20}}, Stall: time.Hour}}))
	})
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("Run took %v for a 0.5 s runtime and a 0.5 s grace period", took)
	}
	if r == nil || len(f.fatals) > 0 {
		t.Fatalf("fatals %q", f.fatals)
	}
	if len(f.errors) != 1 || !strings.Contains(f.errors[0], "hung: clone 0 failed: 1 I/O still outstanding after 500ms runtime + 500ms grace") ||
		!strings.Contains(f.errors[0], "read of 4096 bytes at offset 1048576: ") {
		t.Fatalf("errors %q: want the stall named", f.errors)
	}
	if got := r.Result.Jobs[0].Outstanding; len(got) != 1 || got[0].Offset != 1<<20 {
		t.Errorf("outstanding %+v", got)
	}
}
