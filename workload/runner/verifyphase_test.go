package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"

	"stortest.dev/engines"
	"stortest.dev/workload/validate"
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
			assert.Equal(t, []string{validate.FioVerifyNeverStarts}, validate.Warnings(&jobs[0]), "fio's notice all the same")
			res, err := RunJobs(context.Background(), jobs, workload.Options{})
			require.NoError(t, err)
			r := res.Jobs[0]
			require.NoError(t, r.Err)
			w, rd := r.Dirs[workload.DirWrite].IOs, r.Dirs[workload.DirRead].IOs
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

// Two clones that write the same blocks with verify: the one that reads
// back after the other wrote finds the other's intact blocks. That is no
// lost write, and stortest says what it is, naming the other clone; fio
// 3.33 warns of it when it reads the job file ("multiple writers may
// overwrite blocks that belong to other jobs"; checked against fio, and
// Warnings gives the same notice). Here clone 1 writes the same 16
// blocks after clone 0, which reads them back after that.
func TestVerifyOverwrittenByAnotherJob(t *testing.T) {
	target := fileTarget(t, 64<<10)
	text := fmt.Sprintf("[x]\nfilename=%s\nrw=write\nsize=64k\nbs=4k\nverify=crc32c\nnumjobs=2\n", target.Path)
	jobs, err := parseFile(strings.NewReader(text), "x.fio")
	require.NoError(t, err)
	assert.Equal(t, []string{validate.FioMultipleWriters}, validate.Warnings(&jobs[0]))
	if fio, err := testenv.FioPath(); err == nil {
		_, out := fioOn(t, fio, text, "--output-format=json")
		assert.Contains(t, out, "fio: "+validate.FioMultipleWriters+"\n", "fio 3.33's notice")
	}

	// Clone 1 starts once clone 0 has written; clone 0 reads back once
	// clone 1 has written.
	wrote := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	res, err := RunJobs(context.Background(), jobs, workload.Options{
		OnStart: func(j *workload.JobResult, _ int) {
			if j.Clone == 1 {
				<-wrote[0]
			}
		},
		BeforeVerify: func(j *workload.JobResult) {
			close(wrote[j.Clone])
			if j.Clone == 0 {
				<-wrote[1]
			}
		},
	})
	require.NoError(t, err)
	a, b := res.Jobs[0], res.Jobs[1]
	require.NoError(t, b.Err, "clone 1 reads back its own blocks")
	require.Error(t, a.Err)
	assert.Equal(t, uint64(16), a.Verify.Mismatches)
	var e *iogen.VerifyError
	require.ErrorAs(t, a.Verify.First[0], &e)
	assert.Equal(t, iogen.CorruptOverwritten, e.Kind, "%v", e)
	assert.Contains(t, e.Error(), "by job x.1")
	assert.NotContains(t, a.Err.Error(), "lost")

	// A block of the job's own older generation is still a lost or
	// stale write.
	v, err := iogen.NewVerifier(workload.VerifyCRC32C, "")
	require.NoError(t, err)
	buf := make([]byte, 4096)
	v.Fill(buf, 0, 6)
	s := &ioSource{job: &jobs[0], ver: v, seed: 6, gen: 1, verifying: true,
		writers: []verifyWriter{{seed: 6, name: "x.0", file: jobs[0].Filename}, {seed: 1 << 40, name: "x.1", file: jobs[0].Filename}}}
	var vs workload.VerifyStats
	s.check(&engines.Unit{Op: engines.OpRead, Buf: buf, Res: 4096}, &vs)
	require.ErrorAs(t, vs.First[0], &e)
	assert.Equal(t, iogen.CorruptStale, e.Kind)
}

// Sequential writes with holes (rw=write:N) wrap inside their pass and
// write the same blocks again (azure-storage-fuse's hole tests): fio 3.33
// reads each block back once, its log of writes keeping the last of each
// offset; stortest reads the same blocks, not every write.
func TestFioVerifyHoledWritesReadOnceMatchesFio(t *testing.T) {
	fio := fioBinary(t)
	for _, hole := range []string{"192k", "960k"} {
		t.Run(hole, func(t *testing.T) {
			target := fileTarget(t, 1<<20)
			text := fmt.Sprintf("[hole]\nfilename=%s\nsize=1m\nbs=64k\nrw=write:%s\nioengine=sync\nverify=crc32c\n", target.Path, hole)
			f := at(fioJSON(t, fio, text), "jobs", "0")
			r := runJobFile(t, text).Jobs[0]
			assert.Equal(t, at(f, "write", "total_ios"), float64(r.Dirs[workload.DirWrite].IOs), "writes")
			assert.Equal(t, at(f, "read", "total_ios"), float64(r.Dirs[workload.DirRead].IOs), "reads back")
			assert.Equal(t, r.Dirs[workload.DirRead].IOs, r.Verify.Checked)
			assert.Less(t, r.Dirs[workload.DirRead].IOs, r.Dirs[workload.DirWrite].IOs)
		})
	}
}
