package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// Trims run on every engine that has them, counted as trims: async
// engines discard alone, and a trim they hand back (busy while other I/O
// is in flight) stays a trim (it used to come back as a read). A
// trimwrite job's writes read back intact after their blocks were
// discarded.
func TestRunTrims(t *testing.T) {
	target := loopTarget(t, 4<<20)
	for _, engine := range []string{"null", "sync", "psync", "pvsync2", "libaio", "io_uring"} {
		for _, rw := range []workload.RW{workload.Trim, workload.RandTrim, workload.TrimWrite, workload.RandTrimWrite} {
			t.Run(engine+"/"+rw.String(), func(t *testing.T) {
				job := workload.Job{Name: "t", Filename: target.Path, Engine: engine, RW: rw, BlockSize: 64 << 10,
					Size: 2 << 20, Direct: true, IODepth: 4}
				if rw.Writes() {
					job.Verify = workload.VerifyCRC32C
				}
				r := runJob(t, job, workload.Options{})
				require.NoError(t, r.Err)
				assert.Zero(t, r.TotalErrors())
				const blocks = 32
				assert.Equal(t, uint64(blocks), r.Dirs[workload.DirTrim].IOs, "trims")
				assert.Equal(t, uint64(blocks), r.Dirs[workload.DirTrim].Clat.Count(), "trim clat samples")
				if engine != "null" {
					assert.Equal(t, uint64(2<<20), r.Dirs[workload.DirTrim].Bytes, "trimmed bytes")
				}
				if !rw.Writes() {
					assert.Zero(t, r.Dirs[workload.DirWrite].IOs+r.Dirs[workload.DirRead].IOs, "reads and writes of a trim job")
					return
				}
				assert.Equal(t, uint64(blocks), r.Dirs[workload.DirWrite].IOs, "writes")
				if engine != "null" {
					assert.Equal(t, uint64(blocks), r.Verify.Checked, "blocks verified")
					assert.Zero(t, r.Verify.Mismatches, "verify: %v", r.Verify.First)
				}
			})
		}
	}
}
