package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// stallJob reads 256 blocks of a file once, one of them stalled by stall.
func stallJob(t *testing.T, engine string, stall time.Duration, virtual bool, groups int) *workload.JobResult {
	t.Helper()
	target := fileTarget(t, 1<<20)
	job := workload.Job{Name: "stall", Filename: target.Path, Engine: engine, RW: workload.RandRead, BlockSize: 4096, Size: 1 << 20}
	if engine == "io_uring" {
		job.IODepth = 8
	}
	return runJob(t, job, workload.Options{HistGroups: groups, Faults: &engines.Faults{
		StallAt: []engines.Range{{Off: 100 * 4096, Len: 4096}}, Stall: stall, Virtual: virtual}})
}

// A stall past fio's 17.18 s ceiling keeps its value in the default
// (36-group) histograms: max, p100 and the per-second bins say 20 s, not
// the last bucket's 17.1 s. With fio's 29 groups the value is clipped, and
// the summary says how many values were.
func TestStallPastFioCeiling(t *testing.T) {
	const stall = 20 * time.Second
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			r := stallJob(t, engine, stall, true, 0)
			require.NoError(t, r.Err)
			clat := r.Dirs[workload.DirRead].Clat
			assert.GreaterOrEqual(t, clat.Max(), uint64(stall))
			assert.Less(t, clat.Max(), uint64(stall+time.Second))
			assert.Zero(t, clat.Clipped())
			p100 := clat.Percentile(100)
			assert.InEpsilon(t, float64(stall), float64(p100), 1.0/64, "p100 %d", p100)
			assert.Equal(t, uint64(1), clat.Count()-countBelow(clat, uint64(time.Second)), "one I/O took 20 s")
			// The per-second bins that feed histogram logs hold it too.
			var found uint64
			for _, s := range r.Seconds {
				for v, c := range s.Clat[workload.DirRead].All() {
					if v > latency.FioLayout.Ceiling() {
						found += c
					}
				}
			}
			assert.Equal(t, uint64(1), found, "the stall in the per-second bins")
			sum := summary(t, r)
			assert.Contains(t, sum, "max=20000") // msec
			assert.NotContains(t, sum, "ceiling")
		})
	}
	t.Run("fio-layout", func(t *testing.T) {
		r := stallJob(t, "psync", stall, true, latency.FioGroups)
		clat := r.Dirs[workload.DirRead].Clat
		assert.Equal(t, uint64(1), clat.Clipped())
		assert.GreaterOrEqual(t, clat.Max(), uint64(stall), "max keeps the real value")
		assert.Contains(t, summary(t, r), "1 values at or above the histogram's 17.2 s ceiling")
	})
	t.Run("past 36 groups", func(t *testing.T) {
		r := stallJob(t, "psync", 40*time.Minute, true, 0)
		clat := r.Dirs[workload.DirRead].Clat
		assert.Equal(t, uint64(1), clat.Clipped())
		assert.GreaterOrEqual(t, clat.Max(), uint64(40*time.Minute))
		assert.Contains(t, summary(t, r), "1 values at or above the histogram's")
	})
}

// The same in real time: the job really waits 18 s for one I/O. Skipped
// with -short; it sleeps, it does not spin.
func TestStallPastFioCeilingRealTime(t *testing.T) {
	testenv.SkipShort(t, "waits 18 s (skipped with -short)")
	const stall = 18 * time.Second
	start := time.Now()
	r := stallJob(t, "psync", stall, false, 0)
	require.NoError(t, r.Err)
	assert.GreaterOrEqual(t, time.Since(start), stall)
	clat := r.Dirs[workload.DirRead].Clat
	assert.GreaterOrEqual(t, clat.Max(), uint64(stall))
	assert.Less(t, clat.Max(), uint64(stall+time.Second))
	assert.Zero(t, clat.Clipped())
	assert.InEpsilon(t, float64(stall), float64(clat.Percentile(100)), 1.0/64)
	// The seconds around the stall: one sample spans it, none is lost.
	var longest time.Duration
	var ios uint64
	for _, s := range r.Seconds {
		longest = max(longest, s.Dur)
		ios += s.IOs[workload.DirRead]
	}
	assert.GreaterOrEqual(t, longest, stall, "one per-second sample spans the stall")
	assert.Equal(t, r.Dirs[workload.DirRead].IOs, ios)
	assert.Contains(t, summary(t, r), "max=18")
}

// countBelow counts the histogram's values below v.
func countBelow(h *latency.Histogram, v uint64) uint64 {
	l := h.Layout()
	var n uint64
	for i := 0; i < l.Index(v); i++ {
		n += h.Bucket(i)
	}
	return n
}

// stallEngines are the engines a stall applies to, with the depth each
// runs at: every engine that moves data, and psync under
// io_submit_mode=offload.
var stallEngines = []struct {
	name    string
	engine  string
	depth   int
	offload bool
}{
	{"sync", "sync", 1, false},
	{"psync", "psync", 1, false},
	{"pvsync2", "pvsync2", 1, false},
	{"mmap", "mmap", 1, false},
	{"libaio", "libaio", 4, false},
	{"io_uring", "io_uring", 4, false},
	{"posixaio", "posixaio", 4, false},
	{"psync-offload", "psync", 2, true},
}

// stallMargin is what a run ending on a stall may take beyond its
// runtime and grace period: the run notices within watchTick, gives the
// job takeoverAfter to hand its result over, and the job's waits end
// within reapPoll or engines.AbortPoll. Measured on a 2-CPU machine
// shared with five other test runs (load average 5 to 11): 0 to 0.15 s
// beyond runtime + grace, every engine; the margin is ten times that.
const stallMargin = 2 * time.Second

// checkStalled checks a job given up on: it failed with a StallError
// naming each of its outstanding I/Os, each outstanding at least grace
// (less the scheduling of a loaded machine: age is measured from the
// issue, after the runtime's or the stop's start of the grace period).
func checkStalled(t *testing.T, r *workload.JobResult, depth int, stalled Range, grace time.Duration) {
	t.Helper()
	var se *workload.StallError
	require.ErrorAs(t, r.Err, &se, "the job failed naming the stall")
	require.Len(t, r.Outstanding, depth, "every unit was stalled")
	assert.Equal(t, r.Outstanding, se.Outstanding)
	for _, o := range r.Outstanding {
		assert.Equal(t, "read", o.Op)
		assert.Equal(t, 4096, o.Len)
		assert.True(t, o.Offset >= stalled.Off && o.Offset < stalled.Off+stalled.Len, "offset %d in %v", o.Offset, stalled)
		assert.GreaterOrEqual(t, o.Age, grace, "outstanding for the grace period at least")
		assert.Contains(t, r.Err.Error(), fmt.Sprintf("read of 4096 bytes at offset %d: ", o.Offset))
	}
	assert.Contains(t, r.Err.Error(), "still outstanding")
}

// Range is engines.Range, for the tests' brevity.
type Range = engines.Range

// An injected stall of an hour, far past the test's own timeout, does not
// hold the run: on every engine, the run returns within its runtime plus
// the grace period (plus the margin of a loaded machine), the job fails
// with a StallError listing its outstanding I/Os, offset, length and age,
// and the I/Os completed before the stall are counted. The job's
// goroutine, whose injected stall the run aborted, then closes the file.
func TestStallEndsAtRuntimePlusGrace(t *testing.T) {
	const runtime, grace = time.Second, 500 * time.Millisecond
	for _, e := range stallEngines {
		t.Run(e.name, func(t *testing.T) {
			target := fileTarget(t, 1<<20)
			// Blocks 128 to 255 stall: the job reads 0-127 first (sequential),
			// then stalls on each unit it issues.
			stalled := Range{Off: 128 * 4096, Len: 128 * 4096}
			job := workload.Job{Name: "stall", Filename: target.Path, Engine: e.engine, RW: workload.Read, BlockSize: 4096,
				Size: 1 << 20, IODepth: e.depth, Runtime: runtime, TimeBased: true}
			job.Offload = e.offload
			start := time.Now()
			res, err := Run(context.Background(), job, workload.Options{Grace: grace,
				Faults: &engines.Faults{StallAt: []engines.Range{stalled}, Stall: time.Hour}})
			took := time.Since(start)
			require.NoError(t, err)
			t.Logf("%s: returned after %v (runtime %v + grace %v)", e.name, took, runtime, grace)
			assert.Less(t, took, runtime+grace+stallMargin, "the run did not wait for the stall")
			assert.GreaterOrEqual(t, took, runtime+grace, "the run waited the grace period")
			r := res.Jobs[0]
			checkStalled(t, r, e.depth, stalled, grace)
			assert.Equal(t, uint64(128), r.Dirs[workload.DirRead].IOs, "the I/Os before the stall completed")
			assert.InDelta(t, runtime.Seconds(), r.Runtime.Seconds(), 0.05, "the runtime runs to its end, through the stall")
			var se *workload.StallError
			require.ErrorAs(t, res.Err(), &se)
			assert.Equal(t, runtime, se.Runtime)
			assert.Contains(t, se.Error(), fmt.Sprintf("%d I/O", e.depth))
			assert.Contains(t, se.Error(), "after 1s runtime + 500ms grace")
			assert.Eventually(t, func() bool { return openFDs(t, target.Path) == 0 }, 5*time.Second, 10*time.Millisecond,
				"the job's goroutine closed the file")
		})
	}
}

// Cancellation (a signal, in stortest run) bounds a stall too: a job with
// no runtime, stalled for an hour, ends within the grace period of the
// cancellation, with partial results and its outstanding I/Os.
func TestStallEndsAtCancelPlusGrace(t *testing.T) {
	const grace = 300 * time.Millisecond
	for _, e := range stallEngines {
		t.Run(e.name, func(t *testing.T) {
			target := fileTarget(t, 1<<20)
			stalled := Range{Off: 0, Len: 1 << 20}
			job := workload.Job{Name: "stall", Filename: target.Path, Engine: e.engine, RW: workload.RandRead, BlockSize: 4096,
				Size: 1 << 20, IODepth: e.depth}
			job.Offload = e.offload
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			res, err := Run(ctx, job, workload.Options{Grace: grace,
				Faults: &engines.Faults{StallAt: []engines.Range{stalled}, Stall: time.Hour}})
			took := time.Since(start)
			require.NoError(t, err)
			t.Logf("%s: returned after %v", e.name, took)
			assert.Less(t, took, 300*time.Millisecond+grace+stallMargin)
			r := res.Jobs[0]
			assert.True(t, r.Canceled)
			checkStalled(t, r, e.depth, stalled, grace)
			var se *workload.StallError
			require.ErrorAs(t, r.Err, &se)
			assert.Zero(t, se.Runtime)
			assert.Contains(t, se.Error(), "still outstanding 300ms after the run was stopped")
		})
	}
}

// A stall shorter than the grace period is no stall: the I/O completes
// during the grace period and the job ends as usual, its latency counted.
func TestStallWithinGraceCompletes(t *testing.T) {
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			target := fileTarget(t, 1<<20)
			job := workload.Job{Name: "slow", Filename: target.Path, Engine: engine, RW: workload.Read, BlockSize: 4096,
				Size: 1 << 20, Runtime: 200 * time.Millisecond, TimeBased: true}
			r := runJob(t, job, workload.Options{Grace: 5 * time.Second,
				Faults: &engines.Faults{StallAt: []engines.Range{{Off: 16 * 4096, Len: 4096}}, Stall: time.Second}})
			require.NoError(t, r.Err)
			assert.Empty(t, r.Outstanding)
			assert.GreaterOrEqual(t, r.Dirs[workload.DirRead].Clat.Max(), uint64(time.Second), "the stalled read completed")
		})
	}
}

// The outstanding I/Os are in the summary (the job's error) and in the
// JSON output, under "stortest", where fio's tools do not look.
func TestStallOutput(t *testing.T) {
	target := fileTarget(t, 1<<20)
	job := workload.Job{Name: "hung", Filename: target.Path, Engine: "io_uring", RW: workload.Read, BlockSize: 4096, Size: 1 << 20,
		IODepth: 2, Runtime: 200 * time.Millisecond, TimeBased: true}
	res, err := Run(context.Background(), job, workload.Options{Grace: 100 * time.Millisecond,
		Faults: &engines.Faults{StallAt: []engines.Range{{Off: 0, Len: 1 << 20}}, Stall: time.Hour}})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&b, res))
	assert.Regexp(t, `error: 2 I/Os still outstanding after 200ms runtime \+ 100ms grace \(the device stopped answering\): `+
		`read of 4096 bytes at offset (0|4096): \d+ms; read of 4096 bytes at offset (0|4096): \d+ms`, b.String())

	b.Reset()
	require.NoError(t, fioout.WriteFioJSON(&b, res, fioout.FormatJSON, time.Now()))
	var doc struct {
		Jobs []struct {
			Stortest struct {
				Outstanding []struct {
					Op     string `json:"op"`
					Offset int64  `json:"offset"`
					Len    int    `json:"len"`
					Issued int64  `json:"issued_ns"`
					Age    int64  `json:"age_ns"`
				} `json:"outstanding"`
				Error string `json:"error"`
			} `json:"stortest"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc), b.String())
	require.Len(t, doc.Jobs, 1)
	st := doc.Jobs[0].Stortest
	require.Len(t, st.Outstanding, 2)
	offs := []int64{st.Outstanding[0].Offset, st.Outstanding[1].Offset}
	assert.ElementsMatch(t, []int64{0, 4096}, offs)
	for _, o := range st.Outstanding {
		assert.Equal(t, "read", o.Op)
		assert.Equal(t, 4096, o.Len)
		assert.GreaterOrEqual(t, o.Age, int64(300*time.Millisecond))
		assert.GreaterOrEqual(t, o.Issued, int64(0))
	}
	assert.Contains(t, st.Error, "still outstanding")
	assert.True(t, errors.As(res.Err(), new(*workload.StallError)))
}

// openFDs counts this process's descriptors open on path.
func openFDs(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == path {
			n++
		}
	}
	return n
}
