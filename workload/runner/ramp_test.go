package runner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// A size-bound job that ends inside its ramp_time: fio 3.33 counts the
// I/Os of the ramp and drops them only when the ramp ends, so this job
// reports all of its 256 writes, its bytes and depths, with no latency
// sample. stortest reports the same, not an empty result.
func TestRampEndsAfterJobMatchesFio(t *testing.T) {
	fio := fioBinary(t)
	target := fileTarget(t, 1<<20)
	text := fmt.Sprintf("[r]\nfilename=%s\nrw=write\nsize=1m\nbs=4k\nramp_time=20\n", target.Path)
	f := at(fioJSON(t, fio, text), "jobs", "0")
	require.Equal(t, 256.0, at(f, "write", "total_ios"), "fio 3.33 keeps the ramp's I/Os")
	require.Zero(t, at(f, "write", "clat_ns", "N"), "and records no latency")

	res := runJobFile(t, text)
	r := res.Jobs[0]
	w := &r.Dirs[workload.DirWrite]
	assert.Equal(t, at(f, "write", "total_ios"), float64(w.IOs))
	assert.Equal(t, at(f, "write", "io_bytes"), float64(w.Bytes))
	assert.Zero(t, r.Dirs[workload.DirRead].IOs)
	assert.Zero(t, w.Clat.Count(), "no latency in ramp_time, as fio")
	assert.Positive(t, r.Runtime, "the runtime runs from the job's start")
	assert.Equal(t, uint64(256), r.Depths.Level[0], "the depths of the ramp's I/Os")
	ours := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0")
	for _, k := range []string{"total_ios", "io_bytes"} {
		assert.Equal(t, at(f, "write", k), at(ours, "write", k), k)
	}
	assert.Equal(t, at(f, "iodepth_level"), at(ours, "iodepth_level"))

	// A ramp the job outlives still drops what it did: only the measured
	// part counts.
	text = fmt.Sprintf("[r]\nfilename=%s\nrw=write\nsize=1m\nbs=4k\nramp_time=100ms\ntime_based\nruntime=200ms\nrate_iops=200\n", target.Path)
	r = runJobFile(t, text).Jobs[0]
	assert.InDelta(t, 40, float64(r.Dirs[workload.DirWrite].IOs), 8, "200 IOPS for the 200 ms measured, not the 300 ms run")
	assert.Equal(t, r.Dirs[workload.DirWrite].IOs, r.Dirs[workload.DirWrite].Clat.Count())
}
