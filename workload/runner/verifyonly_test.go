package runner

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// verify_only reads back what an earlier run wrote, writing nothing: fio
// 3.33 writes a file with verify=md5 or crc32c (a seed given, no verify
// phase); then fio and stortest, each with verify_only and the same
// options, count the 256 writes they skip and read back the 256 blocks,
// both passing and leaving the file as it was. With one byte of a block's
// data changed, both fail at that block's offset, with the same expected
// and received checksums. A file stortest wrote is read back by
// stortest's verify_only too.
func TestVerifyOnlyMatchesFio(t *testing.T) {
	fio := fioBinary(t)
	for _, kind := range []string{"md5", "crc32c"} {
		t.Run(kind, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "vf")
			job := "[w]\nfilename=" + file + "\nsize=1m\nbs=4k\nrw=randwrite\nverify=" + kind + "\nrandseed=42\n"
			f := at(fioJSON(t, fio, job+"do_verify=0\n"), "jobs", "0")
			require.Equal(t, 256.0, at(f, "write", "total_ios"))
			sum := func() [32]byte {
				b, err := os.ReadFile(file)
				require.NoError(t, err)
				return sha256.Sum256(b)
			}
			written := sum()

			text := job + "verify_only=1\n"
			f = at(fioJSON(t, fio, text), "jobs", "0")
			want := [4]int64{int64(at(f, "read", "total_ios").(float64)), int64(at(f, "read", "io_bytes").(float64)),
				int64(at(f, "write", "total_ios").(float64)), int64(at(f, "write", "io_bytes").(float64))}
			require.Equal(t, [4]int64{256, 1 << 20, 256, 1 << 20}, want, "fio: the writes counted, the blocks read back")

			run := func() *workload.JobResult {
				jobs, err := parseFile(strings.NewReader(text), "v.fio")
				require.NoError(t, err)
				res, err := RunJobs(context.Background(), jobs, workload.Options{})
				require.NoError(t, err)
				return res.Jobs[0]
			}
			r := run()
			require.NoError(t, r.Err)
			assert.Equal(t, want, resultCounts(r), "stortest counts as fio")
			assert.Equal(t, uint64(256), r.Verify.Checked)
			assert.Equal(t, uint64(256), r.Dirs[workload.DirWrite].DryIOs, "no write issued")
			assert.Zero(t, r.BW(workload.DirWrite))
			assert.Equal(t, written, sum(), "verify_only writes nothing")

			// One byte of the data of the block at 40960.
			fh, err := os.OpenFile(file, os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = fh.WriteAt([]byte{'X'}, 40960+100)
			require.NoError(t, err)
			require.NoError(t, fh.Close())

			ok, out := fioOn(t, fio, text)
			require.False(t, ok, "fio passes a changed block:\n%s", out)
			require.Contains(t, out, "offset 40960")
			r = run()
			require.Error(t, r.Err)
			assert.Contains(t, r.Err.Error(), "offset 40960")
			assert.Equal(t, uint64(1), r.Verify.Mismatches)
			for _, line := range strings.Split(out, "\n") {
				for _, p := range []string{"Expected CRC: ", "Received CRC: "} {
					if _, v, ok := strings.Cut(line, p); ok {
						assert.Contains(t, r.Err.Error(), strings.TrimSpace(v), "fio's %s", p)
					}
				}
			}
		})
	}

	t.Run("stortest's blocks", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "vf")
		text := "[w]\nfilename=" + file + "\nsize=256k\nbs=4k\nrw=write\nverify=crc32c\n"
		for _, extra := range []string{"do_verify=0\n", "verify_only=1\n"} {
			jobs, err := parseFile(strings.NewReader(text+extra), "v.fio")
			require.NoError(t, err)
			res, err := RunJobs(context.Background(), jobs, workload.Options{})
			require.NoError(t, err)
			require.NoError(t, res.Jobs[0].Err, extra)
		}
	})

	_, err := parseFile(strings.NewReader("[w]\nsize=1m\nrw=write\nverify=md5\nverify_only=1\ntime_based\nruntime=1\n"), "v.fio")
	require.ErrorContains(t, err, "verify_only")
	// Which blocks a randrw or norandommap job wrote depends on fio's
	// random offsets, which stortest does not draw: refused rather than
	// blocks fio never wrote reported as lost.
	for _, o := range []string{"rw=randrw", "rw=randwrite\nnorandommap=1"} {
		_, err = parseFile(strings.NewReader("[w]\nsize=1m\n"+o+"\nverify=md5\nverify_only=1\n"), "v.fio")
		require.ErrorContains(t, err, "cannot know which blocks", o)
	}
}
