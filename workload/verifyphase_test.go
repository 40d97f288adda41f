package workload

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A time-based write job with verify: fio 3.33 prints that its verify
// phase never starts, yet with an engine that queues its I/Os (libaio,
// io_uring, posixaio) it ends each write phase once a size's worth of
// bytes is queued, reads all of it back and starts over, until the
// runtime ends; with one that completes at once (psync) it writes the
// whole runtime and reads nothing back. stortest does the same, engine by
// engine: the same read-backs per write phase (all but the last phase's
// are read back), and none with psync.
func TestFioVerifyTimeBasedEnginesMatchFio(t *testing.T) {
	fio := fioBinary(t)
	target := fileTarget(t, 1<<20)
	const phase = 16 // 1 MiB in 64 KiB writes
	for _, engine := range []string{"libaio", "io_uring", "psync"} {
		t.Run(engine, func(t *testing.T) {
			text := fmt.Sprintf("[v]\nfilename=%s\nrw=write\nsize=1m\nbs=64k\nioengine=%s\niodepth=4\nverify=md5\ntime_based\nruntime=300ms\n",
				target.Path, engine)
			f := at(fioJSON(t, fio, text), "jobs", "0")
			fw, fr := at(f, "write", "total_ios").(float64), at(f, "read", "total_ios").(float64)
			t.Logf("fio 3.33: %v writes, %v reads", fw, fr)
			require.Zero(t, at(f, "error"))

			jobs, err := parseFile(strings.NewReader(text), "v.fio")
			require.NoError(t, err)
			assert.Equal(t, []string{FioVerifyNeverStarts}, jobs[0].Warnings(), "fio's notice all the same")
			res, err := RunJobs(context.Background(), jobs, Options{})
			require.NoError(t, err)
			r := res.Jobs[0]
			require.NoError(t, r.Err)
			w, rd := r.Dirs[DirWrite].IOs, r.Dirs[DirRead].IOs
			t.Logf("stortest: %d writes, %d reads", w, rd)
			require.Greater(t, w, uint64(2*phase), "more than two write phases in the runtime")
			if engine == "psync" {
				require.Zero(t, fr, "fio reads nothing back with psync")
				assert.Zero(t, rd)
				assert.Zero(t, r.Verify.Checked)
				return
			}
			require.Greater(t, fr, fw-2*phase, "fio reads back every phase but the last")
			assert.LessOrEqual(t, rd, w)
			assert.Greater(t, rd, w-2*phase, "every phase but the last is read back")
			assert.Equal(t, rd, r.Verify.Checked)
			assert.Zero(t, r.Verify.Mismatches)
		})
	}
}
