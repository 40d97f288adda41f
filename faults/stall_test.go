package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/faults"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// stallMargin is what a run ending on a kernel stall may take beyond its
// runtime and grace period: the run notices within 50 ms, gives the job
// 200 ms to hand its result over, then takes it from the thread blocked
// in the kernel. Measured on a 2-CPU machine shared with five other test
// runs (load average 5 to 11): 0.07 to 0.44 s beyond runtime + grace
// (the most for sync, whose result is taken from the blocked thread);
// the margin is seven times that.
const stallMargin = 3 * time.Second

// A request the device never answers (a FUSE stall of an hour under a
// loop device, far past the test's own timeout) does not hold the run, on
// any engine: the synchronous engines' threads stay blocked in pread,
// preadv2 or a page fault, libaio's and io_uring's units stay in flight,
// posixaio's threads stay in pread; the run returns within its runtime
// plus the grace period with the job failed and its outstanding I/Os
// listed. Releasing the stall at cleanup lets the abandoned threads go:
// the loop device detaches and nothing is left.
func TestKernelStallEndsEveryEngine(t *testing.T) {
	const runtime, grace = time.Second, time.Second
	stalled := engines.Range{Off: 1 << 20, Len: 1 << 20}
	for _, engine := range append(engineNames, "posixaio") {
		t.Run(engine, func(t *testing.T) {
			// A device per engine: the stalled requests of one must not
			// hold the next (loop's queue, FUSE's background slots).
			_, l := serve(t, faults.FileOptions{Size: 4 << 20, Rules: faults.Rules{
				{Range: stalled, Ops: engines.OpsOf(engines.OpRead), Stall: time.Hour},
			}})
			j := job("hung", engine, l.Path(), workload.Read)
			j.Size, j.Runtime, j.TimeBased = 4<<20, runtime, true
			depth := max(j.IODepth, 1)
			if engine == "posixaio" {
				j.IODepth, depth = 4, 4
			}
			ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
			defer cancel()
			start := time.Now()
			res, err := runner.Run(ctx, j, workload.Options{Grace: grace})
			took := time.Since(start)
			require.NoError(t, err)
			t.Logf("%s: returned after %v (runtime %v + grace %v)", engine, took, runtime, grace)
			assert.Less(t, took, runtime+grace+stallMargin, "the run did not wait for the device")
			r := res.Jobs[0]
			var se *workload.StallError
			require.ErrorAs(t, r.Err, &se, "the job failed naming the stall")
			require.NotEmpty(t, r.Outstanding)
			assert.Len(t, r.Outstanding, depth, "every unit was stalled")
			for _, o := range r.Outstanding {
				assert.Equal(t, "read", o.Op)
				if engine != "mmap" {
					// mmap's page faults read ahead: the unit that stalls
					// may be one before the stalled range.
					assert.True(t, o.Offset >= stalled.Off && o.Offset < stalled.Off+stalled.Len, "offset %d in %v", o.Offset, stalled)
				}
				assert.GreaterOrEqual(t, o.Age, grace)
				assert.Contains(t, r.Err.Error(), fmt.Sprintf("read of %d bytes at offset %d: ", o.Len, o.Offset))
			}
			if engine != "mmap" {
				assert.Equal(t, uint64(256), r.Dirs[workload.DirRead].IOs, "the first MiB was read before the stall")
			}
		})
	}
}

// Cancellation, as a signal does in stortest run, ends a job stalled in
// the kernel within the grace period too, whatever its runtime.
func TestKernelStallEndsOnCancel(t *testing.T) {
	const grace = 500 * time.Millisecond
	for _, engine := range []string{"psync", "libaio", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			_, l := serve(t, faults.FileOptions{Size: 4 << 20, Rules: faults.Rules{
				{Range: engines.Range{Off: 0, Len: 4 << 20}, Stall: time.Hour},
			}})
			j := job("hung", engine, l.Path(), workload.RandRead)
			j.Size = 4 << 20
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			res, err := runner.Run(ctx, j, workload.Options{Grace: grace})
			took := time.Since(start)
			require.NoError(t, err)
			t.Logf("%s: returned after %v", engine, took)
			assert.Less(t, took, 300*time.Millisecond+grace+stallMargin)
			r := res.Jobs[0]
			assert.True(t, r.Canceled)
			var se *workload.StallError
			require.ErrorAs(t, r.Err, &se)
			assert.Len(t, r.Outstanding, max(j.IODepth, 1))
			assert.Contains(t, se.Error(), "still outstanding 500ms after the run was stopped")
		})
	}
}

// gcSink keeps TestGarbageDuringKernelStall's allocations from being
// optimised away.
var gcSink []byte

// Garbage made while a job's read is stalled in the kernel does not start
// a collection that waits for the read (and the whole process with it,
// here until the device answers 10 s later): the runner keeps the
// collector off while jobs run, so the run gives up on the read after
// its grace as usual.
func TestGarbageDuringKernelStall(t *testing.T) {
	const grace = 300 * time.Millisecond
	const stall = 10 * time.Second // well past cancel + grace + stallMargin
	_, l := serve(t, faults.FileOptions{Size: 4 << 20, Rules: faults.Rules{
		{Range: engines.Range{Off: 0, Len: 4 << 20}, Stall: stall},
	}})
	j := job("garbage", "psync", l.Path(), workload.RandRead)
	j.Size = 4 << 20
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	done := make(chan struct{})
	go func() {
		// 64 MiB in 256 KiB pieces over the first 300 ms: many times the
		// live heap, so the heap's own trigger would start collections.
		defer close(done)
		for range 256 {
			gcSink = make([]byte, 256<<10)
			time.Sleep(time.Millisecond)
		}
	}()
	start := time.Now()
	res, err := runner.Run(ctx, j, workload.Options{Grace: grace})
	took := time.Since(start)
	<-done
	gcSink = nil
	require.NoError(t, err)
	t.Logf("returned after %v", took)
	assert.Less(t, took, 300*time.Millisecond+grace+stallMargin, "the run waited for the device")
	var se *workload.StallError
	require.ErrorAs(t, res.Jobs[0].Err, &se)
}
