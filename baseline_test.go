package stortest

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/regress"
	"stortest.dev/workload"
)

// shortRuns compares runs of a few seconds: the default wants ten.
func shortRuns() BaselineOption {
	cfg := regress.DefaultConfig()
	cfg.MinSamples = 3
	return RegressConfig(cfg)
}

func checkBaselineFake(t *testing.T, r *Result, opts ...BaselineOption) (ok bool, errs []string, logs []string) {
	t.Helper()
	f := newFake(t)
	f.run(func(tb testing.TB) { ok = CheckBaseline(tb, r, opts...) })
	return ok, f.errors, f.logs
}

// The life of a baseline: missing (fails, naming the command that records
// it), recorded with -stortest.update, passed by an unchanged run, failed
// by a slower one, and never overwritten when corrupt.
func TestCheckBaseline(t *testing.T) {
	dev := File(t, 16<<20)
	dir := t.TempDir()
	job := func(iops int) workload.Job {
		return workload.Job{Name: "rated-read", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
			Runtime: 4 * time.Second, TimeBased: true, RateIOPS: [3]int{iops}}
	}
	t.Setenv(EnvUpdate, "0")
	base := Run(t, dev, job(1000))
	path := baselines.Path(dir, t.Name(), "rated-read")

	ok, errs, _ := checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.False(t, ok)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "no baseline at "+path)
	assert.Contains(t, errs[0], "go test -run '^TestCheckBaseline$' -stortest.update")

	t.Setenv(EnvUpdate, "1")
	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.True(t, ok, "%v", errs)
	_, err := baselines.Load(path)
	require.NoError(t, err, "the recorded baseline loads")
	t.Setenv(EnvUpdate, "0")

	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	assert.True(t, ok, "a run compared with itself: %v", errs)
	assert.True(t, strings.HasSuffix(base.Artifacts[len(base.Artifacts)-1], ".baseline-diff.txt"), "%v", base.Artifacts)

	slow := Run(t, dev, job(500))
	ok, errs, _ = checkBaselineFake(t, slow, BaselineDir(dir), shortRuns())
	require.False(t, ok, "half the IOPS passed")
	assert.True(t, anyContains(errs, "rated-read: read iops"), "findings: %q", errs)
	require.NotEmpty(t, slow.rec.run.Failures)
	assert.Equal(t, "regression", slow.rec.run.Failures[len(slow.rec.run.Failures)-1].Type)

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, good[:len(good)/2], 0o644))
	ok, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), shortRuns())
	require.False(t, ok)
	assert.True(t, anyContains(errs, "baseline unreadable (left as it is"), "%q", errs)
	after, _ := os.ReadFile(path)
	assert.Equal(t, good[:len(good)/2], after, "a corrupt baseline is never rewritten by a check")

	_, errs, _ = checkBaselineFake(t, base, BaselineDir(dir), Tolerances("*.iops=nonsense"))
	assert.True(t, anyContains(errs, "baseline options"), "%q", errs)
}

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
