package stortest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/history"
	"stortest.dev/workload"
)

// With a history directory, every Run appends its run, a file of its
// own, whether or not it is compared with a baseline; without one,
// nothing is written.
func TestRunAppendsHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history")
	job := workload.Job{Name: "hist-read", Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: 300 * time.Millisecond, TimeBased: true}
	dev := File(t, 8<<20)

	t.Setenv(EnvHistory, "")
	f := newFake(t)
	f.run(func(tb testing.TB) { Run(tb, dev, job) })
	require.Empty(t, f.fatals)
	require.Empty(t, f.errors)
	_, err := os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist, "no history asked for, none written")

	t.Setenv(EnvHistory, dir)
	for range 2 {
		f := newFake(t)
		f.run(func(tb testing.TB) { Run(tb, dev, job) })
		require.Empty(t, f.fatals)
		require.Empty(t, f.errors)
		assert.True(t, anyContains(f.logs, "hist-read: run appended to the history: "+filepath.Join(dir, t.Name(), "hist-read")), "%q", f.logs)
	}
	runs, err := history.Load(dir)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	for _, e := range runs {
		assert.Equal(t, t.Name()+"/hist-read", e.Series)
		assert.NotEmpty(t, e.Baseline.Seconds, "per-second data kept")
		assert.NotEmpty(t, e.Baseline.Fingerprint.Hostname)
		assert.Positive(t, e.Baseline.Dir("read").IOPS)
	}
	assert.False(t, runs[1].Baseline.Created.Before(runs[0].Baseline.Created))
}
