package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trimwrite and randtrimwrite trim a block, then write the same block
// (fio's t/jobs/t0023 and t0024 check this in their logs); a pass ends
// with its last write, and visits every block once.
func TestPatternTrimWrite(t *testing.T) {
	for _, rw := range []RW{TrimWrite, RandTrimWrite} {
		t.Run(rw.String(), func(t *testing.T) {
			j := Job{Name: "tw", RW: rw, BlockSize: 4096, Size: 64 << 10}
			p, err := NewPattern(&j, 0, 7)
			require.NoError(t, err)
			seen := map[int64]bool{}
			for i := range 16 {
				trim := p.Next()
				require.Equal(t, DirTrim, trim.Dir, "I/O %d", 2*i)
				require.Zero(t, p.Passes(), "the pass is not over before its last write")
				write := p.Next()
				require.Equal(t, IO{Dir: DirWrite, Offset: trim.Offset, Len: trim.Len}, write, "I/O %d", 2*i+1)
				seen[trim.Offset] = true
			}
			assert.Len(t, seen, 16, "every block once")
			assert.Equal(t, int64(1), p.Passes())
		})
	}
	j := Job{Name: "t", RW: RandTrim, BlockSize: 4096, Size: 64 << 10}
	p, err := NewPattern(&j, 0, 7)
	require.NoError(t, err)
	for range 16 {
		require.Equal(t, DirTrim, p.Next().Dir)
	}
	assert.Equal(t, int64(1), p.Passes())
}

// Trims run on every engine that has them, counted as trims: async
// engines discard alone, and a trim they hand back (busy while other I/O
// is in flight) stays a trim (it used to come back as a read). A
// trimwrite job's writes read back intact after their blocks were
// discarded.
func TestRunTrims(t *testing.T) {
	target := loopTarget(t, 4<<20)
	for _, engine := range []string{"null", "sync", "psync", "pvsync2", "libaio", "io_uring"} {
		for _, rw := range []RW{Trim, RandTrim, TrimWrite, RandTrimWrite} {
			t.Run(engine+"/"+rw.String(), func(t *testing.T) {
				job := Job{Name: "t", Filename: target.Path, Engine: engine, RW: rw, BlockSize: 64 << 10,
					Size: 2 << 20, Direct: true, IODepth: 4}
				if rw.Writes() {
					job.Verify = VerifyCRC32C
				}
				r := runJob(t, job, Options{})
				require.NoError(t, r.Err)
				assert.Zero(t, r.TotalErrors())
				const blocks = 32
				assert.Equal(t, uint64(blocks), r.Dirs[DirTrim].IOs, "trims")
				assert.Equal(t, uint64(blocks), r.Dirs[DirTrim].Clat.Count(), "trim clat samples")
				if engine != "null" {
					assert.Equal(t, uint64(2<<20), r.Dirs[DirTrim].Bytes, "trimmed bytes")
				}
				if !rw.Writes() {
					assert.Zero(t, r.Dirs[DirWrite].IOs+r.Dirs[DirRead].IOs, "reads and writes of a trim job")
					return
				}
				assert.Equal(t, uint64(blocks), r.Dirs[DirWrite].IOs, "writes")
				if engine != "null" {
					assert.Equal(t, uint64(blocks), r.Verify.Checked, "blocks verified")
					assert.Zero(t, r.Verify.Mismatches, "verify: %v", r.Verify.First)
				}
			})
		}
	}
}
