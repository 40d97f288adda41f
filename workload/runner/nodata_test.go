package runner

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

// noDataEngines are the engines that move no data (NoDataEngines).
var noDataEngines = []string{"falloc", "ftruncate", "cpuio", "filecreate", "filestat", "filedelete", "exec"}

// TestFioEnginesParse reads the options of fio's examples for these
// engines (examples/cpuio.fio, filestat-ioengine.fio,
// filecreate-ioengine.fio, filedelete-ioengine.fio), and each job prints
// as a section that reads back the same.
func TestFioEnginesParse(t *testing.T) {
	in := `[global]
time_based
runtime=15
[burn]
ioengine=cpuio
cpuload=50
numjobs=2
cpumode=qsort
cpuchunks=20000
[stat]
ioengine=filestat
filesize=4k
nrfiles=200
stat_type=statx
thread
[create]
create_on_open=1
nrfiles=31250
ioengine=filecreate
fallocate=none
filesize=4k
openfiles=1
[delete]
ioengine=filedelete
filesize=4k
nr_files=200
unlink=0
[trunc]
ioengine=ftruncate
size=102404k
direct=1
unlink=1
`
	jobs, err := parseFile(strings.NewReader(in), "t.fio")
	require.NoError(t, err)
	require.Len(t, jobs, 5)
	burn, stat, create, del, trunc := jobs[0], jobs[1], jobs[2], jobs[3], jobs[4]
	assert.Equal(t, workload.NoDataEngines{CPULoad: 50, CPUChunks: 20 * time.Millisecond, CPUMode: "qsort"}, burn.NoDataEngines)
	assert.True(t, burn.TimeBased)
	assert.Equal(t, workload.NoDataEngines{NrFiles: 200, StatType: "statx"}, stat.NoDataEngines)
	assert.Equal(t, int64(200*4096), stat.Size, "size: filesize times nrfiles")
	assert.Equal(t, workload.NoDataEngines{NrFiles: 31250, CreateOnOpen: true}, create.NoDataEngines)
	assert.Equal(t, int64(31250*4096), create.Size)
	assert.Equal(t, 200, del.NrFiles)
	assert.True(t, trunc.Unlink)
	for _, j := range jobs {
		back := roundTripJob(t, j)
		assert.Equal(t, fiojob.Format(j), fiojob.Format(back))
		assert.Equal(t, j.NoDataEngines, back.NoDataEngines, j.Name)
	}

	// cpuio is time-based whatever time_based says, as fio's.
	jobs, err = parseFile(strings.NewReader("[c]\nioengine=cpuio\ncpuload=10\nruntime=3\n"), "t.fio")
	require.NoError(t, err)
	assert.True(t, jobs[0].TimeBased)
}

func TestFioEnginesErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want    string
		unsupported bool
	}{
		{"[a]\nioengine=cpuio\ncpuload=10\nruntime=1\nnrfiles=2\n", `t.fio:5: job "a": nrfiles: nrfiles=2 with ioengine=cpuio (several files per job with ioengine`, true},
		{"[a]\nioengine=cpuio\nruntime=1\n", `t.fio:1: job "a": cpuload: ioengine=cpuio needs cpuload, a percentage from 1 to 100 (got 0)`, false},
		{"[a]\nioengine=cpuio\ncpuload=20\n", `runtime: ioengine=cpuio runs for its runtime: give one`, false},
		{"[a]\nioengine=cpuio\ncpuload=101\n", `cpuload: invalid number "101": larger than 100`, false},
		{"[a]\nioengine=cpuio\ncpuload=1\nruntime=1\ncpumode=spin\n", `cpumode: unknown mode "spin" (want noop or qsort)`, false},
		{"[a]\ncpuload=50\n", `cpuload: ioengine=psync does not take it (only cpuio)`, false},
		{"[a]\nioengine=filecreate\nstat_type=lstat\nfilesize=4k\n", `stat_type: ioengine=filecreate does not take it (only filestat)`, false},
		{"[a]\nioengine=filestat\nstat_type=fstat\nfilesize=4k\n", `stat_type: unknown "fstat" (want stat, lstat or statx)`, false},
		{"[a]\nioengine=filestat\nnrfiles=3\n", `filesize: ioengine=filestat needs filesize (or size)`, false},
		{"[a]\nioengine=filestat\nrw=randread\nfilesize=4k\n", `rw=randread with ioengine=filestat (read, write or rw: each file's call is on its first block) is not supported by stortest`, true},
		{"[a]\nioengine=filedelete\nfilesize=6k\n", `filesize: 6k per file is not a multiple of the block size 4k`, false},
		{"[a]\nioengine=filedelete\nsize=4k\nnrfiles=2\n", `filesize: 0 per file is less than the block size 4k`, false},
		{"[a]\nioengine=filestat\nfilename=x\nnrfiles=2\nfilesize=4k\n", `filename with nrfiles above 1`, true},
		{"[a]\nioengine=filestat\nfilesize=4k\noffset=4k\n", `offset with ioengine=filestat is not supported by stortest`, true},
		{"[a]\nfallocate=sometimes\n", `unknown fallocate "sometimes"`, false},
	} {
		_, err := parseFile(strings.NewReader(tc.in), "t.fio")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
			continue
		}
		if errors.Is(err, workload.ErrUnsupported) != tc.unsupported {
			t.Errorf("%q: %v: ErrUnsupported %v, want %v", tc.in, err, !tc.unsupported, tc.unsupported)
		}
	}
}

// TestRunFileEngines lays out, stats and deletes a job's files, and
// creates them again: each file's call is one clat sample, no lat is
// recorded, and every block counts, as in fio's output for these engines.
func TestRunFileEngines(t *testing.T) {
	dir := t.TempDir()
	job := workload.Job{Name: "f", RW: workload.Read, BlockSize: 4096, Placement: workload.Placement{Directory: dir, FileSize: 8192},
		NoDataEngines: workload.NoDataEngines{NrFiles: 5}}
	job.Size = 5 * 8192
	names := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "f.0.*"))
		return m
	}
	check := func(engine string) *workload.JobResult {
		t.Helper()
		job.Engine = engine
		r := runJob(t, job, workload.Options{})
		require.NoError(t, r.Err, engine)
		s := r.Dirs[workload.DirRead]
		assert.Equal(t, uint64(10), s.IOs, engine)
		assert.Equal(t, uint64(5*8192), s.Bytes, engine)
		assert.Equal(t, uint64(5), s.Clat.Count(), "%s: one clat sample per file", engine)
		assert.Equal(t, uint64(0), s.Lat.Count(), engine)
		assert.Positive(t, s.Clat.Min(), engine)
		return r
	}

	check("filestat") // lays the files out first
	require.Len(t, names(), 5)
	for _, p := range names() {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Len(t, data, 8192, p)
		assert.False(t, bytes.Equal(data, make([]byte, 8192)), "%s: laid out with data", p)
	}
	job.StatType = "lstat"
	check("filestat")
	job.StatType = ""
	check("filedelete")
	assert.Empty(t, names(), "filedelete left files")

	job.CreateOnOpen = true
	check("filecreate")
	require.Len(t, names(), 5)
	for _, p := range names() {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, int64(0), st.Size(), "filecreate makes empty files, as fio's")
	}

	// The files are gone: the first stat fails and explains itself.
	job.Unlink = true
	check("filestat") // unlink=1: removed after the job
	assert.Empty(t, names())
	job.Engine, job.Unlink = "filestat", false
	res, err := Run(t.Context(), job, workload.Options{})
	require.NoError(t, err)
	require.Error(t, res.Jobs[0].Err)
	assert.Contains(t, res.Jobs[0].Err.Error(), "stat "+filepath.Join(dir, "f.0.0"))
	assert.Equal(t, uint64(1), res.Jobs[0].Dirs[workload.DirRead].Errors)
}

// TestRunCPUIO: a cpuio job burns cpuload percent of a CPU in units of
// cpuchunks, counted as reads of no bytes whose latency is the chunk;
// fio's JSON shows them with runtime 0, iops 0 and no bw samples.
func TestRunCPUIO(t *testing.T) {
	job := workload.Job{Name: "c", Engine: "cpuio", Runtime: 1200 * time.Millisecond,
		NoDataEngines: workload.NoDataEngines{CPULoad: 40, CPUChunks: 20 * time.Millisecond}}
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	s := r.Dirs[workload.DirRead]
	// Units start every 50 ms: 20 ms busy, 30 ms idle.
	assert.InDelta(t, 24, float64(s.IOs), 3, "units in 1.2 s")
	assert.Equal(t, uint64(0), s.Bytes)
	assert.Equal(t, s.IOs, s.Clat.Count())
	assert.GreaterOrEqual(t, s.Clat.Min(), uint64(20*time.Millisecond))
	assert.Less(t, s.Clat.Mean(), float64(30*time.Millisecond))
	busy := float64(r.UsrCPU+r.SysCPU) / float64(r.Runtime)
	assert.InDelta(t, 0.4, busy, 0.15, "CPU share of the runtime")

	var out bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&out, &workload.Result{Jobs: []*workload.JobResult{r}}, fioout.FormatJSON, time.Now()))
	for _, s := range []string{`"io_bytes": 0,`, `"iops": 0.000000,`, `"runtime": 0,`, `"bw_samples": 0,`, "\"iops_samples\": 1\n"} {
		assert.Contains(t, out.String(), s)
	}
}

// TestRunFallocFtruncate: falloc allocates and punches the job's file,
// ftruncate sets its size to each write's offset.
func TestRunFallocFtruncate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	r := runJob(t, workload.Job{Name: "a", Filename: path, Engine: "falloc", RW: workload.Write, BlockSize: 64 << 10, Size: 1 << 20}, workload.Options{})
	require.NoError(t, r.Err)
	assert.Equal(t, uint64(16), r.Dirs[workload.DirWrite].IOs)
	assert.Equal(t, uint64(1<<20), r.Dirs[workload.DirWrite].Bytes)
	var st unix.Stat_t
	require.NoError(t, unix.Stat(path, &st))
	before := st.Blocks
	r = runJob(t, workload.Job{Name: "p", Filename: path, Engine: "falloc", RW: workload.Trim, BlockSize: 64 << 10, Size: 512 << 10}, workload.Options{})
	require.NoError(t, r.Err)
	require.NoError(t, unix.Stat(path, &st))
	assert.Equal(t, int64(1<<20), st.Size)
	assert.LessOrEqual(t, st.Blocks, before-1024, "trim punched 512k of holes")

	r = runJob(t, workload.Job{Name: "t", Filename: path, Engine: "ftruncate", RW: workload.Write, BlockSize: 4096, Size: 64 << 10}, workload.Options{})
	require.NoError(t, r.Err)
	assert.Equal(t, uint64(16), r.Dirs[workload.DirWrite].IOs)
	assert.Equal(t, r.Dirs[workload.DirWrite].IOs, r.Dirs[workload.DirWrite].Lat.Count())
	require.NoError(t, unix.Stat(path, &st))
	assert.Equal(t, int64(60<<10), st.Size, "the last write's offset")
}

// TestRunExec runs a program for the job's runtime with fio's %n and %r
// in its arguments, stops it at the job's end, and runs a job whose
// program does not start as fio does.
func TestRunExec(t *testing.T) {
	dir := t.TempDir()
	jobs, err := parseFile(strings.NewReader("[global]\nioengine=exec\ndirectory="+dir+`
[echo]
runtime=400ms
program=/bin/echo
arguments=%n ran  %r s
[sleep]
runtime=1
program=/bin/sleep
arguments=30
grace_time=0
std_redirect=0
[missing]
runtime=1
program=`+dir+"/missing\n"), "t.fio")
	require.NoError(t, err)
	assert.True(t, jobs[0].TimeBased)
	grace := time.Duration(0)
	assert.Equal(t, workload.NoDataEngines{ExecProgram: "/bin/sleep", ExecArguments: "30", ExecGrace: &grace, ExecNoRedirect: true}, jobs[1].NoDataEngines)

	r := runJob(t, jobs[0], workload.Options{})
	require.NoError(t, r.Err)
	s := r.Dirs[workload.DirRead]
	assert.InDelta(t, 4, float64(s.IOs), 1, "50 ms units, 50 ms apart, in 400 ms")
	assert.Equal(t, uint64(0), s.Bytes)
	assert.GreaterOrEqual(t, s.Clat.Min(), uint64(execPollFloor))
	out, err := os.ReadFile(filepath.Join(dir, "echo.stdout"))
	require.NoError(t, err)
	assert.Equal(t, "echo ran 0 s\n", string(out))
	_, err = os.Stat(filepath.Join(dir, "echo.stderr"))
	assert.NoError(t, err)

	t0 := time.Now()
	r = runJob(t, jobs[1], workload.Options{})
	require.NoError(t, r.Err)
	assert.Less(t, time.Since(t0), 10*time.Second, "sleep 30 is stopped at the job's end")

	// A program that cannot start: the job runs its runtime, as fio
	// 3.33's does (examples/exec.fio without turbostat), and the error is
	// in the job's stderr file, where fio's child writes it.
	r = runJob(t, jobs[2], workload.Options{})
	require.NoError(t, r.Err)
	assert.GreaterOrEqual(t, r.Runtime, 900*time.Millisecond)
	b, err := os.ReadFile(filepath.Join(dir, "missing.stderr"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "exec: start "+dir+"/missing")
}

// execPollFloor is less than the exec engine's 50 ms wait per unit.
const execPollFloor = 40 * time.Millisecond
