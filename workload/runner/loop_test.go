package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// A job that uses none of the per-I/O extras runs the lean loop, and the
// lean loop does what the full one does: the same I/Os, errors, short
// transfers and queue depths. A max_latency no I/O reaches puts the same
// job in the full loop.
func TestRunLeanLoopAsFull(t *testing.T) {
	hour := [workload.NumDirs]time.Duration{time.Hour, time.Hour, time.Hour}
	for _, c := range []struct {
		name   string
		depth  int
		batch  int
		faults *engines.Faults
	}{
		{"depth1", 1, 0, nil},
		{"depth4", 4, 0, nil},
		{"depth32 batch8", 32, 8, nil},
		{"depth8 errors", 8, 0, &engines.Faults{Seed: 3, ErrRate: 0.05, ShortRate: 0.1, ShortAlign: 4096}},
		{"depth1 errors", 1, 0, &engines.Faults{Seed: 3, ErrRate: 0.05, ShortRate: 0.1, ShortAlign: 4096}},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := workload.Job{Name: "lean", Engine: "null", RW: workload.RandRead, BlockSize: 16384, Size: 16 << 20,
				IODepth: c.depth, IODepthBatch: c.batch, ContinueOnError: workload.ContinueAll}
			full := job
			full.MaxLatency = hour
			opts := workload.Options{Faults: c.faults}
			require.True(t, loopShape(t, job, opts), "lean loop")
			require.False(t, loopShape(t, full, opts), "full loop with max_latency")

			a, b := runJob(t, job, opts), runJob(t, full, opts)
			require.NoError(t, a.Err)
			require.NoError(t, b.Err)
			for d := range workload.NumDirs {
				x, y := &a.Dirs[d], &b.Dirs[d]
				assert.Equal(t, y.IOs, x.IOs, "%v IOs", workload.Dir(d))
				assert.Equal(t, y.Bytes, x.Bytes, "%v bytes", workload.Dir(d))
				assert.Equal(t, y.ShortIOs, x.ShortIOs, "%v short", workload.Dir(d))
				assert.Equal(t, y.Errors, x.Errors, "%v errors", workload.Dir(d))
				assert.Equal(t, y.Clat.Count(), x.Clat.Count(), "%v clat", workload.Dir(d))
				assert.Equal(t, y.Lat.Count(), x.Lat.Count(), "%v lat", workload.Dir(d))
			}
			assert.Equal(t, uint64(1024), a.Dirs[workload.DirRead].IOs)
			assert.Equal(t, b.ErrnoCounts, a.ErrnoCounts)
			assert.Equal(t, b.Depths, a.Depths)
			if c.faults != nil {
				assert.NotZero(t, a.Dirs[workload.DirRead].Errors, "the faults failed some I/Os")
				assert.NotZero(t, a.Dirs[workload.DirRead].ShortIOs, "and cut some short")
			}
		})
	}
}

// loopShape reports whether job's first clone would run the lean loop.
func loopShape(t *testing.T, job workload.Job, opts workload.Options) bool {
	t.Helper()
	job = job.Normalized()
	require.NoError(t, validate.Job(&job))
	layout, err := latency.NewLayout(latency.LongGroups)
	require.NoError(t, err)
	w, err := newWorker(job, 0, 1, layout, opts)
	require.NoError(t, err)
	defer w.close()
	w.src.settle()
	return w.leanLoop(jobIOPrio(&w.job))
}
