package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// A continuation appended to a run reads as one longer run: counts and
// histograms add, seconds continue on one time line.
func TestJobResultAppend(t *testing.T) {
	job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 30,
		Runtime: 1500 * time.Millisecond, TimeBased: true, RateIOPS: [3]int{2000, 1000}}
	a := runJob(t, job, workload.Options{})
	b := runJob(t, job, workload.Options{})
	wantIOs := a.Dirs[workload.DirRead].IOs + b.Dirs[workload.DirRead].IOs
	wantClat := a.Dirs[workload.DirRead].Clat.Count() + b.Dirs[workload.DirRead].Clat.Count()
	wantRuntime := a.Runtime + b.Runtime
	nA, nB := len(a.Seconds), len(b.Seconds)
	require.NoError(t, a.Append(b))
	assert.Equal(t, wantIOs, a.Dirs[workload.DirRead].IOs)
	assert.Equal(t, wantClat, a.Dirs[workload.DirRead].Clat.Count())
	assert.Equal(t, wantRuntime, a.Runtime)
	require.Len(t, a.Seconds, nA+nB)
	for i := 1; i < len(a.Seconds); i++ {
		assert.Greater(t, a.Seconds[i].T, a.Seconds[i-1].T, "second %d", i)
	}
	var ios uint64
	for _, s := range a.Seconds {
		ios += s.IOs[workload.DirRead]
	}
	assert.Equal(t, wantIOs, ios, "the seconds hold every completion")
	ios = 0
	for i, s := range a.Slices {
		ios += s.IOs[workload.DirRead]
		if i > 0 {
			assert.Greater(t, s.T, a.Slices[i-1].T, "slice %d", i)
			assert.LessOrEqual(t, s.Dur, s.T-a.Slices[i-1].T, "slice %d", i)
		}
	}
	assert.Equal(t, wantIOs, ios, "the slices hold every completion")
	assert.InDelta(t, 2000, a.IOPS(workload.DirRead), 100)

	other := runJob(t, workload.Job{Name: "other", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 1 << 20}, workload.Options{})
	assert.ErrorContains(t, a.Append(other), "not the same job clone")
}
