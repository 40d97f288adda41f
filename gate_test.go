package stortest

import (
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/blkio"
	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// Acceptance: the gate catches a real slowdown. A baseline is recorded
// on an unthrottled loop device; the same job with the device throttled
// by cgroup v1 blkio to a quarter of the baseline's IOPS fails with findings on
// IOPS and latency; three reruns without the throttle pass. The JUnit
// file of those runs validates against Jenkins' schema and carries the
// iostat snapshot.
//
// The loop device is backed by a file in /dev/shm: its speed is the
// CPU's, not a shared virtual disk's, whose noise no gate should be
// asked to see through. The job is paced (rate_iops) so that other
// packages' tests running in parallel do not change what it measures.
// On a memory-backed device latencies are tens of microseconds, set by
// CPU scheduling more than by the device: an unchanged rerun's p99 moved
// +58% in one run. And blk-throttle lets I/O through in bursts (100 ms
// slices on this kernel), so the throttled median hardly moves. The gate
// is tuned to such a device as a user would tune theirs: IOPS and
// bandwidth at the defaults, and mean clat, which every throttle wait
// raises, with a coarse bound instead of the percentiles. The throttle
// is a quarter of the paced rate: about 2 ms per I/O at depth 1 and 500
// IOPS, whatever the machine's load. Unthrottled, the mean is 50-70 us on
// a quiet machine, but with stress-ng on both CPUs and a paced fio on the
// disk (make flake) whole runs came out at 113, 245, 261, 394 and 434 us,
// their seconds from 36 to 572 us: one unthrottled rerun was +283%
// against a baseline recorded in a calmer moment. So the bound is
// absolute, 1 ms above the baseline's mean (and 100%, which a baseline
// under 1 ms never reaches): twice the worst unthrottled mean seen under
// load, and half what the throttle adds. Throttled runs were +407% to
// +3640% (a difference of 1.6-1.95 ms).
var gateTolerances = Tolerances("*.clat.p50=off,*.clat.p99=off,*.clat.p99.9=off,*.clat.p99.99=off,*.clat.mean=100%:1ms")

func TestGateCatchesThrottledDevice(t *testing.T) {
	testenv.RequireBlkio(t)
	// Earlier rounds of this test (go test -count) are in the report
	// too, first: only this round's testcases are checked at the end.
	prior := 0
	if cs, err := cases(); err == nil {
		for _, c := range cs {
			if c.Classname == t.Name() {
				prior++
			}
		}
	}
	scratch, devNum, g := throttledShm(t, 64<<20, false, "stortest-gate")
	const rate = 2000
	job := workload.Job{Name: "gate-randread", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Direct: true, Runtime: 11 * time.Second, TimeBased: true, RateIOPS: [3]int{rate}}
	var dir string // the baselines of the attempt

	// The fake TB takes the failures the gate reports, so that this test
	// can assert them; its runs still go to the JUnit collector, as the
	// runs of one test (numbered .2, .3, ... as a test's repeated runs are).
	f := newFake(t)
	phase := func(opts ...Option) (ok bool, errs []string, res *Result) {
		before := len(f.errors)
		f.run(func(tb testing.TB) {
			res = Run(tb, Device(tb, scratch.Path), job, opts...)
			ok = CheckBaseline(tb, res, BaselineDir(dir), gateTolerances)
		})
		return ok, f.errors[before:], res
	}

	moveIn := WithOptions(workload.Options{OnStart: func(_ *workload.JobResult, tid int) {
		assert.NoError(t, g.AddThread(tid))
	}})
	// A baseline whose seconds swing (CPU contention on a memory-backed
	// device moves a second's mean clat 3x) leaves the latency verdict
	// inconclusive: the gate rightly cannot tell. That is noise in the
	// baseline, not a gate that misses a slowdown, so new baselines and
	// throttled runs are allowed: under make flake's load about one
	// baseline in six was that noisy, so two more attempts leave a
	// chance near 1 in 200 that all three are.
	const attempts = 3
	tries := 0
	for tries < attempts {
		tries++
		// Unthrottled (the I/O thread may still be in the group: Go keeps
		// threads) while the baseline is recorded: a new one in a new
		// directory (a second recording of a path in one process adds a
		// run to it), by a fake whose failures on purpose are forgotten
		// (a failed test records no baseline).
		require.NoError(t, g.SetReadIOPS(devNum, 0))
		dir = t.TempDir()
		f.pass()
		t.Setenv(EnvUpdate, "1")
		ok, errs, base := phase()
		require.True(t, ok, "recording the baseline: %v", errs)
		require.InDelta(t, rate, base.IOPS(), rate*0.05, "the paced baseline")
		t.Setenv(EnvUpdate, "0")

		require.NoError(t, g.SetReadIOPS(devNum, rate/4))
		ok, errs, slow := phase(moveIn)
		assert.False(t, ok, "a quarter of the IOPS passed the gate")
		assert.InDelta(t, rate/4, slow.IOPS(), rate*0.05, "the throttle held")
		assert.True(t, anyContains(errs, "read iops"), "no IOPS finding in %q", errs)
		logClatMeans(t, "baseline", base)
		logClatMeans(t, "throttled", slow)
		t.Logf("throttled baseline-diff: %s", diffLine(slow, "read.clat.mean"))
		if anyContains(errs, "read clat") {
			t.Logf("throttled: %d findings, e.g. %q", len(errs), errs[0])
			break
		}
		if tries < attempts && strings.Contains(diffLine(slow, "read.clat.mean"), "inconclusive") {
			t.Logf("attempt %d: the latency verdict is inconclusive; recording a new baseline", tries)
			continue
		}
		assert.Fail(t, "no latency finding", "in %q after %d attempts", errs, tries)
		break
	}

	// Lift the limit before the reruns.
	require.NoError(t, g.SetReadIOPS(devNum, 0))
	for i := range 3 {
		ok, errs, _ := phase()
		assert.True(t, ok, "unthrottled rerun %d failed the gate: %q", i+1, errs)
	}

	f.finish()
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, writeJUnit(path, "stortest.dev", time.Now(), time.Minute))
	testenv.ValidateJUnit(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Cases []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failures  []struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Out string `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	var mine, failed int
	for _, c := range doc.Cases {
		if c.Classname != t.Name() {
			continue
		}
		if prior > 0 {
			prior--
			continue
		}
		mine++
		assert.Contains(t, c.Out, "Device            r/s", "the iostat snapshot is in system-out")
		assert.Contains(t, c.Out, "[[ATTACHMENT|", "artifacts are attached")
		if len(c.Failures) > 0 {
			failed++
			assert.True(t, strings.Contains(c.Failures[0].Message, "gate-randread: read"), "%q", c.Failures[0].Message)
		}
	}
	assert.Equal(t, 2*tries+3, mine, "baseline and throttled run per attempt, and three reruns")
	assert.Equal(t, tries, failed, "only the throttled runs fail")
}

// logClatMeans logs what the latency finding rests on: the run's mean
// clat and the mean clat of each of its seconds, in µs.
func logClatMeans(t *testing.T, what string, res *Result) {
	t.Helper()
	b, err := baselines.FromResult(res.Result, baselines.Fingerprint{})
	if err != nil || b.Dir("read") == nil || b.Dir("read").Clat == nil {
		t.Logf("%s: no read clat: %v", what, err)
		return
	}
	var secs []int
	for _, v := range b.PerSecond("read", baselines.SecondClatMean) {
		secs = append(secs, int(math.Round(v/1e3)))
	}
	t.Logf("%s: mean clat %.1fµs; per second %v µs", what, b.Dir("read").Clat.Mean/1e3, secs)
}

// diffLine returns the line of metric in the run's baseline-diff
// artifact.
func diffLine(res *Result, metric string) string {
	for _, a := range res.Artifacts {
		if !strings.HasSuffix(a, ".baseline-diff.txt") {
			continue
		}
		data, err := os.ReadFile(a)
		if err != nil {
			return err.Error()
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == metric {
				return strings.Join(f, "  ")
			}
		}
	}
	return "(no " + metric + " in a baseline-diff artifact)"
}

// throttledShm is a loop device over a size-byte file in /dev/shm and a
// blkio group to throttle its reads (blkio.Group.SetReadIOPS with
// devNum), both removed when the test ends, failed or not.
func throttledShm(t *testing.T, size int64, directIO bool, group string) (scratch *runner.Scratch, devNum string, g *blkio.Group) {
	t.Helper()
	g = testenv.BlkioGroup(t, group)
	scratch, err := runner.NewScratch(runner.ScratchOptions{Dir: "/dev/shm", Size: size, Loop: true, DirectIO: directIO})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scratch.Close()) })
	devNum, err = blkio.DevNumber(scratch.Path)
	require.NoError(t, err)
	return scratch, devNum, g
}
