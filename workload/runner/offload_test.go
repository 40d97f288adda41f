package runner

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// A read of the 21st block stalls 300 ms while the job is paced at 500
// IOPS. Under io_submit_mode=offload the other submitters go on at the
// schedule's pace: every 100 ms slice of the run completes about 50 I/Os,
// and the stalled read alone shows the stall in its lat. Inline at depth 1
// the job waits for the stalled read, so the slices of the stall complete
// nothing (and the I/Os after it go in a catch-up burst).
func TestOffloadKeepsTheScheduleThroughAStall(t *testing.T) {
	const stall = 300 * time.Millisecond
	faults := &engines.Faults{StallAt: []engines.Range{{Off: 20 * 4096, Len: 4096}}, Stall: stall}
	run := func(offload bool, depth int) *workload.JobResult {
		job := workload.Job{Name: "paced", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 400 * 4096,
			IODepth: depth, RateIOPS: [3]int{500, 0, 0}}
		job.Offload = offload
		return runJob(t, job, workload.Options{Faults: faults})
	}
	// The slowest 100 ms slice's IOPS: a slice closes late (is longer)
	// when the loop was blocked.
	minSlice := func(r *workload.JobResult) float64 {
		m := math.Inf(1)
		for _, s := range r.Slices[:len(r.Slices)-1] { // the last is partial
			m = min(m, float64(s.IOs[workload.DirRead])/s.Dur.Seconds())
		}
		return m
	}
	off := run(true, 4)
	require.NoError(t, off.Err)
	rd := off.Dirs[workload.DirRead]
	assert.Equal(t, uint64(400), rd.IOs)
	assert.GreaterOrEqual(t, minSlice(off), 350.0, "offload: IOPS of the slowest slice (500 due)")
	assert.GreaterOrEqual(t, rd.Lat.Max(), uint64(stall), "the stalled read's lat")
	assert.Less(t, rd.Lat.Percentile(99), uint64(stall/3), "only the stalled read waited")
	assert.InDelta(t, 0.8, off.Runtime.Seconds(), 0.15, "400 I/Os at 500 IOPS")
	// Each submitter holds one I/O: fio's depth 1, batches of one.
	assert.Equal(t, rd.IOs, off.Depths.Level[0], "depth-1 count")
	assert.Equal(t, rd.IOs, off.Depths.Submit[1], "submit batches of 1-4")

	in := run(false, 1)
	require.NoError(t, in.Err)
	assert.LessOrEqual(t, minSlice(in), 150.0, "inline: IOPS of the slice that waited for the stall")
}

// fio's t0010 checks mean(slat) + mean(clat) = mean(lat) under offload
// with the null engine at depth 16 (asynchronous there: slat is the
// submitter's commit minus the job's preparation). A synchronous engine
// records no slat, as fio's psync under offload, and its lat still
// includes the hand-off.
func TestOffloadLatencies(t *testing.T) {
	job := workload.Job{Name: "t0010", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 64 << 20, IODepth: 16}
	job.Offload = true
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	rd := r.Dirs[workload.DirRead]
	require.Equal(t, uint64(16384), rd.IOs)
	assert.Equal(t, rd.IOs, rd.Slat.Count())
	assert.InDelta(t, rd.Lat.Mean(), rd.Slat.Mean()+rd.Clat.Mean(), 1, "mean(slat) + mean(clat) = mean(lat)")
	assert.Positive(t, rd.Slat.Mean())

	target := fileTarget(t, 4<<20)
	job = workload.Job{Name: "psync", Filename: target.Path, Engine: "psync", RW: workload.RandWrite, BlockSize: 4096, Size: 4 << 20,
		IODepth: 4, Verify: workload.VerifyCRC32C}
	job.Offload = true
	r = runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	wr := r.Dirs[workload.DirWrite]
	assert.Equal(t, uint64(1024), wr.IOs)
	assert.Zero(t, wr.Slat.Count(), "no slat for a synchronous engine")
	assert.Greater(t, wr.Lat.Mean(), wr.Clat.Mean(), "lat includes the hand-off")
	assert.Equal(t, uint64(1024), r.Verify.Checked, "every block written is read back")
	assert.Zero(t, r.Verify.Mismatches)
}

// serialize_overlap under offload: four units on one 4 KiB block, each
// I/O taking 5 ms, go one at a time (about 40 ms for 8 I/Os); without it
// they overlap (about 10 ms).
func TestOffloadSerializeOverlap(t *testing.T) {
	faults := &engines.Faults{Latency: 5 * time.Millisecond}
	run := func(serialize bool) time.Duration {
		job := workload.Job{Name: "overlap", Engine: "null", RW: workload.Read, BlockSize: 4096, Size: 4096, Loops: 8, IODepth: 4}
		job.Offload, job.SerializeOverlap = true, serialize
		r := runJob(t, job, workload.Options{Faults: faults})
		require.NoError(t, r.Err)
		require.Equal(t, uint64(8), r.Dirs[workload.DirRead].IOs)
		return r.Runtime
	}
	serial, parallel := run(true), run(false)
	assert.GreaterOrEqual(t, serial, 40*time.Millisecond, "serialized")
	assert.Less(t, parallel, 30*time.Millisecond, "overlapping")
}

func TestOffloadAllocationsPerIO(t *testing.T) {
	job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 1 << 20, IODepth: 4}
	job.Offload = true
	assert.Less(t, allocsPerIO(t, job, 256, 41), 0.001) // 256 and 10496 I/Os
}

func TestSubmitOptionsParse(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[a]\nio_submit_mode=offload\nrate_process=poisson\nrate_iops=50\niodepth=32\nserialize_overlap=1\n[b]\nio_submit_mode=inline\nrate_process=linear\n"), "t.fio")
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	assert.Equal(t, workload.Submission{Offload: true, Poisson: true, SerializeOverlap: true}, jobs[0].Submission)
	assert.Equal(t, workload.Submission{}, jobs[1].Submission)
	for _, j := range jobs {
		back := roundTripJob(t, j)
		assert.Equal(t, j.Submission, back.Submission, "%s reads back", j.Name)
	}
	for _, tc := range []struct{ in, want string }{
		{"[a]\nio_submit_mode=async\n", `unknown io_submit_mode "async"`},
		{"[a]\nrate_process=uniform\n", `unknown rate_process "uniform"`},
		{"[a]\nioengine=libaio\niodepth=8\nserialize_overlap=1\n", "serialize_overlap: with iodepth=8 on ioengine=libaio is not supported by stortest unless io_submit_mode=offload"},
	} {
		_, err := parseFile(strings.NewReader(tc.in), "t.fio")
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	// At one I/O at a time there is nothing to serialize.
	_, err = parseFile(strings.NewReader("[a]\nioengine=psync\niodepth=8\nserialize_overlap=1\n[b]\nioengine=null\nserialize_overlap=1\n"), "t.fio")
	assert.NoError(t, err)
	assert.False(t, errors.Is(err, workload.ErrUnsupported))
}
