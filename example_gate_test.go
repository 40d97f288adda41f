package stortest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/workload"
)

// Acceptance: the example package a user would copy records a baseline
// on a named device, and a rerun passes the comparison. Both runs are
// real `go test` runs of examples/randread, on a loop device backed by
// /dev/shm, with the baselines kept in a temporary directory.
func TestExampleRecordsBaselineAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the example twice")
	}
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root for loop devices")
	}
	scratch, err := workload.NewScratch(workload.ScratchOptions{Dir: "/dev/shm", Size: 64 << 20, Loop: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scratch.Close()) })
	dir := t.TempDir()
	goTest := func(update bool) string {
		cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestRandRead4K$", "./examples/randread")
		cmd.Env = append(os.Environ(), "STORTEST_DEVICE="+scratch.Path, "STORTEST_BASELINES="+dir,
			"STORTEST_UPDATE=0", "STORTEST_JUNIT=")
		if update {
			cmd.Env = append(cmd.Env, "STORTEST_UPDATE=1")
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go test (update %v):\n%s", update, out)
		return string(out)
	}
	out := goTest(true)
	path := baselines.Path(dir, "TestRandRead4K", "randread-4k-qd32")
	assert.Contains(t, out, "baseline written to "+filepath.Clean(path))
	_, err = baselines.Load(path)
	require.NoError(t, err)

	out = goTest(false)
	assert.Contains(t, out, "--- PASS: TestRandRead4K")
	assert.NotContains(t, out, "no baseline at")
	assert.False(t, strings.Contains(out, "regression beyond"), "an unchanged device regressed:\n%s", out)
}
