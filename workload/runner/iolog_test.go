package runner

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"stortest.dev/fio"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// stripIOLogTimes drops the timestamps of a version 3 log's lines (the
// version line is kept whole): what is left must match fio's byte for
// byte.
func stripIOLogTimes(b []byte) string {
	var out strings.Builder
	for i, line := range bytes.SplitAfter(b, []byte("\n")) {
		if i > 0 {
			if k := bytes.IndexByte(line, ' '); k >= 0 {
				line = line[k+1:]
			}
		}
		out.Write(line)
	}
	return out.String()
}

// runArgs runs the job of fio's command line args in the working
// directory; it stops the test on an error.
func runArgs(t *testing.T, args ...string) *workload.Result {
	t.Helper()
	jobs, err := parseArgs(args)
	require.NoError(t, err)
	res, err := RunJobs(t.Context(), jobs, workload.Options{})
	require.NoError(t, err)
	return res
}

// TestWriteIOLogAsFio: the logs stortest writes are fio 3.33's, line for
// line but for the timestamps, for the jobs that made the logs under
// testdata/iolog (fio 3.33, psync, file f): sequential writes, fsync
// every 2 writes (the sync line carries the last offset), two loops (a
// close and an open between them), verify (a close and an open before
// each read-back), and t0007's rw=read:512k.
func TestWriteIOLogAsFio(t *testing.T) {
	for _, tc := range []struct{ log, args string }{
		{"write.log", "--rw=write --bs=4k --size=32k"},
		{"fsync.log", "--rw=write --bs=8k --size=32k --fsync=2"},
		{"loops.log", "--rw=read --bs=8k --size=32k --loops=2"},
		{"verify.log", "--rw=write --bs=4k --size=32k --loops=2 --verify=crc32c"},
		{"stride.log", "--rw=read:512k --bs=1m --size=8m"},
	} {
		t.Run(tc.log, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata/iolog", tc.log))
			require.NoError(t, err)
			t.Chdir(t.TempDir())
			args := append([]string{"--name=j", "--filename=f", "--write_iolog=got.log"}, strings.Fields(tc.args)...)
			runArgs(t, args...)
			got, err := os.ReadFile("got.log")
			require.NoError(t, err)
			assert.Equal(t, stripIOLogTimes(want), stripIOLogTimes(got))
			// The timestamps are µs since the start, never decreasing.
			log, err := fio.ReadIOLog(bytes.NewReader(got), "got.log")
			require.NoError(t, err)
			assert.Equal(t, 3, log.Version)
			for i := 1; i < len(log.Entries); i++ {
				assert.LessOrEqual(t, log.Entries[i-1].Time, log.Entries[i].Time, "line %d", i+2)
			}
		})
	}
}

// A second run appends a second log to the file, as fio opens it for
// appending.
func TestWriteIOLogAppends(t *testing.T) {
	t.Chdir(t.TempDir())
	for range 2 {
		runArgs(t, "--name=j", "--filename=f", "--rw=write", "--bs=4k", "--size=8k", "--write_iolog=a.log")
	}
	b, err := os.ReadFile("a.log")
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), fio.IOLogV3+"\n"))
}

// Logging an I/O allocates nothing: it is formatted into the writer's
// buffer.
func TestIOLogWriterAllocs(t *testing.T) {
	l, err := fio.NewIOLogWriter(filepath.Join(t.TempDir(), "a.log"), []string{"/dev/somewhere"}, 0)
	require.NoError(t, err)
	now := int64(0)
	a := testing.AllocsPerRun(10000, func() {
		now += 1000
		l.IO(now, workload.LogWrite, now*4096, 4096)
		if now%7 == 0 {
			l.IO(now, workload.LogSync, 0, 0)
		}
	})
	assert.Zero(t, a)
	require.NoError(t, l.Close(now))
}

// TestReadIOLog parses both versions; TestReadIOLogErrors the errors,
// which name the file and the line.
func TestReadIOLog(t *testing.T) {
	v2 := "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 4096 512\n/dev/x wait 150 0\n\n/dev/x write 0 8192\n/dev/x sync 0 0\n/dev/x trim 8192 4096\n/dev/x close\n"
	log, err := fio.ReadIOLog(strings.NewReader(v2), "v2")
	require.NoError(t, err)
	assert.Equal(t, &fio.IOLog{Version: 2, Files: []string{"/dev/x"}, Entries: []fio.IOLogEntry{
		{Act: workload.LogAdd}, {Act: workload.LogOpen}, {Act: workload.LogRead, Offset: 4096, Len: 512}, {Act: workload.LogWait, Offset: 150},
		{Act: workload.LogWrite, Len: 8192}, {Act: workload.LogSync}, {Act: workload.LogTrim, Offset: 8192, Len: 4096}, {Act: workload.LogClose},
	}}, log)
	v3 := "fio version 3 iolog\n1 a add\n2 b add\n5 b open\n9 b read 0 4096\n10 b wait 100 0\n12 b datasync 4096 0\n"
	log, err = fio.ReadIOLog(strings.NewReader(v3), "v3")
	require.NoError(t, err)
	assert.Equal(t, &fio.IOLog{Version: 3, Files: []string{"a", "b"}, Entries: []fio.IOLogEntry{
		{Time: 1, Act: workload.LogAdd}, {Time: 2, File: 1, Act: workload.LogAdd}, {Time: 5, File: 1, Act: workload.LogOpen},
		{Time: 9, File: 1, Act: workload.LogRead, Len: 4096}, {Time: 12, File: 1, Act: workload.LogDatasync, Offset: 4096},
	}}, log, "a version 3 wait is skipped, as fio does")
	for _, f := range []string{"write.log", "randrw.log", "verify.log"} {
		log, err := fio.LoadIOLog(filepath.Join("testdata/iolog", f))
		require.NoError(t, err, "fio's own log %s", f)
		assert.Equal(t, []string{"f"}, log.Files)
	}
}

func TestReadIOLogErrors(t *testing.T) {
	le := make([]byte, 64)
	binary.LittleEndian.PutUint32(le, 0x65617407)
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "workload: iolog t.log line 1: empty file"},
		{"v1", "0, 4096, 512\n", "line 1: version line"},
		{"blktrace", string(le), "t.log: a blktrace binary file"},
		{"fields", "fio version 2 iolog\nf add\nf read 1\n", "line 3: 3 fields"},
		{"action", "fio version 2 iolog\nf add\nf poke 1 2\n", `line 3: action "poke"`},
		{"not added", "fio version 2 iolog\nf add\ng read 0 1\n", `line 3: file "g" was not added`},
		{"twice", "fio version 2 iolog\nf add\nf add\n", "line 3: file \"f\" added twice"},
		{"offset", "fio version 2 iolog\nf add\nf read -1 1\n", `line 3: offset "-1"`},
		{"length", "fio version 2 iolog\nf add\nf read 0 x\n", `line 3: length "x"`},
		{"zero", "fio version 2 iolog\nf add\nf write 0 0\n", "line 3: length 0 for a write"},
		{"huge", "fio version 2 iolog\nf add\nf write 0 2000000000\n", "line 3: length 2000000000"},
		{"overflow", "fio version 2 iolog\nf add\nf write 9223372036854775807 1\n", "overflows"},
		{"open args", "fio version 2 iolog\nf add\nf open 1 2\n", "line 3: action open takes no offset"},
		{"time", "fio version 3 iolog\nx f add\n", `line 2: timestamp "x"`},
		{"v3 fields", "fio version 3 iolog\n1 f add\n2 f read 0\n", "line 3: 4 fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fio.ReadIOLog(strings.NewReader(tc.in), "t.log")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "workload: iolog t.log"), err.Error())
		})
	}
	_, err := fio.ReadIOLog(bytes.NewReader(le), "b")
	assert.ErrorIs(t, err, fio.ErrBlktrace)
}

func FuzzReadIOLog(f *testing.F) {
	files, _ := filepath.Glob("testdata/iolog/*.log")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("fio version 2 iolog\nf add\nf open\nf wait 1000 0\nf read 0 1\nf close\n"))
	f.Add([]byte("fio version 3 iolog\n0 f add\n1 f trim 0 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		log, err := fio.ReadIOLog(bytes.NewReader(b), "fuzz.log")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "workload: iolog fuzz.log") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, e := range log.Entries {
			if e.File < 0 || e.File >= len(log.Files) || e.Offset < 0 || e.Len < 0 || e.Len > fio.MaxIOLogLen {
				t.Fatalf("bad entry %+v", e)
			}
		}
		j := workload.Job{Name: "fuzz", IOLogs: workload.IOLogs{ReadIOLog: "fuzz.log", ReplayScale: 3, ReplayAlign: 512}}
		if tr, err := buildReplay(&j, log); err == nil {
			for _, r := range tr.ios {
				if !r.sync && (r.io.Offset < 0 || r.io.Offset+r.io.Len > tr.end || r.io.Len > tr.maxLen) {
					t.Fatalf("replayed I/O %+v outside the trace's end %d", r, tr.end)
				}
			}
		}
	})
}

// TestReplayOptions: replay_scale divides the offsets, replay_align
// rounds them down, replay_skip drops actions, replay_no_stall and
// replay_time_scale set the times; the job takes rw, bs, size and file
// from the log.
func TestReplayOptions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.log")
	require.NoError(t, os.WriteFile(path, []byte("fio version 3 iolog\n0 /x add\n0 /x open\n"+
		"1000 /x read 10000 4096\n3000 /x write 20000 8192\n5000 /x sync 0 0\n7000 /x trim 40960 4096\n8000 /x close\n"), 0o644))
	jobs, err := parseArgs([]string{"--name=r", "--read_iolog=" + path, "--replay_scale=2", "--replay_align=4k",
		"--replay_skip=trim", "--replay_time_scale=200", "--write_iolog=ignored"})
	require.NoError(t, err)
	j := jobs[0]
	roundTrip(t, j)
	j, tr, err := withReplay(j.Normalized())
	require.NoError(t, err)
	assert.Equal(t, []replayIO{
		{at: 500_000, io: iogen.IO{Dir: workload.DirRead, Offset: 4096, Len: 4096}},
		{at: 1_500_000, io: iogen.IO{Dir: workload.DirWrite, Offset: 8192, Len: 8192}},
		{at: 2_500_000, sync: true},
	}, tr.ios)
	assert.Equal(t, "/x", j.Filename)
	assert.Equal(t, workload.ReadWrite, j.RW)
	assert.Equal(t, int64(8192), j.BlockSize)
	assert.Equal(t, int64(16384), j.Size)
	assert.Empty(t, j.WriteIOLog, "read_iolog overrides write_iolog, as in fio")

	j = workload.Job{Name: "r", IOLogs: workload.IOLogs{ReadIOLog: path, ReplayNoStall: true, ReplaySkip: 1<<workload.LogWrite | 1<<workload.LogSync, ReplayRedirect: "/y"}}
	j, tr, err = withReplay(j)
	require.NoError(t, err)
	assert.Equal(t, []replayIO{
		{io: iogen.IO{Dir: workload.DirRead, Offset: 10000, Len: 4096}},
		{io: iogen.IO{Dir: workload.DirTrim, Offset: 40960, Len: 4096}},
	}, tr.ios)
	assert.Equal(t, "/y", j.Filename)

	for _, args := range [][]string{
		{"--replay_align=3000"}, {"--replay_skip=reads"}, {"--read_iolog=-"}, {"--read_iolog=a:b"},
	} {
		_, err := parseArgs(append([]string{"--name=r", "--filename=f"}, args...))
		assert.Error(t, err, "%v", args)
	}
}

// A version 3 log is replayed at its pace (300 ms here), faster with
// replay_time_scale, at once with replay_no_stall; a version 2 log's
// waits hold the replay as long.
func TestReplayTiming(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("f", make([]byte, 64<<10), 0o644))
	require.NoError(t, os.WriteFile("v3.log", []byte("fio version 3 iolog\n0 f add\n0 f open\n"+
		"0 f read 0 4096\n150000 f read 4096 4096\n300000 f write 8192 4096\n300001 f close\n"), 0o644))
	require.NoError(t, os.WriteFile("v2.log", []byte("fio version 2 iolog\nf add\nf open\n"+
		"f read 0 4096\nf wait 300000 0\nf write 8192 4096\nf wait 50 0\nf close\n"), 0o644))
	took := func(args ...string) time.Duration {
		t0 := time.Now()
		res := runArgs(t, append([]string{"--name=r"}, args...)...)
		jr := res.Jobs[0]
		assert.Equal(t, uint64(1), jr.Dirs[workload.DirWrite].IOs, "%v", args)
		return time.Since(t0)
	}
	// Generous margins: the machine is shared.
	assert.GreaterOrEqual(t, took("--read_iolog=v3.log"), 290*time.Millisecond)
	assert.GreaterOrEqual(t, took("--read_iolog=v2.log"), 290*time.Millisecond)
	fast := took("--read_iolog=v3.log", "--replay_time_scale=400")
	assert.GreaterOrEqual(t, fast, 70*time.Millisecond)
	assert.Less(t, fast, 290*time.Millisecond)
	assert.Less(t, took("--read_iolog=v3.log", "--replay_no_stall=1"), 250*time.Millisecond)
}

// fioJSONCounts are the I/O counts and bytes of the first job of a fio
// JSON output: reads, read bytes, writes, written bytes.
func fioJSONCounts(t *testing.T, b []byte) [4]int64 {
	t.Helper()
	type dir struct {
		TotalIOs int64 `json:"total_ios"`
		IOBytes  int64 `json:"io_bytes"`
	}
	var out struct {
		Jobs []struct{ Read, Write dir } `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	require.NotEmpty(t, out.Jobs)
	j := out.Jobs[0]
	return [4]int64{j.Read.TotalIOs, j.Read.IOBytes, j.Write.TotalIOs, j.Write.IOBytes}
}

func resultCounts(jr *workload.JobResult) [4]int64 {
	r, w := jr.Dirs[workload.DirRead], jr.Dirs[workload.DirWrite]
	return [4]int64{int64(r.IOs), int64(r.Bytes), int64(w.IOs), int64(w.Bytes)}
}

// TestIOLogRoundTripFio: fio replays a log stortest wrote with the same
// I/O as stortest's own replay and as the run that wrote it; stortest
// replays a log fio wrote (testdata/iolog/randrw.log: a randrw job of
// 256 KiB) as fio 3.33 replays it: 29 reads (118784 bytes) and 35 writes
// (143360 bytes), which is also what the installed fio does.
func TestIOLogRoundTripFio(t *testing.T) {
	want := [4]int64{29, 118784, 35, 143360}
	in, err := filepath.Abs("testdata/iolog/randrw.log")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("f", make([]byte, 256<<10), 0o644))
	res := runArgs(t, "--name=r", "--read_iolog="+in)
	assert.Equal(t, want, resultCounts(res.Jobs[0]), "stortest's replay of fio's log")

	orig := runArgs(t, "--name=w", "--filename=f", "--rw=randrw", "--bs=4k", "--size=256k", "--fsync=8", "--write_iolog=st.log")
	mine := runArgs(t, "--name=r", "--read_iolog=st.log")
	assert.Equal(t, resultCounts(orig.Jobs[0]), resultCounts(mine.Jobs[0]), "stortest's replay of its own log")
	assert.Equal(t, orig.Jobs[0].Sync.IOs, mine.Jobs[0].Sync.IOs, "fsyncs replayed")

	fio, err := testenv.FioPath()
	if err != nil {
		t.Skip("fio is not installed: the replays by fio are not compared")
	}
	out, err := exec.Command(fio, "--name=r", "--read_iolog="+in, "--output-format=json").Output()
	require.NoError(t, err)
	assert.Equal(t, want, fioJSONCounts(t, out), "fio's replay of its own log")
	out, err = exec.Command(fio, "--name=r", "--read_iolog=st.log", "--output-format=json").Output()
	require.NoError(t, err)
	assert.Equal(t, resultCounts(orig.Jobs[0]), fioJSONCounts(t, out), "fio's replay of stortest's log")
}

// A job's run with write_iolog allocates nothing per I/O; a null job's
// log names fio's default file, as fio's does.
func TestWriteIOLogAllocationsPerIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.log")
	job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 64 << 20,
		IODepth: 4, IOLogs: workload.IOLogs{WriteIOLog: path}}
	assert.Less(t, allocsPerIO(t, job, 16384, 9), 0.001)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(stripIOLogTimes(b), fio.IOLogV3+"\nnull.0.0 add\nnull.0.0 open\nnull.0.0 "), "%.200s", b)
}

// fio's t/jobs/t0007-37cf9e3c.fio (without direct=1, which a tmpfs
// refuses) reads 87040 KiB, as run-fio-tests.py wants, and logs its 85
// reads.
func TestT0007WriteIOLog(t *testing.T) {
	t.Chdir(t.TempDir())
	jobs, err := parseFile(strings.NewReader("[foo]\nsize=128mb\nrw=read:512k\nbs=1m\nnorandommap\nwrite_iolog=log\n"), "t0007.fio")
	require.NoError(t, err)
	res, err := RunJobs(t.Context(), jobs, workload.Options{})
	require.NoError(t, err)
	assert.Equal(t, uint64(87040<<10), res.Jobs[0].Dirs[workload.DirRead].Bytes)
	b, err := os.ReadFile("log")
	require.NoError(t, err)
	assert.Equal(t, 85, strings.Count(string(b), " read "))
}

// A run's error for a bad log names the log, the line and the job; a
// blktrace binary is refused by name.
func TestReplayErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("bad.log", []byte("fio version 2 iolog\nf add\nf open\nf read 0 4096\nf reed 1 2\n"), 0o644))
	bt := make([]byte, 64)
	binary.BigEndian.PutUint32(bt, 0x65617407)
	require.NoError(t, os.WriteFile("bt.bin", bt, 0o644))
	jobs, err := parseArgs([]string{"--name=r", "--read_iolog=bad.log"})
	require.NoError(t, err)
	_, err = RunJobs(t.Context(), jobs, workload.Options{})
	require.Error(t, err)
	assert.Equal(t, `workload: iolog bad.log line 5: action "reed": want one of add, open, close, read, write, trim, sync, datasync, wait (job r)`, err.Error())
	jobs[0].ReadIOLog = "bt.bin"
	_, err = RunJobs(t.Context(), jobs, workload.Options{})
	assert.ErrorIs(t, err, fio.ErrBlktrace)
	_, err = parseArgs([]string{"--name=r", "--read_iolog=bad.log", "--io_submit_mode=offload"})
	assert.ErrorContains(t, err, "io_submit_mode: offload with read_iolog")
	_, err = parseArgs([]string{"--name=r", "--read_iolog=bad.log", "--verify=md5"})
	assert.ErrorContains(t, err, "verify: with read_iolog is not supported")
}
