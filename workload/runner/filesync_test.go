package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

func TestFileOptionsParse(t *testing.T) {
	jobs, err := parseFile(strings.NewReader(`[a]
fdatasync=8
sync_file_range=wait_before,write,wait_after:4
end_fsync=1
fsync_on_close
create_fsync=0
pre_read=1
fadvise_hint=random
unique_filename=1
offset_increment=64k
offset_align=4k
allrandrepeat=1
write_hint=extreme
nonvectored=1
[b]
sync_file_range=write
invalidate=0
create_only=1
fadvise_hint=0
[c]
fadvise_hint=1
invalidate=1
`), "t.fio")
	require.NoError(t, err)
	require.Len(t, jobs, 3)
	assert.Equal(t, fileOpts{Syncs: workload.Syncs{FdatasyncEvery: 8,
		SyncFileRange: workload.SyncFileRange{Flags: unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER, Every: 4},
		EndFsync:      true, FsyncOnClose: true, NoCreateFsync: true}, PageCache: workload.PageCache{PreRead: true, FadviseHint: "random"},
		OffsetIncrement: 64 << 10, AllRandRepeat: true, WriteHint: 5}, fileOptsOf(jobs[0]))
	assert.Equal(t, fileOpts{Syncs: workload.Syncs{SyncFileRange: workload.SyncFileRange{Flags: unix.SYNC_FILE_RANGE_WRITE, Every: 1}},
		PageCache: workload.PageCache{NoInvalidate: true, FadviseHint: "0"}, CreateOnly: true}, fileOptsOf(jobs[1]))
	assert.Equal(t, fileOpts{}, fileOptsOf(jobs[2]))
	for _, j := range jobs {
		back := roundTripJob(t, j)
		assert.Equal(t, fileOptsOf(j), fileOptsOf(back), "%s reads back", j.Name)
	}
	for _, tc := range []struct{ in, want string }{
		{"[a]\nsize=1m\nfdatasync=-1\n", "t.fio:3: job \"a\": fdatasync:"},
		{"[a]\nfdatasync=x\n", "t.fio:2: job \"a\": fdatasync:"},
		{"[a]\nsync_file_range=flush:4\n", `t.fio:2: job "a": sync_file_range: unknown sync_file_range flag "flush"`},
		{"[a]\nsync_file_range=write:0\n", `t.fio:2: job "a": sync_file_range: every 0 writes: want at least 1`},
		{"[a]\nsync_file_range=write:y\n", `t.fio:2: job "a": sync_file_range:`},
		{"[a]\nrw=read\n\nfadvise_hint=normal\n", `t.fio:4: job "a": fadvise_hint: unknown fadvise_hint "normal"`},
		{"[a]\nend_fsync=2\n", `t.fio:2: job "a": end_fsync:`},
		{"[a]\ninvalidate=maybe\n", `t.fio:2: job "a": invalidate:`},
		{"[a]\nwrite_hint=1\n", `t.fio:2: job "a": write_hint: unknown write_hint "1"`},
		{"[a]\nnonvectored=2\n", `t.fio:2: job "a": nonvectored: "2" is not -1, 0 or 1`},
		{"[a]\noffset_increment=-4k\n", `t.fio:2: job "a": offset_increment:`},
		{"[a]\noffset_align=z\n", `t.fio:2: job "a": offset_align:`},
		{"[a]\npercentage_random=101\n", `t.fio:2: job "a": percentage_random:`},
		{"[a]\nsize=1m\nrw=randrw\nfile_append=1\n", `t.fio:4: job "a": file_append: with rw=randrw is not supported by stortest`},
		{"[a]\nfilename=/x\nrw=write\nfile_append=1\n", `t.fio:4: job "a": file_append: needs size`},
	} {
		_, err := parseFile(strings.NewReader(tc.in), "t.fio")
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want, tc.in)
			assert.ErrorIs(t, err, workload.ErrInvalid, tc.in)
		}
	}
}

// The options fio 3.33 has and stortest does not implement stay refused.
func TestFileOptionsStillRefused(t *testing.T) {
	for _, line := range []string{"unlink_each_loop=1", "uncached=1",
		"nonvectored=0", "offset_increment=10%"} {
		_, err := parseFile(strings.NewReader("[a]\n"+line+"\n"), "t.fio")
		assert.ErrorIs(t, err, workload.ErrUnsupported, line)
	}
}

// syncJob is a 64-write psync job of 4 KiB blocks on a file of its own.
func syncJob(t *testing.T, rw workload.RW) workload.Job {
	return workload.Job{Name: "s", Filename: filepath.Join(t.TempDir(), "f"), Engine: "psync", RW: rw, BlockSize: 4096, Size: 256 << 10}
}

// The sync kinds are picked as fio 3.33 picks them; the counts are what
// fio prints for the same jobs (TestFileOptionsAgainstFio runs them).
func TestSyncKinds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		set        func(*workload.Job)
		fsyncs, n  uint64 // sync total_ios, lat_ns N
		sfrFlagsOK bool
	}{
		{name: "fdatasync=4", set: func(j *workload.Job) { j.FdatasyncEvery = 4 }, fsyncs: 0, n: 15},
		{name: "fsync=4,fdatasync=2", set: func(j *workload.Job) { j.FsyncEvery, j.FdatasyncEvery = 4, 2 }, fsyncs: 15, n: 31},
		{name: "sync_file_range=write:4", set: func(j *workload.Job) {
			j.SyncFileRange = workload.SyncFileRange{Flags: unix.SYNC_FILE_RANGE_WRITE, Every: 4}
		}, n: 15},
		{name: "sync_file_range=write", set: func(j *workload.Job) {
			j.SyncFileRange = workload.SyncFileRange{Flags: unix.SYNC_FILE_RANGE_WRITE, Every: 1}
		}, n: 63},
		{name: "fsync=3,end_fsync", set: func(j *workload.Job) { j.FsyncEvery, j.EndFsync = 3, true }, fsyncs: 21, n: 21},
		{name: "end_fsync", set: func(j *workload.Job) { j.EndFsync = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := syncJob(t, workload.Write)
			tc.set(&job)
			r := runJob(t, job, workload.Options{})
			require.NoError(t, r.Err)
			assert.Equal(t, uint64(64), r.Dirs[workload.DirWrite].IOs)
			assert.Equal(t, tc.fsyncs, r.Sync.IOs, "fsyncs (total_ios)")
			assert.Equal(t, tc.n, r.Sync.Lat.Count(), "syncs of every kind (lat_ns N)")
		})
	}
	// A mixed job: a sync is due before any I/O once the writes are a
	// multiple of N, reads too, unless the last operation was a sync. With
	// fsync=1 every I/O after the first write follows a sync, so there
	// are more syncs than writes (fio: 60 syncs, 35 writes, 29 reads).
	job := syncJob(t, workload.RandRW)
	job.FsyncEvery = 1
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	w := r.Dirs[workload.DirWrite].IOs
	assert.Greater(t, r.Sync.IOs, w, "a sync before reads as well as writes")
	assert.LessOrEqual(t, r.Sync.IOs, uint64(63))
}

// end_fsync and fsync_on_close fsync the file once through the engine:
// an engine whose fsyncs fail makes the job fail, and one without them
// does not.
func TestEndFsyncIssuesAnFsync(t *testing.T) {
	faults := &engines.Faults{ErrRate: 1, ErrOps: engines.OpsOf(engines.OpFsync), Errno: unix.EIO}
	for _, tc := range []struct {
		name    string
		set     func(*workload.Job)
		rw      workload.RW
		wantErr bool
	}{
		{"none", func(*workload.Job) {}, workload.Write, false},
		{"end_fsync", func(j *workload.Job) { j.EndFsync = true }, workload.Write, true},
		{"fsync_on_close", func(j *workload.Job) { j.FsyncOnClose = true }, workload.Write, true},
		{"read job", func(j *workload.Job) { j.EndFsync = true }, workload.Read, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := syncJob(t, tc.rw)
			tc.set(&job)
			r := runJob(t, job, workload.Options{Faults: faults})
			if tc.wantErr {
				require.Error(t, r.Err)
				assert.Contains(t, r.Err.Error(), "end_fsync")
			} else {
				assert.NoError(t, r.Err)
			}
			assert.Zero(t, r.Sync.Lat.Count(), "not in the sync statistics")
		})
	}
}

// resident counts the pages of path in the page cache.
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(t, err)
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// invalidate drops the job's region from the page cache when the file is
// opened (fio's default); invalidate=0 keeps it; pre_read fills it.
func TestInvalidateAndPreRead(t *testing.T) {
	const size = 1 << 20
	pages := size / os.Getpagesize()
	open := func(t *testing.T, job workload.Job) {
		t.Helper()
		w, err := newWorker(job.Normalized(), 0, 1, latency.FioLayout, workload.Options{})
		require.NoError(t, err)
		w.close()
	}
	job := workload.Job{Name: "c", Filename: fileTarget(t, size).File, Engine: "psync", RW: workload.Read, BlockSize: 4096, Size: size}
	require.NoError(t, readAll(job.Filename))
	require.Equal(t, pages, resident(t, job.Filename), "read, the file is cached")

	keep := job
	keep.NoInvalidate = true
	open(t, keep)
	assert.Equal(t, pages, resident(t, job.Filename), "invalidate=0 keeps the cache")

	open(t, job)
	assert.Zero(t, resident(t, job.Filename), "invalidate (the default) drops it")

	pre := job
	pre.PreRead = true
	pre.Direct = true
	open(t, pre)
	assert.Equal(t, pages, resident(t, job.Filename), "pre_read fills it, with direct=1 too")
}

func readAll(path string) error {
	_, err := os.ReadFile(path)
	return err
}

// create_only lays out the file and does no I/O.
func TestCreateOnly(t *testing.T) {
	job := syncJob(t, workload.RandWrite)
	job.CreateOnly = true
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	st, err := os.Stat(job.Filename)
	require.NoError(t, err)
	assert.Equal(t, int64(256<<10), st.Size())
	assert.Zero(t, r.Dirs[workload.DirWrite].IOs+r.Dirs[workload.DirRead].IOs)
}

// TestFileOptionsAgainstFio runs the same small jobs with fio 3.33 and
// with stortest and compares the I/O and sync counts and the file left
// behind.
func TestFileOptionsAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	for _, opts := range [][]string{
		{"--rw=write", "--fdatasync=4"},
		{"--rw=write", "--fsync=4", "--fdatasync=2"},
		{"--rw=write", "--sync_file_range=write:4"},
		{"--rw=write", "--sync_file_range=wait_before,write,wait_after"},
		{"--rw=write", "--fsync=3", "--end_fsync=1", "--fsync_on_close=1"},
		{"--rw=write", "--fdatasync=4", "--ioengine=libaio", "--iodepth=4"},
		{"--rw=randwrite", "--create_only=1"},
		{"--rw=read", "--pre_read=1", "--invalidate=0", "--fadvise_hint=random", "--create_fsync=0"},
		{"--rw=write", "--offset=8k", "--numjobs=3", "--offset_increment=16k", "--group_reporting"},
		{"--rw=randwrite", "--write_hint=short", "--allrandrepeat=1", "--randrepeat=0"},
		{"--rw=write", "--file_append=1", "--overwrite=1"},
		{"--rw=randread", "--percentage_random=50"},
		{"--rw=randwrite", "--percentage_random=30,0"},
	} {
		t.Run(strings.Join(opts, " "), func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--name=j", "--filename=" + filepath.Join(dir, "f"), "--bs=4k", "--size=256k"}, opts...)
			out, err := exec.Command(fio, append([]string{"--output-format=json"}, args...)...).Output()
			require.NoError(t, err, "fio %v", args)
			var doc struct {
				Jobs []struct {
					Read, Write struct {
						TotalIOs uint64 `json:"total_ios"`
						IOBytes  uint64 `json:"io_bytes"`
					}
					Sync struct {
						TotalIOs uint64 `json:"total_ios"`
						Lat      struct {
							N uint64 `json:"N"`
						} `json:"lat_ns"`
					}
				}
			}
			require.NoError(t, json.Unmarshal(out, &doc))
			require.Len(t, doc.Jobs, 1)
			fst, err := os.Stat(filepath.Join(dir, "f"))
			require.NoError(t, err)
			require.NoError(t, os.Remove(filepath.Join(dir, "f")))

			jobs, err := parseArgs(args)
			require.NoError(t, err)
			res, err := Run(context.Background(), jobs[0], workload.Options{})
			require.NoError(t, err)
			var n uint64
			var r workload.JobResult // the clones summed, as group_reporting does
			for _, c := range res.Jobs {
				require.NoError(t, c.Err)
				for d := range workload.NumDirs {
					r.Dirs[d].IOs += c.Dirs[d].IOs
					r.Dirs[d].Bytes += c.Dirs[d].Bytes
				}
				r.Sync.IOs += c.Sync.IOs
				n += c.Sync.Lat.Count()
			}
			f := doc.Jobs[0]
			assert.Equal(t, f.Write.TotalIOs, r.Dirs[workload.DirWrite].IOs, "write total_ios")
			assert.Equal(t, f.Read.TotalIOs, r.Dirs[workload.DirRead].IOs, "read total_ios")
			assert.Equal(t, f.Write.IOBytes+f.Read.IOBytes, r.Dirs[workload.DirWrite].Bytes+r.Dirs[workload.DirRead].Bytes, "io_bytes")
			assert.Equal(t, f.Sync.TotalIOs, r.Sync.IOs, "sync total_ios")
			assert.Equal(t, f.Sync.Lat.N, n, "sync lat_ns N")
			sst, err := os.Stat(filepath.Join(dir, "f"))
			require.NoError(t, err)
			assert.Equal(t, fst.Size(), sst.Size(), "file size left")
		})
	}
}

// offset_increment moves each clone's region; the file is laid out to the
// last one's end (fio: 106496 bytes for these options).
func TestOffsetIncrement(t *testing.T) {
	job := syncJob(t, workload.Write)
	job.Size, job.Offset, job.NumJobs, job.OffsetIncrement = 64<<10, 8<<10, 3, 16<<10
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	require.Len(t, res.Jobs, 3)
	for _, r := range res.Jobs {
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(16), r.Dirs[workload.DirWrite].IOs)
		assert.Equal(t, int64(8<<10), r.Job.Offset, "the result keeps the job as given")
	}
	st, err := os.Stat(job.Filename)
	require.NoError(t, err)
	assert.Equal(t, int64(8<<10+2*16<<10+64<<10), st.Size())
}

// allrandrepeat seeds repeatably even with randrepeat=0.
func TestAllRandRepeat(t *testing.T) {
	j := workload.Job{RandRepeat: workload.Bool(false)}
	assert.NotEqual(t, iogen.Seed(&j, 0, 1), iogen.Seed(&j, 0, 2), "randrepeat=0 draws from the entropy")
	j.AllRandRepeat = true
	assert.Equal(t, iogen.Seed(&j, 0, 1), iogen.Seed(&j, 0, 2), "allrandrepeat=1 does not")
}

// write_hint sets the inode's hint for buffered I/O; with direct=1 fio
// 3.33 asks for the file's hint, which kernels since 5.17 refuse, and
// the job fails as fio's does.
func TestWriteHint(t *testing.T) {
	job := syncJob(t, workload.Write)
	job.WriteHint = 2 // short
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	f, err := os.Open(job.Filename)
	require.NoError(t, err)
	defer f.Close()
	var hint uint64
	_, _, e := unix.Syscall(unix.SYS_FCNTL, f.Fd(), unix.F_GET_RW_HINT, uintptr(unsafe.Pointer(&hint)))
	require.Zero(t, e)
	assert.Equal(t, uint64(2), hint)

	job.Direct = true
	job.Filename = filepath.Join(t.TempDir(), "d")
	if _, err := Run(context.Background(), job, workload.Options{}); err != nil {
		if errors.Is(err, engines.ErrNoDirectIO) {
			t.Skip("no O_DIRECT here")
		}
		assert.Contains(t, err.Error(), "fcntl write hint")
	} else {
		t.Log("this kernel took F_SET_FILE_RW_HINT")
	}
}

// file_append writes after the file's end: an existing file grows by the
// job's size (fio: 32 KiB then 64 KiB for these jobs), a missing one is
// created and written from 0.
func TestFileAppend(t *testing.T) {
	job := syncJob(t, workload.RandWrite)
	job.Size, job.FileAppend = 32<<10, true
	for _, want := range []int64{32 << 10, 64 << 10} {
		r := runJob(t, job, workload.Options{})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(8), r.Dirs[workload.DirWrite].IOs)
		st, err := os.Stat(job.Filename)
		require.NoError(t, err)
		assert.Equal(t, want, st.Size())
	}
}

func TestPercentageRandomParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [3]int64
	}{
		{"50", [3]int64{50, 50, 50}},
		{"100", [3]int64{}},
		{"0", [3]int64{100, 100, 100}},
		{"10,40", [3]int64{90, 60, 60}},
		{",20", [3]int64{0, 80, 80}},
	} {
		jobs, err := parseFile(strings.NewReader("[a]\nrw=randread\npercentage_random="+tc.in+"\n"), "t.fio")
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, jobs[0].PercentSequential, tc.in)
		assert.Equal(t, tc.want, roundTripJob(t, jobs[0]).PercentSequential, "%s reads back", tc.in)
	}
}

// percentage_random=N: about N% of a random job's I/Os draw a random
// offset, the others follow the last one; 0 is sequential.
func TestPercentageRandom(t *testing.T) {
	follows := func(perc int64) float64 {
		j := workload.Job{Name: "p", RW: workload.RandRead, BlockSize: 4096, Size: 64 << 20}
		j.PercentSequential = [3]int64{100 - perc, 100 - perc, 100 - perc}
		p, err := iogen.NewPattern(&j, 0, 1)
		require.NoError(t, err)
		const n = 4000
		prev, seq := p.Next(), 0
		for range n {
			io := p.Next()
			if io.Offset == prev.Offset+prev.Len {
				seq++
			}
			prev = io
		}
		return float64(seq) / n
	}
	assert.Equal(t, 1.0, follows(0), "percentage_random=0: sequential")
	assert.InDelta(t, 0.75, follows(25), 0.05)
	assert.Less(t, follows(100), 0.01, "the default: random")
}

// fileOpts are a Job's options about syncs and its file around the I/O.
type fileOpts struct {
	workload.Syncs
	CreateOnly bool
	workload.PageCache
	OffsetIncrement   int64
	AllRandRepeat     bool
	WriteHint         int
	FileAppend        bool
	PercentSequential [3]int64
}

func fileOptsOf(j workload.Job) fileOpts {
	return fileOpts{j.Syncs, j.CreateOnly, j.PageCache, j.OffsetIncrement, j.AllRandRepeat, j.WriteHint, j.FileAppend, j.PercentSequential}
}

// overwrite=0 sizes a write job's new file rather than writing it first,
// and allow_file_create=0 runs on a file that exists and refuses one that
// does not, as fio 3.33 does: the same I/Os and the same files.
func TestOverwriteAndFileCreateMatchFio(t *testing.T) {
	fio, ours := runBoth(t, "ow.fio", `[global]
size=256k
[fresh]
rw=write
overwrite=0
filename=new
[held]
rw=randwrite
allow_file_create=0
filename=old
`, map[string]string{"old": strings.Repeat("o", 256<<10)})
	want := []ranJob{
		{Name: "fresh", IOs: [workload.NumDirs]uint64{0, 64, 0}, Bytes: [workload.NumDirs]uint64{0, 256 << 10, 0}},
		{Name: "held", IOs: [workload.NumDirs]uint64{0, 64, 0}, Bytes: [workload.NumDirs]uint64{0, 256 << 10, 0}},
	}
	assert.Equal(t, want, fio.Jobs, "fio")
	assert.Equal(t, fio.Jobs, ours.Jobs, "stortest")
	assert.Equal(t, fio.Files, ours.Files, "files")

	dir := t.TempDir()
	jobs, err := parseFile(strings.NewReader("[a]\nsize=64k\nrw=write\nallow_file_create=0\nfilename="+filepath.Join(dir, "none")+"\n"), "t.fio")
	require.NoError(t, err)
	_, err = Run(context.Background(), jobs[0], workload.Options{})
	if err == nil || !strings.Contains(err.Error(), "file creation disallowed by allow_file_create=0") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file was made: %v", err)
	}
	out, err := exec.Command(fioBinary(t), "--name=a", "--size=64k", "--rw=write", "--allow_file_create=0", "--filename="+filepath.Join(dir, "none")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "file creation disallowed by allow_file_create=0") {
		t.Errorf("fio: %v %s", err, out)
	}
}

// sync=1 (sync) and sync=dsync open the job's file O_SYNC and O_DSYNC
// (the flags /proc shows for its descriptor while it runs), sync=0 and
// none neither; the I/Os are fio 3.33's.
func TestSyncOpenFlagsMatchFio(t *testing.T) {
	for _, tc := range []struct {
		v    string
		flag int
	}{{"1", unix.O_SYNC}, {"dsync", unix.O_DSYNC}, {"0", 0}, {"none", 0}} {
		t.Run(tc.v, func(t *testing.T) {
			job := "[s]\nrw=randwrite\nsize=64k\nfilename=f\nsync=" + tc.v + "\n"
			fio, ours := runBoth(t, "s.fio", job, nil)
			assert.Equal(t, []ranJob{{Name: "s", IOs: [workload.NumDirs]uint64{0, 16, 0}, Bytes: [workload.NumDirs]uint64{0, 64 << 10, 0}}}, fio.Jobs)
			assert.Equal(t, fio.Jobs, ours.Jobs)

			jobs, err := parseFile(strings.NewReader(job), "s.fio")
			require.NoError(t, err)
			jobs[0].Filename = filepath.Join(t.TempDir(), "f")
			flags := -1
			_, err = Run(context.Background(), jobs[0], workload.Options{OnStart: func(*workload.JobResult, int) { flags = openFlags(t, jobs[0].Filename) }})
			require.NoError(t, err)
			assert.Equal(t, tc.flag, flags&(unix.O_SYNC|unix.O_DSYNC), "flags %o", flags)
		})
	}
	if _, err := parseFile(strings.NewReader("[s]\nsync=2\n"), "s.fio"); !errors.Is(err, workload.ErrInvalid) {
		t.Errorf("sync=2: %v", err)
	}
}

// openFlags returns the open flags of this process's descriptor of path,
// from /proc/self/fdinfo.
func openFlags(t *testing.T, path string) int {
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || l != path {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
				require.NoError(t, err)
				return int(n)
			}
		}
	}
	t.Fatalf("no descriptor of %s", path)
	return 0
}
