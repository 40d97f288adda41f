package stortest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/workload"
)

// deviceIOs reads the completed reads and writes of a block device from
// sysfs (its iostat counters).
func deviceIOs(t *testing.T, dev string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "stat"))
	require.NoError(t, err)
	f := strings.Fields(string(data))
	require.GreaterOrEqual(t, len(f), 5)
	return "reads " + f[0] + ", writes " + f[4]
}

// A baseline recorded on another device is refused before the workload
// runs, not after it: the test fails at once naming the baseline, both
// devices and the command that records one for this device, the report
// holds the run not made, and the device sees no I/O. Plain
// -stortest.update records in its place, so it is not refused; an
// append is.
func TestRunRefusesOtherDeviceBaseline(t *testing.T) {
	settingsOff(t)
	dev := LoopDevice(t, 16<<20)
	dir := t.TempDir()
	t.Setenv("STORTEST_BASELINES", dir)
	fp, err := baselines.Probe(dev.Path, baselines.ProbeOptions{Engine: "psync"})
	require.NoError(t, err)
	require.NotEmpty(t, fp.Backing, "a loop device's backing file")
	r := syntheticResult()
	b, err := baselines.FromResult(r.Result, fp)
	require.NoError(t, err)
	b.Fingerprint.Backing = "/dev/shm/another.img"
	path := baselines.Path(dir, t.Name(), "mix")
	require.NoError(t, baselines.WriteFile(path, b))

	job := workload.Job{Name: "mix", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: 10 * time.Second, TimeBased: true}
	// Wait out the reads that attaching the device may cause (udev).
	before := deviceIOs(t, dev.Path)
	for i := 0; i < 20; i++ {
		time.Sleep(100 * time.Millisecond)
		now := deviceIOs(t, dev.Path)
		if now == before {
			break
		}
		before = now
	}
	f := newFake(t)
	defer f.finish()
	start := time.Now()
	var res *Result
	f.run(func(tb testing.TB) { res = Run(tb, dev, job) })
	took := time.Since(start)

	require.True(t, res == nil, "Run stopped the test")
	require.Len(t, f.fatals, 1)
	msg := f.fatals[0]
	want := "stortest: mix: not run: the baseline at " + path + " was recorded on another device: " +
		deviceString(b.Fingerprint) + "; this run's target " + dev.Path + " is " + deviceString(fp) +
		" (backing file /dev/shm/another.img -> " + fp.Backing + "). Record a baseline for this device in its place " +
		"(or keep each device's apart with -stortest.baselines) with:\n\t(cd "
	assert.True(t, strings.HasPrefix(msg, want), "%q\nwant prefix %q", msg, want)
	assert.Contains(t, msg, "-stortest.update")
	assert.Contains(t, deviceString(b.Fingerprint), "backing file /dev/shm/another.img")
	assert.Less(t, took, 5*time.Second, "a 10 s job was not run")
	assert.Equal(t, before, deviceIOs(t, dev.Path), "no I/O reached the device")
	st := stateOf(f)
	require.Len(t, st.runs, 1)
	assert.Nil(t, st.runs[0].run.Result)
	require.Len(t, st.runs[0].run.Errors, 1)
	assert.Equal(t, "baseline", st.runs[0].run.Errors[0].Type)

	cfg := runConfig{}
	t.Setenv(EnvUpdate, "append")
	assert.NotEmpty(t, otherDevice(t.Name(), dev, job, &cfg, fp), "another device's runs are not appended")
	t.Setenv(EnvUpdate, "1")
	assert.Empty(t, otherDevice(t.Name(), dev, job, &cfg, fp), "plain update records one for this device")
	t.Setenv(EnvUpdate, "")
	b.Fingerprint.Backing = fp.Backing
	b.Fingerprint.Firmware = "other"
	require.NoError(t, baselines.WriteFile(path, b))
	assert.Empty(t, otherDevice(t.Name(), dev, job, &cfg, fp), "the same device")
	// The directory of a BaselineDir given to the repeat or extension
	// option is where the baseline is looked for.
	cfg.extend = &extendConfig{opts: []BaselineOption{BaselineDir(t.TempDir())}}
	assert.NotEqual(t, dir, cfg.baselineDir())
}
