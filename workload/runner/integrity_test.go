package runner

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// Data integrity: verify tells a flipped bit, a lost write (the device
// keeps an older pass's data) and a misdirected write (another offset's
// data) apart, each at its offset, in the result and the summary. The
// damage is done to the loop device's backing file between a pass's writes
// and its read-back (Options.BeforeVerify), as a misbehaving device would
// do it.

const blk = 4096

// backing gives read and write access to a loop device's backing file.
type backing struct {
	t    *testing.T
	path string
}

func (b backing) read(off int64) []byte {
	f, err := os.Open(b.path)
	require.NoError(b.t, err)
	defer f.Close()
	buf := make([]byte, blk)
	_, err = f.ReadAt(buf, off)
	require.NoError(b.t, err)
	return buf
}

func (b backing) write(off int64, data []byte) {
	f, err := os.OpenFile(b.path, os.O_RDWR, 0)
	require.NoError(b.t, err)
	defer f.Close()
	_, err = f.WriteAt(data, off)
	require.NoError(b.t, err)
	require.NoError(b.t, f.Sync())
}

// integrityJob writes 2 MiB of random 4 KiB blocks loops times with
// verify on, calling damage before each verify pass (pass 0, 1, ...).
func integrityJob(t *testing.T, engine string, loops int, c workload.ContinueOn, damage func(b backing, pass int)) *workload.JobResult {
	t.Helper()
	target := loopTarget(t, 8<<20)
	b := backing{t, target.File}
	job := workload.Job{Name: "integrity", Filename: target.Path, Engine: engine, RW: workload.RandWrite, BlockSize: blk,
		Size: 2 << 20, Direct: true, Verify: workload.VerifyCRC32C, IODepth: 4, Loops: loops, ContinueOnError: c}
	pass := 0
	return runJob(t, job, workload.Options{BeforeVerify: func(*workload.JobResult) {
		damage(b, pass)
		pass++
	}})
}

// oneMismatch checks that verify found exactly one bad block, of kind at
// off, that the job's error says so, and that the summary shows it.
func oneMismatch(t *testing.T, r *workload.JobResult, kind iogen.Corruption, off int64) *iogen.VerifyError {
	t.Helper()
	require.Equal(t, uint64(1), r.Verify.Mismatches, "mismatches: %v", r.Verify.First)
	require.Len(t, r.Verify.First, 1)
	var ve *iogen.VerifyError
	require.ErrorAs(t, r.Verify.First[0], &ve)
	assert.Equal(t, kind, ve.Kind, "%v", ve)
	assert.Equal(t, off, ve.Offset)
	require.Error(t, r.Err, "a verify failure fails the job")
	assert.ErrorIs(t, r.Err, iogen.ErrCorrupt)
	sum := summary(t, r)
	assert.Contains(t, sum, "1 mismatches")
	assert.Contains(t, sum, fmt.Sprintf("verify offset %d (4096 bytes): %s", off, kind))
	return ve
}

func TestVerifyFlippedBit(t *testing.T) {
	for _, engine := range []string{"psync", "libaio"} {
		t.Run(engine, func(t *testing.T) {
			const victim = 77 * blk
			r := integrityJob(t, engine, 1, workload.ContinueNone, func(b backing, pass int) {
				d := b.read(victim)
				d[1234] ^= 0x20
				b.write(victim, d)
			})
			ve := oneMismatch(t, r, iogen.CorruptData, victim)
			assert.Equal(t, 1234, ve.FirstBad)
			assert.Equal(t, 1, ve.FlippedBits)
		})
	}
}

// A lost write: the block keeps what the first pass wrote while the second
// pass's write of it vanished. The generation in the block's header is the
// first pass's, so verify calls it stale, not good.
func TestVerifyLostWrite(t *testing.T) {
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			const victim = 301 * blk
			var old []byte
			r := integrityJob(t, engine, 2, workload.ContinueNone, func(b backing, pass int) {
				switch pass {
				case 0:
					old = b.read(victim) // pass 0 wrote it; verify reads it back intact
				case 1:
					b.write(victim, old) // pass 1's write is lost
				}
			})
			ve := oneMismatch(t, r, iogen.CorruptStale, victim)
			assert.Equal(t, ve.WantSeed, ve.FoundSeed+1, "the block holds the previous pass's generation")
			assert.Equal(t, uint64(2*512), r.Verify.Checked, "both passes read back")
		})
	}
}

// A misdirected write: block b holds the data written for block a.
func TestVerifyMisdirectedWrite(t *testing.T) {
	const a, b = 12 * blk, 400 * blk
	r := integrityJob(t, "psync", 1, workload.ContinueNone, func(bk backing, pass int) {
		bk.write(b, bk.read(a))
	})
	ve := oneMismatch(t, r, iogen.CorruptMisdirected, b)
	assert.Equal(t, int64(a), ve.FoundOffset)
	assert.Equal(t, ve.WantSeed, ve.FoundSeed)
}

// Every pass writes a new generation and verifies it; a pass with
// mismatches ends the job unless continue_on_error covers verify.
func TestVerifyPerPass(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		r := integrityJob(t, "io_uring", 3, workload.ContinueNone, func(backing, int) {})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(3*512), r.Dirs[workload.DirWrite].IOs)
		assert.Equal(t, uint64(3*512), r.Verify.Checked)
		assert.Zero(t, r.Verify.Mismatches)
	})
	flip := func(b backing, pass int) {
		if pass == 0 {
			d := b.read(5 * blk)
			d[100] ^= 1
			b.write(5*blk, d)
		}
	}
	t.Run("stops after a failed pass", func(t *testing.T) {
		r := integrityJob(t, "psync", 3, workload.ContinueNone, flip)
		oneMismatch(t, r, iogen.CorruptData, 5*blk)
		assert.Equal(t, uint64(512), r.Dirs[workload.DirWrite].IOs, "no pass after the failed one")
		assert.Equal(t, uint64(512), r.Verify.Checked)
	})
	t.Run("continue_on_error=verify", func(t *testing.T) {
		r := integrityJob(t, "psync", 3, workload.ContinueVerify, flip)
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(1), r.Verify.Mismatches)
		assert.Equal(t, uint64(3*512), r.Dirs[workload.DirWrite].IOs)
		assert.Equal(t, uint64(3*512), r.Verify.Checked)
		var ve *iogen.VerifyError
		require.True(t, errors.As(r.Verify.First[0], &ve))
		assert.Equal(t, iogen.CorruptData, ve.Kind)
	})
}
