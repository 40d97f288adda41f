package runner

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// fio's rules: only EIO and EILSEQ are continued after, EILSEQ as a verify
// failure, the rest by direction.
func TestContinueOnClasses(t *testing.T) {
	eio, eilseq, enospc := int(unix.EIO), int(unix.EILSEQ), int(unix.ENOSPC)
	for _, tc := range []struct {
		c     workload.ContinueOn
		d     workload.Dir
		errno int
		want  bool
	}{
		{workload.ContinueNone, workload.DirRead, eio, false},
		{workload.ContinueRead, workload.DirRead, eio, true},
		{workload.ContinueRead, workload.DirWrite, eio, false},
		{workload.ContinueWrite, workload.DirWrite, eio, true},
		{workload.ContinueWrite, workload.DirTrim, eio, true},
		{workload.ContinueIO, workload.DirRead, enospc, false},
		{workload.ContinueAll, workload.DirWrite, enospc, false},
		{workload.ContinueRead, workload.DirRead, eilseq, false},
		{workload.ContinueVerify, workload.DirRead, eilseq, true},
		{workload.ContinueAll, workload.DirRead, eilseq, true},
	} {
		assert.Equal(t, tc.want, continues(tc.c, tc.d, tc.errno), "%v %v errno %d", tc.c, tc.d, tc.errno)
	}
}

// errorJob reads 256 blocks of a file once, through a fault wrapper that
// fails the blocks at 10 and 20 with errno.
func errorJob(t *testing.T, rw workload.RW, c workload.ContinueOn, errno unix.Errno, opts workload.Options) *workload.JobResult {
	t.Helper()
	target := fileTarget(t, 1<<20)
	job := workload.Job{Name: "faulty", Filename: target.Path, Engine: "psync", RW: rw, BlockSize: 4096,
		Size: 1 << 20, ContinueOnError: c}
	opts.Faults = &engines.Faults{Errno: errno, ErrAt: []engines.Range{{Off: 10 * 4096, Len: 4096}, {Off: 20 * 4096, Len: 4096}}}
	return runJob(t, job, opts)
}

// With continue_on_error the run goes on: errors are counted per
// direction and errno, and the first ones are reported with their offsets,
// in the result and in the summary.
func TestContinueOnErrorThroughFaults(t *testing.T) {
	t.Run("continues", func(t *testing.T) {
		r := errorJob(t, workload.RandRead, workload.ContinueRead, unix.EIO, workload.Options{})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(256), r.Dirs[workload.DirRead].IOs, "every block is read: the run went on")
		assert.Equal(t, uint64(2), r.Dirs[workload.DirRead].Errors)
		assert.Equal(t, uint64(254*4096), r.Dirs[workload.DirRead].Bytes)
		assert.Equal(t, map[int]uint64{int(unix.EIO): 2}, r.ErrnoCounts)
		require.Len(t, r.FirstErrors, 2)
		var offs []int64
		for _, e := range r.FirstErrors {
			offs = append(offs, e.Offset)
			assert.Equal(t, "read", e.Op)
			assert.Equal(t, int(unix.EIO), e.Errno)
			assert.ErrorIs(t, e.Err, engines.ErrInjected)
		}
		slices.Sort(offs)
		assert.Equal(t, []int64{40960, 81920}, offs)
		sum := summary(t, r)
		assert.Contains(t, sum, "err= 5")
		assert.Contains(t, sum, "errors=2 short=0")
		assert.Contains(t, sum, "io error: read of 4096 bytes at offset 40960")
		assert.Contains(t, sum, "io error: read of 4096 bytes at offset 81920")
	})
	t.Run("stops", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			rw    workload.RW
			c     workload.ContinueOn
			errno unix.Errno
		}{
			{"none", workload.Read, workload.ContinueNone, unix.EIO},
			{"other direction", workload.Read, workload.ContinueWrite, unix.EIO},
			{"fatal errno", workload.Read, workload.ContinueAll, unix.ENOSPC},
			{"eilseq is verify", workload.Read, workload.ContinueRead, unix.EILSEQ},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := errorJob(t, tc.rw, tc.c, tc.errno, workload.Options{})
				var ioe workload.IOError
				require.ErrorAs(t, r.Err, &ioe)
				assert.Equal(t, int64(10*4096), ioe.Offset, "the first failure (sequential reads) ends the job")
				assert.Equal(t, uint64(11), r.Dirs[workload.DirRead].IOs)
				assert.Equal(t, uint64(1), r.Dirs[workload.DirRead].Errors)
				sum := summary(t, r)
				assert.Contains(t, sum, "error: read of 4096 bytes at offset 40960")
			})
		}
	})
	t.Run("eilseq continues as verify", func(t *testing.T) {
		r := errorJob(t, workload.Read, workload.ContinueVerify, unix.EILSEQ, workload.Options{})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(2), r.ErrnoCounts[int(unix.EILSEQ)])
	})
	t.Run("options continue after any errno", func(t *testing.T) {
		r := errorJob(t, workload.Write, workload.ContinueNone, unix.ENOSPC, workload.Options{ContinueOnError: true})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(256), r.Dirs[workload.DirWrite].IOs)
		assert.Equal(t, uint64(2), r.Dirs[workload.DirWrite].Errors)
		assert.Equal(t, uint64(2), r.ErrnoCounts[int(unix.ENOSPC)])
	})
}

// Errors on a mixed job are counted in the direction of the failed I/O,
// and their sum is the errno count.
func TestFaultsPerDirection(t *testing.T) {
	target := fileTarget(t, 4<<20)
	job := workload.Job{Name: "randrw", Filename: target.Path, Engine: "io_uring", RW: workload.RandRW, BlockSize: 4096,
		Size: 4 << 20, IODepth: 8, ContinueOnError: workload.ContinueIO}
	r := runJob(t, job, workload.Options{Faults: &engines.Faults{Seed: 5, ErrRate: 0.05}})
	require.NoError(t, r.Err)
	reads, writes := r.Dirs[workload.DirRead].Errors, r.Dirs[workload.DirWrite].Errors
	assert.Positive(t, reads)
	assert.Positive(t, writes)
	assert.Equal(t, reads+writes, r.ErrnoCounts[int(unix.EIO)])
	total := r.Dirs[workload.DirRead].IOs + r.Dirs[workload.DirWrite].IOs
	assert.InDelta(t, 0.05*float64(total), float64(reads+writes), 4*math.Sqrt(float64(total)*0.05*0.95), "5%% of %d I/Os (4 sd)", total)
	assert.Len(t, r.FirstErrors, workload.MaxRecordedErrors)

	// The same seed fails the same I/Os.
	again := runJob(t, job, workload.Options{Faults: &engines.Faults{Seed: 5, ErrRate: 0.05}})
	assert.Equal(t, r.FirstErrors[0].Offset, again.FirstErrors[0].Offset)
	assert.Equal(t, reads, again.Dirs[workload.DirRead].Errors)

	// Bad faults are refused before any I/O.
	_, err := Run(context.Background(), job, workload.Options{Faults: &engines.Faults{ErrRate: 2}})
	assert.True(t, errors.Is(err, engines.ErrConfig), "%v", err)
}

// Short transfers are counted per direction and shown in the summary; the
// bytes are the bytes really transferred.
func TestShortTransfersThroughFaults(t *testing.T) {
	target := fileTarget(t, 4<<20)
	job := workload.Job{Name: "short", Filename: target.Path, Engine: "libaio", RW: workload.RandRW, BlockSize: 16384,
		Size: 4 << 20, IODepth: 4}
	r := runJob(t, job, workload.Options{Faults: &engines.Faults{Seed: 1, ShortRate: 0.2, ShortAlign: 4096}})
	require.NoError(t, r.Err)
	for _, d := range []workload.Dir{workload.DirRead, workload.DirWrite} {
		s := r.Dirs[d]
		assert.Positive(t, s.ShortIOs, "%s short transfers", d)
		assert.Less(t, s.Bytes, s.IOs*16384, "%s bytes count what moved", d)
		assert.Zero(t, s.Bytes%4096, "%s bytes are whole 4 KiB blocks", d)
	}
	assert.Contains(t, summary(t, r), "errors=0 short=")
}
