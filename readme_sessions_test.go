package stortest

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
)

// Acceptance: the README's gate example ("Growing a baseline, and the
// gate in CI"), as a user runs it, end to end, command for command: a
// loop device over a 256 MiB file in /dev/shm, its reads throttled by
// cgroup v1 blkio to 20000 IOPS; five separate `go test -count=1
// ./examples/gate -stortest.update=append` sessions, each its own
// process, grow the baseline; the unchanged device rerun with
// -stortest.strict passes, and throttled to 17000 IOPS (-15%) it fails
// with a regression finding on read IOPS. Each `go test` runs inside
// the throttled group (a shell moves itself in, then execs go, whose
// test binary inherits the group), with STORTEST_DEVICE and
// STORTEST_BASELINES set as the README exports them, the baselines in a
// temporary directory. The two reruns add -v, which changes nothing but
// shows the comparison of a passing test. Seven sessions of the
// example's 10 s job (more when its repeat option runs again): about two
// minutes.
func TestReadmeGateSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's gate example: seven go test sessions")
	}
	testenv.RequireBlkio(t)
	// truncate -s 256M /dev/shm/...; losetup --find --show ...; mkdir $cg
	scratch, devNum, g := throttledShm(t, 256<<20, false, "stortest-readme-gate")
	dir := t.TempDir()

	// throttled runs `go test -count=1 ./examples/gate FLAGS` as the
	// README's throttled() does, at iops read IOPS (its throttle()).
	throttled := func(iops int, flags ...string) (string, int) {
		t.Helper()
		require.NoError(t, g.SetReadIOPS(devNum, iops))
		cmd := g.Command("go", append([]string{"test", "-count=1", "./examples/gate"}, flags...)...)
		// The README's exports, and nothing of the suite's own
		// environment besides.
		var env []string
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "STORTEST_") {
				env = append(env, e)
			}
		}
		cmd.Env = append(env, "STORTEST_DEVICE="+scratch.Path, "STORTEST_BASELINES="+dir)
		start := time.Now()
		out, code, err := proctest.CombinedOutput(cmd)
		require.NoError(t, err)
		t.Logf("go test -count=1 ./examples/gate %s at %d IOPS: exit %d after %v", strings.Join(flags, " "), iops, code, time.Since(start).Round(time.Second))
		return out, code
	}

	saturated := 0 // recording sessions stortest warned ran on saturated CPUs
	for i := 1; i <= 5; i++ {
		out, code := throttled(20000, "-stortest.update=append")
		require.Zero(t, code, "recording session %d:\n%s", i, out)
		// A throttled loop device is steady only while the host's CPUs
		// keep up with it.
		if m := cpuSaturated.FindString(out); m != "" {
			saturated++
			t.Logf("recording session %d: %s", i, m)
		}
	}
	// The baseline then holds five runs of five sessions.
	path := baselines.Path(dir, "TestGate", "randread-4k-qd32")
	base, err := baselines.Load(path)
	require.NoError(t, err)
	runs := base.RunSummaries()
	require.Len(t, runs, 5, "five sessions appended their runs")
	for _, r := range runs {
		t.Logf("baseline run of session %s: %.0f IOPS", r.Session, r.Dirs[0].IOPS)
	}
	require.Len(t, base.Sessions(), 5, "five separate sessions")
	require.NotContains(t, base.Sessions(), "", "every run names its session")

	// The README promises its outcome on a quiet host. On one whose CPUs
	// were saturated while the sessions were recorded (stortest warned
	// so), the sessions' IOPS vary, and the README says what the gate
	// does then: read IOPS "not compared", naming the tolerance that
	// would hold, and a 15% slowdown passes. That, and no regression on
	// the unchanged device, is what is checked of such a host, only
	// where the gate itself says the sessions vary; anything else is
	// held to the quiet host's outcome.
	loaded := saturated > 0
	if loaded {
		t.Logf("%d of 5 recording sessions ran on saturated CPUs: the throttled device was not steady", saturated)
	}

	// go test ... -stortest.strict: ok, unchanged, decided pass.
	out, code := throttled(20000, "-stortest.strict", "-v")
	t.Logf("unchanged: %s", gateSummary(out))
	assert.NotContains(t, out, "regression beyond", "an unchanged device regressed:\n%s", out)
	if !loaded || !iopsVaries.MatchString(out) {
		assert.Zero(t, code, "the unchanged device failed strict:\n%s", out)
		assert.Regexp(t, `baseline comparison randread-4k-qd32: (pass|improvement)`, out)
	}

	// throttle 17000; go test ... -stortest.strict: FAIL: read iops ...: regression.
	out, code = throttled(17000, "-stortest.strict", "-v")
	t.Logf("-15%%: %s", gateSummary(out))
	m := readIOPSRegression.FindStringSubmatch(out)
	if m == nil && loaded && iopsVaries.MatchString(out) {
		t.Logf("not the README's quiet host: %s", iopsVaries.FindString(out))
		return
	}
	assert.NotZero(t, code, "a device 15%% slower passed:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestGate")
	if assert.NotNil(t, m, "no read IOPS regression finding:\n%s", out) {
		change, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		assert.InDelta(t, -15, change, 5, "the finding's change: %s", m[0])
	}
}

// cpuSaturated is stortest's warning that the CPUs were saturated over a run.
var cpuSaturated = regexp.MustCompile(`warning: the machine's CPUs were [^\n]*`)

// iopsVaries is the gate's word that the baseline's sessions vary too
// much for read IOPS to be compared at its tolerance.
var iopsVaries = regexp.MustCompile(`read iops [^\n]*not compared: read iops varies [\d.]+% from session to session[^\n]*`)

// readIOPSRegression is the regression finding on read IOPS, with its
// change in percent.
var readIOPSRegression = regexp.MustCompile(`read iops [\d.]+k IOPS vs baseline (?:\([^)]*\) )?[\d.]+k IOPS \((-[\d.]+)%[^)]*\): regression`)

// runIOPS is the run's own line: "randread-4k-qd32: 5s: read 17k IOPS".
var runIOPS = regexp.MustCompile(`randread-4k-qd32: [\d.]+s: read ([\d.]+k? IOPS)`)

// gateSummary is the run's read IOPS and the comparison's summary line
// of an example's output, with its read IOPS finding when that did not
// pass.
func gateSummary(out string) string {
	var s []string
	if m := runIOPS.FindAllStringSubmatch(out, -1); m != nil {
		s = append(s, "ran at "+m[len(m)-1][1]) // the last progress line is the run's
	}
	for _, line := range strings.Split(out, "\n") {
		for _, key := range []string{"baseline comparison ", "read iops "} {
			if i := strings.Index(line, key); i >= 0 && !strings.Contains(line, "within") {
				s = append(s, strings.TrimSpace(line[i:]))
			}
		}
	}
	if len(s) == 0 {
		return "(no comparison)"
	}
	return strings.Join(s, "; ")
}

// The e2e test's parsing, on the lines CheckBaseline prints: the
// regression finding's change is read, a pass's is not taken for one.
func TestReadmeGateSessionsParsing(t *testing.T) {
	reg := "    gate_test.go:31: stortest: randread-4k-qd32: read iops 17k IOPS vs baseline (5 sessions) 20.1k IOPS (-15.2%, 99% CI -17.9%..-12.4%): regression beyond 10% tolerance\n"
	m := readIOPSRegression.FindStringSubmatch(reg)
	require.NotNil(t, m)
	require.Equal(t, "-15.2", m[1])
	assert.Nil(t, readIOPSRegression.FindStringSubmatch(strings.Replace(reg, "regression beyond", "within", 1)))
	assert.Nil(t, readIOPSRegression.FindStringSubmatch("read clat p99 82ms vs baseline 70ms (+17%, 99% CI +5%..+30%): regression"))
	varies := "    read iops 16.8k IOPS vs baseline (5 sessions) 18k IOPS (-6.2%, 99.58% CI -46.2%..+63.6%; spread 13.6% from 5 sessions): " +
		"not compared: read iops varies 12.7% from session to session on this device (from 5 sessions), more than 10% tolerance can hold at 95%\n"
	assert.True(t, iopsVaries.MatchString(varies))
	assert.False(t, iopsVaries.MatchString(strings.Replace(varies, "read iops varies", "read clat p50 varies", 1)))
	assert.False(t, iopsVaries.MatchString(reg))
	assert.Equal(t, "ran at 20k IOPS; baseline comparison randread-4k-qd32: pass (7 pass)",
		gateSummary("    run.go:214: randread-4k-qd32: 1s: read 19.6k IOPS 76MiB/s, ETA 4s\n"+
			"    run.go:214: randread-4k-qd32: 5s: read 20k IOPS 78.1MiB/s, ETA 0s\n"+
			"    x.go:1: stortest: baseline comparison randread-4k-qd32: pass (7 pass)\n    read iops 20k IOPS vs baseline 20k IOPS (+0.1%, ...): within 10% tolerance\n"))
}
