package stortest

import (
	"cmp"
	"fmt"
	"strings"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// baselineDir is where the baseline of the test's job is looked for
// before the run: the directory of the BaselineDir option given to
// ExtendWhileInconclusive or RepeatWhileInconclusive, else
// -stortest.baselines, else baselines.DefaultDir. (A BaselineDir given
// to CheckBaseline alone is not known before the run.)
func (c *runConfig) baselineDir() string {
	bc := baselineConfig{dir: cmp.Or(BaselinesSetting(), baselines.DefaultDir)}
	for _, o := range c.baselineOpts() {
		o(&bc)
	}
	return bc.dir
}

// baselineOpts are the baseline options given to Run's options.
func (c *runConfig) baselineOpts() []BaselineOption {
	var opts []BaselineOption
	if c.extend != nil {
		opts = append(opts, c.extend.opts...)
	}
	if c.repeat != nil {
		opts = append(opts, c.repeat.opts...)
	}
	return opts
}

// otherDevice says, before the workload runs, why the baseline stored for
// the test's job cannot be the reference of a run on target: it was
// recorded on another device (baselines.Fingerprint.DeviceMismatch: another
// model, serial, size or loop backing file). "" when there is no such
// baseline, or when the run records a new one in its place (plain
// -stortest.update). fp is the target's (baselines.Probe reads sysfs):
// the device sees no I/O. A baseline that cannot be read is left to
// CheckBaseline, which says why.
func otherDevice(testName string, target *Dev, job workload.Job, c *runConfig, fp baselines.Fingerprint) string {
	if UpdateSetting() == UpdateReplace {
		return ""
	}
	path := baselines.Path(c.baselineDir(), testName, job.Name)
	old, err := baselines.Load(path)
	if err != nil {
		return ""
	}
	ch := old.Fingerprint.DeviceMismatch(fp)
	if len(ch) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: not run: the baseline at %s was recorded on another device: %s; this run's target %s is %s (%s). "+
		"Record a baseline for this device in its place (or keep each device's apart with -stortest.baselines) with:\n\t%s",
		job.Name, path, deviceString(old.Fingerprint), target.Path, deviceString(fp), joinChanges(ch), updateCommand(testName))
}

// refuseOtherDevice ends the test (FailNow) before the workload runs
// when otherDevice says why, recording the run not made in the report.
func refuseOtherDevice(t testing.TB, st *testState, target *Dev, job workload.Job, c *runConfig, fp baselines.Fingerprint) {
	t.Helper()
	msg := otherDevice(t.Name(), target, job, c, fp)
	if msg == "" {
		return
	}
	_, caseName := st.names(job.Name)
	st.add(&record{run: report.Run{Test: t.Name(), Job: caseName,
		Errors: []report.Failure{{Message: msg, Type: "baseline"}}}})
	t.Fatalf("stortest: %s", msg)
}

// deviceString describes the device of a fingerprint by what tells it
// from another: "nvme0n1 (model Samsung SSD 980, serial S1, size 1TiB)",
// "loop (backing file /dev/shm/a.img, size 256MiB)".
func deviceString(fp baselines.Fingerprint) string {
	var parts []string
	for _, f := range []struct{ name, v string }{
		{"model", fp.Model}, {"serial", fp.Serial}, {"backing file", fp.Backing},
	} {
		if f.v != "" && !(f.name == "model" && f.v == "loop") {
			parts = append(parts, f.name+" "+f.v)
		}
	}
	if fp.Size != 0 {
		parts = append(parts, "size "+fmtSize(fp.Size))
	}
	name := cmp.Or(fp.Device, fp.Kind, "a device")
	if len(parts) == 0 {
		return name
	}
	return name + " (" + strings.Join(parts, ", ") + ")"
}

// fmtSize prints a size in bytes with its binary multiple.
func fmtSize(n uint64) string {
	return fmt.Sprintf("%d bytes (%s)", n, fmtBytes(float64(n)))
}
