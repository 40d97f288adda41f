package stortest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"stortest.dev/baselines"
	"stortest.dev/engines"
	"stortest.dev/internal/human"
	"stortest.dev/iostat"
	"stortest.dev/report"
	"stortest.dev/report/page"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
	"stortest.dev/workload/validate"
)

// Option configures Run.
type Option func(*runConfig)

type runConfig struct {
	progress    time.Duration
	iostatEvery time.Duration
	wopts       workload.Options
	// steadyMeasure is MeasureAfterSteady's; nil for the default.
	steadyMeasure *time.Duration
	extend        *extendConfig // ExtendWhileInconclusive's
	repeat        *repeatConfig // RepeatWhileInconclusive's
	repeats       int           // Repeats'
}

// DefaultProgressEvery is how often Run logs progress under go test -v.
const DefaultProgressEvery = 5 * time.Second

// ProgressEvery sets how often Run logs a progress line under go test -v
// (DefaultProgressEvery by default); 0 turns the lines off.
func ProgressEvery(d time.Duration) Option { return func(c *runConfig) { c.progress = d } }

// IOStatEvery sets the interval of the iostat samples taken during the
// run (iostat.DefaultSampleInterval, a second, by default).
func IOStatEvery(d time.Duration) Option { return func(c *runConfig) { c.iostatEvery = d } }

// ContinueOnError keeps jobs running after failed I/Os (fio's
// continue_on_error=io); by default the first failure ends a job. The
// failures are counted either way (see CheckNoErrors).
func ContinueOnError() Option { return func(c *runConfig) { c.wopts.ContinueOnError = true } }

// WithOptions passes options to the runner (workload.Options): per-second
// hooks, histogram groups, a hook before the verify pass. Progress is
// Run's own and is replaced.
func WithOptions(o workload.Options) Option {
	return func(c *runConfig) {
		keep := c.wopts.ContinueOnError
		c.wopts = o
		c.wopts.ContinueOnError = o.ContinueOnError || keep
	}
}

// Result is the outcome of Run: the runner's result, the iostat of the
// target's devices over the run, and where the artifacts are. Its
// Require* and Check* methods turn limits into test failures, each also
// recorded as a <failure> of the run's testcase in the JUnit report.
type Result struct {
	*workload.Result
	Job     workload.Job // the job as run: normalized, Filename the target's
	Target  *Dev
	Elapsed time.Duration // wall time of the run, ramp included
	// Devices are the target's device and the devices under it whose
	// counters show its I/O ("loop3", "vda"); empty when the target's
	// file system has no block device (tmpfs).
	Devices []string
	// IOStat covers the run, first sample to last; IOStatSamples are the
	// per-interval deltas. Each has the devices' figures and the CPUs'
	// (CPU, iostat's avg-cpu), which tell a device-bound run from a
	// CPU-bound one; without Devices only the CPUs'.
	IOStat        iostat.Delta
	IOStatSamples []iostat.Delta
	// Dir holds the artifacts, whose paths are in Artifacts.
	Dir       string
	Artifacts []string
	// Warnings say why the figures may not measure the device (a
	// CPU-bound run, reads from the page cache...), one per kind (the
	// Warn* constants); they fail nothing.
	Warnings []Warning

	rec *record
	fp  baselines.Fingerprint // where it ran, for baselines and the report
	// repeats are the further runs of the job Repeats made while
	// recording, which CheckBaseline adds to the baseline.
	repeats []*workload.Result
	// again is what RepeatWhileInconclusive did: the further runs
	// CheckBaseline judges with the first, and how; nil without it.
	again *repeated
	// cut says how Main's interrupt cut the run (or its repeats) short;
	// nil for a run that ended on its own. The checks do not judge such
	// a run (see partial.go).
	cut *cutShort
	// checks are the checks made on the run, for its page (htmlpage.go);
	// under collected.mu.
	checks []page.Check
}

// Name is the job's name, which names the run in messages and reports.
func (r *Result) Name() string { return r.Job.Name }

// Run runs job on target under t.Context() and returns the result. The
// job's Filename must be empty (or the target's path); the target fills
// it.
//
// A write workload on a real block device (KindDevice) runs only when
// the device is listed in STORTEST_ALLOW_DESTRUCTIVE, and never while it
// or one of its partitions is mounted, held by another device or used as
// swap: otherwise Run stops the test (FailNow) and says why.
//
// While the job runs, Run samples the counters of the target's devices
// and the CPUs' times (iostat with avg-cpu; Result.IOStat) and, under
// go test -v, logs a progress line every few seconds (ProgressEvery). Afterwards it records the headline metrics as test
// attributes (t.Attr "<job>.read.iops", "<job>.read.clat_p99.9_ns"...,
// which gotestsum's JUnit shows), writes the artifacts (fio json+, the
// summary, iostat samples as JSON in sysstat's schema and as text, a
// clat histogram log per job clone in fio's format) to the test's
// artifact directory (-stortest.out), and adds the run to the JUnit
// report Main writes.
//
// Under Main, SIGINT or SIGTERM, or the test binary's -timeout about to
// expire, cancels the job: Run returns its partial results, recorded as
// usual with an error of type "cancelled" in the report, and fails the
// test (Errorf) saying so; the checks of the Result then leave its
// measurements unjudged (see the Check* methods). A Run called after
// the signal does not start the job but skips the test (SkipNow), or
// fails it (FailNow) when it has run a job already, "cancelled by
// SIGINT".
//
// A baseline stored for the test's job that was recorded on another
// device (another model, serial, size or loop backing file) is refused
// before the job starts, not after it has run: Run stops the test
// (FailNow) naming the baseline file, both devices and the command that
// records a baseline for this device, and the device sees no I/O. The
// baseline is looked for where CheckBaseline looks by default
// (-stortest.baselines, else testdata/baselines), or in the BaselineDir
// given to ExtendWhileInconclusive or RepeatWhileInconclusive; nothing is
// refused while -stortest.update records a new baseline in its place.
//
// Run stops the test (FailNow) when the job cannot start (a bad job, a
// missing target), and skips it (or fails it with
// STORTEST_REQUIRE_DEVICE=1) when it lacks the rights or the kernel
// lacks the engine. A job that fails
// on its own during the run (an engine fault) fails the test and
// continues (Errorf); failed I/Os do not: see CheckNoErrors.
func Run(t testing.TB, target *Dev, job workload.Job, opts ...Option) *Result {
	t.Helper()
	cfg := runConfig{progress: DefaultProgressEvery}
	for _, o := range opts {
		o(&cfg)
	}
	if target == nil {
		t.Fatal("stortest: Run: nil target")
	}
	if job.Filename != "" && job.Filename != target.Path {
		t.Fatalf("stortest: job %s: Filename %q: leave it empty, the target (%s) sets it", job.Name, job.Filename, target.Path)
	}
	job.Filename = target.Path
	job = job.Normalized()
	if err := validate.Job(&job); err != nil {
		t.Fatalf("stortest: %v", err)
	}
	for _, w := range validate.Warnings(&job) {
		t.Logf("stortest: %s: warning: %s", job.Name, w)
	}
	if job.RW.Modifies() && target.Kind == KindDevice { // a trim destroys data too
		if err := checkWrite(target.Path, job); err != nil {
			t.Fatalf("%v", err)
		}
	}
	st := stateOf(t)
	// Counted before the check: a signal either stops this Run here or
	// finds it under way, and Main's first report waits for it.
	runsInFlight.Add(1)
	defer runsInFlight.Add(-1)
	if interrupted.Err() != nil {
		_, caseName := st.names(job.Name)
		refuseInterrupted(t, st, job.Name, caseName)
	}
	// Where it runs: read from sysfs, no I/O. A baseline of another
	// device is refused now, not after the run.
	fp, fpErr := baselines.Probe(target.Path, baselines.ProbeOptions{Engine: job.Engine})
	if fpErr == nil {
		refuseOtherDevice(t, st, target, job, &cfg, fp)
	}
	rc, err := repeatFor(&cfg)
	if err != nil {
		t.Fatalf("stortest: %s: %v", job.Name, err)
	}
	dir, err := st.artifactDir(t)
	if err != nil {
		t.Fatalf("%v", err)
	}
	base, caseName := st.names(job.Name)

	// The workload stops when the test ends or when Main's binary gets
	// SIGINT or SIGTERM, whichever comes first.
	ctx, stop := withInterrupt(t.Context())
	defer stop()
	fsys := iostat.DefaultFS()
	devices, err := targetDevices(fsys, target.Path)
	if err != nil {
		t.Logf("stortest: %s: no iostat: %v", job.Name, err)
	}
	// The samples hold the CPUs' times too (avg-cpu), so a run without a
	// block device under it is sampled all the same.
	src := iostat.FromDiskstats
	if len(devices) == 0 {
		src = iostat.NoDevices
	}
	sampler, err := fsys.StartSampler(ctx, iostat.SamplerConfig{Interval: cfg.iostatEvery, Source: src, Devices: devices})
	if err != nil {
		t.Logf("stortest: %s: no iostat: %v", job.Name, err)
	}

	wopts := cfg.wopts
	if wopts.SteadyMeasure == 0 {
		wopts.SteadyMeasure = steadyMeasure(&cfg, t.Name(), job)
	}
	wopts.HistLogPrefix = filepath.Join(dir, base)
	wopts.CheckFile = guardFiles(target, wopts.CheckFile)
	wopts.Progress = nil
	if cfg.progress > 0 && testing.Verbose() {
		var last time.Duration
		wopts.Progress = func(p workload.Progress) {
			if p.Done || p.Elapsed-last < cfg.progress {
				return
			}
			last = p.Elapsed
			t.Logf("%s", progressLine(job.Name, p))
		}
	}
	start := time.Now()
	// A target is a device or file that exists: fio would make a missing
	// path (directories and all), which would turn a mistyped device
	// name into a benchmark of a new file.
	wres, err := (*workload.Result)(nil), targetExists(target)
	if err == nil {
		wres, err = runner.Run(ctx, job, wopts)
	}
	if err == nil && cfg.extend != nil {
		wres = extendRun(ctx, t, job, wopts, wres, cfg.extend)
	}
	var again *repeated
	if err == nil && rc != nil {
		again = repeatRun(ctx, t, job, wopts, wres, fp, rc)
	}
	var repeats []*workload.Result
	if err == nil && cfg.repeats > 1 && Update() {
		repeats = repeatRuns(ctx, t, job, wopts, cfg.repeats)
	}
	elapsed := time.Since(start)
	var snaps []iostat.Snapshot
	if sampler != nil {
		var serr error
		if snaps, serr = sampler.Stop(); serr != nil {
			t.Logf("stortest: %s: iostat: %v", job.Name, serr)
		}
	}
	if err != nil {
		// The run is in the report too, so CI shows what did not run.
		notRun := report.Run{Test: t.Name(), Job: caseName, Elapsed: elapsed}
		// No rights (io_uring disabled by sysctl or seccomp, a device
		// opened read-only) or an engine the kernel lacks: the machine
		// cannot run this test, which is a skip unless devices are required.
		denied := errors.Is(err, fs.ErrPermission) || errors.Is(err, engines.ErrUnsupported)
		if denied && !envIs1(EnvRequireDevice) {
			notRun.Skipped = err.Error()
		} else {
			notRun.Errors = []report.Failure{{Message: job.Name + ": cannot run: " + err.Error(), Type: "run"}}
		}
		st.add(&record{run: notRun})
		if denied {
			skipOrFail(t, "%v", err)
		}
		t.Fatalf("stortest: %v", err)
	}

	r := &Result{Result: wres, Job: job, Target: target, Elapsed: elapsed, Devices: devices, Dir: dir, repeats: repeats,
		again: again, fp: fp}
	if fpErr != nil {
		t.Logf("stortest: %s: fingerprint: %v", job.Name, fpErr)
	}
	if len(snaps) >= 2 {
		r.IOStatSamples = iostat.Deltas(snaps)
		r.IOStat, _ = iostat.Total(snaps) // fails only with fewer than two
	}
	hostInfo, _ := iostat.LocalHost(fsys, start)
	r.Warnings = plausibility(r, machineBusy(r.IOStat.CPU))
	for _, w := range r.Warnings {
		t.Logf("stortest: %s: warning: %s", job.Name, w.Message)
	}

	for _, p := range report.Metrics(wres) {
		t.Attr(attrKey(job.Name+"."+p.Name), p.Value)
	}
	r.Artifacts, err = writeArtifacts(dir, base, r, hostInfo, start)
	if err != nil {
		t.Errorf("%v", err)
	}

	run := report.Run{
		Test: t.Name(), Job: caseName, Result: wres, Host: hostInfo, Elapsed: elapsed,
		Fingerprint: fingerprint(target, devices, job, r.fp), Artifacts: r.Artifacts,
		Warnings: r.Warnings,
	}
	if len(r.IOStatSamples) > 0 {
		total := r.IOStat
		run.IOStat = &total
	}
	r.rec = &record{run: run}
	st.add(r.rec)
	if again != nil {
		r.rec.addProperty(RunsProperty, itoa(again.runs()))
	}

	canceled := false
	for _, j := range wres.Jobs {
		var ioErr workload.IOError
		switch {
		case j.Err == nil:
		case errors.As(j.Err, &ioErr):
			t.Logf("stortest: %s.%d stopped on a failed I/O: %v", j.Name, j.Clone, j.Err)
		default:
			msg := fmt.Sprintf("%s: clone %d failed: %v", j.Name, j.Clone, j.Err)
			r.rec.addFailure(report.Failure{Message: msg, Type: "run"}, true)
			t.Errorf("stortest: %s", msg)
		}
		canceled = canceled || j.Canceled
	}
	// A repeat cut short would go into the baseline as a whole run.
	canceled = canceled || anyCanceled(repeats...)
	if again != nil {
		canceled = canceled || anyCanceled(again.again...)
	}
	cause := interruptedBy()
	switch {
	case canceled && cause != nil:
		// The run is cut short, not measured: an error of the testcase
		// and of the test, which the checks leave to stand alone.
		r.cut = &cutShort{cause: cause, elapsed: elapsed, planned: plannedTime(job, &cfg)}
		msg := fmt.Sprintf("%s: %s: results are partial", job.Name, cause.after(elapsed.Round(time.Millisecond)))
		r.rec.addFailure(report.Failure{Message: msg, Type: "cancelled"}, true)
		t.Errorf("stortest: %s", msg)
	case canceled:
		t.Logf("stortest: %s was cancelled with the test's context: its results are partial", job.Name)
	}
	r.appendHistory(t)
	if p := r.startPage(t, dir, base, hostInfo); p != "" {
		r.Artifacts = append(r.Artifacts, p)
		r.rec.addArtifact(p)
	}
	return r
}

// refuseInterrupted ends the test (SkipNow or FailNow) instead of
// starting a workload after the binary was interrupted, and records the
// run not started for the report: skipped when it is the test's first,
// an error when the test has run (or failed) already, so that a skip
// never hides a failure nor marks earlier runs skipped.
func refuseInterrupted(t testing.TB, st *testState, job, caseName string) {
	t.Helper()
	msg := fmt.Sprintf("%s: not started: %v", job, context.Cause(interrupted))
	notRun := report.Run{Test: t.Name(), Job: caseName}
	if st.ran() || t.Failed() {
		notRun.Errors = []report.Failure{{Message: msg, Type: "cancelled"}}
		st.add(&record{run: notRun})
		t.Fatalf("stortest: %s", msg)
	}
	notRun.Skipped = msg
	st.add(&record{run: notRun})
	t.Skipf("stortest: %s", msg)
}

// targetDevices lists the device of path and the devices under it, the
// ones whose counters show the target's I/O.
func targetDevices(fsys iostat.FS, path string) ([]string, error) {
	res, err := fsys.Resolve(path)
	if err != nil {
		return nil, err
	}
	devices := []string{res.Device}
	for _, d := range res.Disks {
		if d != res.Device {
			devices = append(devices, d)
		}
	}
	return devices, nil
}

// attrKey makes a test attribute key: no white space allowed.
func attrKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s)
}

// progressLine is one line of progress: per direction with I/O, the
// IOPS and bandwidth of the last interval.
func progressLine(name string, p workload.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v", name, p.Elapsed.Round(time.Second))
	if p.Ramp {
		b.WriteString(" (ramp)")
	}
	wrote := false
	for d := range workload.NumDirs {
		if p.IOs[d] == 0 {
			continue
		}
		sep := ","
		if !wrote {
			sep = ":"
		}
		wrote = true
		fmt.Fprintf(&b, "%s %s %s IOPS %s/s", sep, d, human.Count(p.IOPS[d]), human.Bytes(p.BW[d]))
	}
	if !wrote {
		b.WriteString(": no I/O completed yet")
	}
	if p.ETA >= 0 {
		fmt.Fprintf(&b, ", ETA %v", p.ETA.Round(time.Second))
	}
	return b.String()
}

// targetExists reports a target whose path is missing.
func targetExists(target *Dev) error {
	if _, err := os.Stat(target.Path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("target %s: %w", target.Path, err)
	}
	return nil
}
