package engines

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// movesData reports whether the engine reads and writes data, so that a
// test can write a block and read it back.
func movesData(name string) bool {
	switch name {
	case "null", "falloc", "ftruncate", "cpuio", "filecreate", "filestat", "filedelete", "exec":
		return false
	}
	return true
}

// movesFileData reports whether the engine called name moves data to
// and from its file (net moves it over a socket).
func movesFileData(name string) bool { return movesData(name) && name != "net" }

// blocks returns the 512-byte blocks allocated to path.
func blocks(t *testing.T, path string) (size, blocks int64) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks
}

// queue runs one unit through a synchronous engine.
func queue(t *testing.T, e Engine, u *Unit) {
	t.Helper()
	u.Res = -999
	if st, err := e.Queue(u); st != Completed || err != nil {
		t.Fatalf("Queue %v offset %d: %v %v", u.Op, u.Offset, st, err)
	}
}

// TestFalloc: a write allocates its range and may grow the file, a read
// allocates without growing it, a trim frees it; every unit counts its
// length.
func TestFalloc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := openT(t, path, false)
	e := newEngine(t, "falloc", Config{File: f})
	buf := make([]byte, 256<<10)

	w := &Unit{Op: OpWrite, Offset: 1 << 20, Buf: buf}
	queue(t, e, w)
	size, b1 := blocks(t, path)
	if w.Res != int64(len(buf)) || size != 1<<20+256<<10 || b1 < 512 {
		t.Fatalf("write: Res %d, size %d, %d blocks; want %d, %d, >= 512", w.Res, size, b1, len(buf), 1<<20+256<<10)
	}
	r := &Unit{Op: OpRead, Offset: 4 << 20, Buf: buf}
	queue(t, e, r)
	size, b2 := blocks(t, path)
	if r.Res != int64(len(buf)) || size != 1<<20+256<<10 || b2 < b1+512 {
		t.Fatalf("read: Res %d, size %d, %d blocks; want %d, size unchanged, >= %d blocks", r.Res, size, b2, len(buf), b1+512)
	}
	tr := &Unit{Op: OpTrim, Offset: 1 << 20, Buf: buf}
	queue(t, e, tr)
	size, b3 := blocks(t, path)
	if tr.Res != int64(len(buf)) || size != 1<<20+256<<10 || b3 > b2-512 {
		t.Fatalf("trim: Res %d, size %d, %d blocks; want %d, size unchanged, <= %d blocks", tr.Res, size, b3, len(buf), b2-512)
	}
}

// TestFtruncate: a write sets the file's size to its offset; reads fail
// with EINVAL, as fio's do.
func TestFtruncate(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	e := newEngine(t, "ftruncate", Config{File: f})
	buf := make([]byte, 4096)
	for _, off := range []int64{12 << 10, 3 << 20, 0} {
		u := &Unit{Op: OpWrite, Offset: off, Buf: buf}
		queue(t, e, u)
		if size, _ := blocks(t, path); u.Res != 4096 || size != off {
			t.Errorf("write at %d: Res %d, size %d; want 4096, %d", off, u.Res, size, off)
		}
	}
	r := &Unit{Op: OpRead, Buf: buf}
	queue(t, e, r)
	if !errors.Is(r.Err(), unix.EINVAL) {
		t.Errorf("read: Res %d, want -EINVAL", r.Res)
	}
}

// threadCPU is the calling thread's user and system time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return time.Duration(unix.TimevalToNsec(ru.Utime) + unix.TimevalToNsec(ru.Stime))
}

// TestCPUIO: a unit keeps the CPU busy for the chunk, in both modes, and
// moves nothing.
func TestCPUIO(t *testing.T) {
	runtime.LockOSThread() // the CPU time is this thread's
	defer runtime.UnlockOSThread()
	for _, qsort := range []bool{false, true} {
		e := newEngine(t, "cpuio", Config{CPUChunk: 30 * time.Millisecond, CPUQsort: qsort})
		u := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
		cpu0, t0 := threadCPU(), time.Now()
		queue(t, e, u)
		wall, cpu := time.Since(t0), threadCPU()-cpu0
		if u.Res != 0 {
			t.Errorf("qsort=%v: Res %d, want 0", qsort, u.Res)
		}
		if wall < 30*time.Millisecond || wall > 300*time.Millisecond {
			t.Errorf("qsort=%v: the unit took %v, want 30 ms", qsort, wall)
		}
		// It burns rather than sleeps: a share of the chunk is CPU time
		// (all of it on an idle machine; a sleep would use none, and a
		// loaded one, running other tests, preempts the thread).
		if cpu < 3*time.Millisecond {
			t.Errorf("qsort=%v: %v of CPU in %v, want at least a tenth of 30 ms", qsort, cpu, wall)
		}
	}
	if e := newEngine(t, "cpuio", Config{}); e.(*cpuio).chunk != DefaultCPUChunk {
		t.Errorf("default chunk %v, want %v", e.(*cpuio).chunk, DefaultCPUChunk)
	}
}

// TestFileOps creates, stats and deletes a set of files; each file's
// call is done by its first unit only.
func TestFileOps(t *testing.T) {
	dir := t.TempDir()
	files := FileSet{Dir: dir, Prefix: "job.1.", N: 3, Size: 8192}
	buf := make([]byte, 4096)
	run := func(name string, cfg Config) []Unit {
		t.Helper()
		cfg.Files = files
		e := newEngine(t, name, cfg)
		if e.Flags()&FlagFileOps == 0 {
			t.Fatalf("%s: flags %v lack fileops", name, e.Flags())
		}
		units := make([]Unit, 6)
		for i := range units {
			units[i] = Unit{Op: OpRead, Offset: int64(i) * 4096, Buf: buf}
			queue(t, e, &units[i])
			if want := i%2 == 0; units[i].FileOp != want {
				t.Errorf("%s: unit at %d: FileOp %v, want %v", name, units[i].Offset, units[i].FileOp, want)
			}
		}
		return units
	}
	ok := func(name string, units []Unit) {
		t.Helper()
		for _, u := range units {
			if u.Res != 4096 {
				t.Errorf("%s: unit at %d: Res %d (%v), want 4096", name, u.Offset, u.Res, u.Err())
			}
		}
	}
	ok("filecreate", run("filecreate", Config{}))
	for i := range 3 {
		st, err := os.Stat(filepath.Join(dir, "job.1."+string(rune('0'+i))))
		if err != nil || st.Size() != 0 || st.Mode().Perm() != 0o600 {
			t.Fatalf("file %d after filecreate: %v %v", i, st, err)
		}
	}
	ok("filestat", run("filestat", Config{}))
	ok("filestat lstat", run("filestat", Config{StatType: "lstat"}))
	ok("filestat statx", run("filestat", Config{StatType: "statx"}))
	ok("filedelete", run("filedelete", Config{}))
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("after filedelete: %v left", left)
	}

	// The files are gone: stat fails on each file's first unit only, and
	// the explanation names the file.
	files.Dir = dir
	e := newEngine(t, "filestat", Config{Files: files})
	units := run("filestat", Config{})
	for i, u := range units {
		if failed := u.Res == -int64(unix.ENOENT); failed != (i%2 == 0) {
			t.Errorf("stat of a deleted file, unit %d: Res %d", i, u.Res)
		}
	}
	msg := e.Explain(&units[2]).Error()
	for _, s := range []string{"filestat: stat ", filepath.Join(dir, "job.1.1"), "no such file", "the file is gone"} {
		if !strings.Contains(msg, s) {
			t.Errorf("Explain = %q, lacks %q", msg, s)
		}
	}
	past := &Unit{Op: OpRead, Offset: 3 * 8192, Buf: buf}
	queue(t, e, past)
	if past.Res != -int64(unix.EINVAL) {
		t.Errorf("unit past the last file: Res %d, want -EINVAL", past.Res)
	}
}

func TestFileOpsConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"filestat", Config{Files: FileSet{Prefix: "a.", N: 1}}},
		{"filestat", Config{Files: FileSet{Prefix: "a.", Size: 1}}},
		{"filestat", Config{Files: FileSet{N: 1, Size: 1}}},
		{"filestat", Config{Files: FileSet{Name: "a", N: 2, Size: 1}}},
		{"filestat", Config{Files: FileSet{Name: "a", N: 1, Size: 1}, StatType: "fstat"}},
		{"filedelete", Config{Files: FileSet{Name: "a", N: 1, Size: 1}, StatType: "lstat"}},
	} {
		if _, err := New(tc.name, tc.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%s, %+v) = %v, want ErrConfig", tc.name, tc.cfg, err)
		}
	}
	// One named file: every unit at a multiple of the size works on it.
	path := tempFile(t, 4096)
	e := newEngine(t, "filestat", Config{Files: FileSet{Name: path, N: 1, Size: 4096}})
	u := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
	queue(t, e, u)
	if u.Res != 4096 || !u.FileOp {
		t.Errorf("stat of %s: Res %d FileOp %v", path, u.Res, u.FileOp)
	}
	if got := (FileSet{Dir: "d", Prefix: "j.0.", N: 20, Size: 1}).Path(12); got != "d/j.0.12" {
		t.Errorf("Path(12) = %q", got)
	}
}

// TestFileOpsNoAllocs: formatting a file's name and calling the kernel
// allocate nothing.
func TestFileOpsNoAllocs(t *testing.T) {
	dir := t.TempDir()
	files := FileSet{Dir: dir, Prefix: "a.0.", N: 100, Size: 4096}
	for i := range files.N {
		if err := os.WriteFile(files.Path(i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []string{"stat", "statx"} {
		e := newEngine(t, "filestat", Config{Files: files, StatType: st})
		u := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
		i := 0
		if a := testing.AllocsPerRun(200, func() {
			u.Offset = int64(i%files.N) * 4096
			i++
			_, _ = e.Queue(u)
			if u.Res != 4096 {
				t.Fatalf("stat: %v", e.Explain(u))
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per unit, want 0", st, a)
		}
	}
}

// TestExec runs a program for the job: units wait on it, its output goes
// to the files named, Stop ends it with SIGTERM or, past the grace time,
// SIGKILL, and a program that cannot start fails the first unit.
func TestExec(t *testing.T) {
	dir := t.TempDir()
	out, errf := filepath.Join(dir, "j.stdout"), filepath.Join(dir, "j.stderr")
	e := newEngine(t, "exec", Config{Exec: &ExecSpec{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exec sleep 30"},
		Stdout: out, Stderr: errf, Grace: 5 * time.Second}})
	u := &Unit{Op: OpRead, Buf: make([]byte, 4096)}
	t0 := time.Now()
	queue(t, e, u)
	queue(t, e, u)
	if d := time.Since(t0); u.Res != 0 || d < 2*execPoll || d > 20*execPoll {
		t.Errorf("two units: Res %d in %v, want 0 in about %v", u.Res, d, 2*execPoll)
	}
	x := e.(*execEngine)
	pid := x.proc.Pid
	t0 = time.Now()
	if err := x.Stop(); err != nil || !x.exited || time.Since(t0) > 2*time.Second {
		t.Fatalf("Stop: %v, exited %v after %v: sleep ends at SIGTERM", err, x.exited, time.Since(t0))
	}
	if !x.status.Signaled() || x.status.Signal() != unix.SIGTERM {
		t.Errorf("exit status %v, want killed by SIGTERM", x.status)
	}
	if err := unix.Kill(pid, 0); err != unix.ESRCH {
		t.Errorf("pid %d after Stop: %v, want ESRCH", pid, err)
	}
	for path, want := range map[string]string{out: "out\n", errf: "err\n"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", path, b, err, want)
		}
	}

	// A program that ignores SIGTERM is killed after the grace time.
	e = newEngine(t, "exec", Config{Exec: &ExecSpec{Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; sleep 30 & wait"},
		Grace: 200 * time.Millisecond}})
	queue(t, e, u)
	x = e.(*execEngine)
	t0 = time.Now()
	x.Stop()
	if d := time.Since(t0); !x.status.Signaled() || x.status.Signal() != unix.SIGKILL || d < 200*time.Millisecond || d > 3*time.Second {
		t.Errorf("status %v after %v, want SIGKILL after the 200 ms grace", x.status, d)
	}

	// A program that cannot start: as fio 3.33, the units go on (Res 0)
	// and the error is in the stderr file.
	errFile := filepath.Join(dir, "missing.stderr")
	e = newEngine(t, "exec", Config{Exec: &ExecSpec{Path: filepath.Join(dir, "missing"), Stderr: errFile}})
	queue(t, e, u)
	queue(t, e, u)
	se := e.(*execEngine).StartErr()
	if u.Res != 0 || !errors.Is(se, unix.ENOENT) {
		t.Errorf("missing program: Res %d, start error %v", u.Res, se)
	}
	if b, err := os.ReadFile(errFile); err != nil || !strings.Contains(string(b), "exec: start "+filepath.Join(dir, "missing")) {
		t.Errorf("stderr file: %q, %v", b, err)
	}
}
