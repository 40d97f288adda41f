package stortest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/blkio"
	"stortest.dev/workload"
)

// Acceptance: the README's gate example (examples/gate's doc), as a
// user runs it, end to end. A loop device over /dev/shm has its reads
// throttled by cgroup v1 blkio to 20000 IOPS; five separate `go test`
// sessions of examples/gate, each its own process, add their run to the
// baseline with -stortest.update=append; the unchanged device rerun with
// -stortest.strict passes, and throttled to 17000 IOPS (-15%) it fails
// with a regression finding on read IOPS. Every session is a real
// `go test` command (the go tool moved into the throttled group before
// it starts, its test binary inheriting the group), with the baselines
// in a temporary directory. Seven 5 s runs: about a minute and a half.
func TestReadmeGateSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's gate example: seven go test sessions")
	}
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root for loop devices and cgroups")
	}
	if err := blkio.Available(); err != nil {
		if envIs1("STORTEST_REQUIRE_BLKIO") {
			t.Fatalf("%v (STORTEST_REQUIRE_BLKIO=1)", err)
		}
		t.Skip(err)
	}
	scratch, err := workload.NewScratch(workload.ScratchOptions{Dir: "/dev/shm", Size: 256 << 20, Loop: true, DirectIO: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scratch.Close()) })
	devNum, err := blkio.DevNumber(scratch.Path)
	require.NoError(t, err)
	g, err := blkio.New("stortest-readme-gate")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, g.Remove()) })
	dir := t.TempDir()

	// session runs `go test` of examples/gate as the README does, inside
	// the throttled group (a shell moves itself in, then execs go), at
	// iops read IOPS, with the extra flags given.
	session := func(iops int, flags ...string) (string, int) {
		t.Helper()
		require.NoError(t, g.SetReadIOPS(devNum, iops))
		args := append([]string{g.Dir, "go", "test", "-count=1", "-v", "./examples/gate",
			"-stortest.device=" + scratch.Path, "-stortest.baselines=" + dir}, flags...)
		cmd := exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`}, args...)...)
		// Nothing of the suite's own environment reaches the example.
		var env []string
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "STORTEST_") {
				env = append(env, e)
			}
		}
		cmd.Env = env
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		start := time.Now()
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		t.Logf("go test ./examples/gate %s at %d IOPS: exit %d after %v", strings.Join(flags, " "), iops, code, time.Since(start).Round(time.Second))
		return buf.String(), code
	}

	path := baselines.Path(dir, "TestRandRead4K", "randread-4k-qd32")
	for i := 1; i <= 5; i++ {
		out, code := session(20000, "-stortest.update=append")
		require.Zero(t, code, "recording session %d:\n%s", i, out)
		require.Contains(t, out, path, "session %d kept its run", i)
		if i > 1 {
			require.Contains(t, out, fmt.Sprintf("%d sessions", i), "session %d grew the baseline", i)
		}
	}
	base, err := baselines.Load(path)
	require.NoError(t, err)
	runs := base.RunSummaries()
	require.Len(t, runs, 5, "five sessions appended their runs")
	sessions := map[string]bool{}
	for _, r := range runs {
		require.NotEmpty(t, r.Session, "each run names its session")
		sessions[r.Session] = true
		t.Logf("baseline run of session %s: %.0f IOPS", r.Session, r.Dirs[0].IOPS)
	}
	require.Len(t, sessions, 5, "five separate sessions")

	out, code := session(20000, "-stortest.strict")
	t.Logf("unchanged: %s", gateSummary(out))
	assert.Zero(t, code, "the unchanged device failed strict:\n%s", out)
	assert.Regexp(t, `baseline comparison randread-4k-qd32: (pass|improvement)`, out)

	out, code = session(17000, "-stortest.strict")
	t.Logf("-15%%: %s", gateSummary(out))
	assert.NotZero(t, code, "a device 15%% slower passed:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestRandRead4K")
	m := readIOPSRegression.FindStringSubmatch(out)
	if assert.NotNil(t, m, "no read IOPS regression finding:\n%s", out) {
		change, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		assert.InDelta(t, -15, change, 5, "the finding's change: %s", m[0])
	}
}

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
	assert.Equal(t, "ran at 20k IOPS; baseline comparison randread-4k-qd32: pass (7 pass)",
		gateSummary("    run.go:214: randread-4k-qd32: 1s: read 19.6k IOPS 76MiB/s, ETA 4s\n"+
			"    run.go:214: randread-4k-qd32: 5s: read 20k IOPS 78.1MiB/s, ETA 0s\n"+
			"    x.go:1: stortest: baseline comparison randread-4k-qd32: pass (7 pass)\n    read iops 20k IOPS vs baseline 20k IOPS (+0.1%, ...): within 10% tolerance\n"))
}
