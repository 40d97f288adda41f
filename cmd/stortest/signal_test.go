package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/faults"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// buildStortest builds the command into a temp dir and returns its path.
func buildStortest(t *testing.T) string {
	t.Helper()
	return proctest.GoBuild(t, "stortest", "build", ".")
}

// runProcess is a `stortest run` child process, killed (by its pid) if
// the test ends before it does.
type runProcess struct {
	cmd            *exec.Cmd
	stdout, stderr proctest.LockedBuffer
	exited         <-chan struct{}
	signaled       time.Time
}

// startRun starts the built command with args and TMPDIR=tmp; it stops
// the test (FailNow) when the command does not start.
func startRun(t *testing.T, bin, tmp string, args ...string) *runProcess {
	t.Helper()
	r := &runProcess{cmd: exec.Command(bin, args...)}
	r.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	var err error
	r.exited, err = proctest.Start(t, r.cmd)
	require.NoError(t, err)
	return r
}

// signalWhen waits until ready holds of stderr so far (or 30 s pass) and
// wait more, then sends sig and notes when.
func (r *runProcess) signalWhen(t *testing.T, ready func(stderr string) bool, wait time.Duration, sig os.Signal) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready(r.stderr.String()) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(wait)
	r.signaled = time.Now()
	require.NoError(t, r.cmd.Process.Signal(sig))
}

// wait waits up to limit for the process to exit and returns its status;
// it stops the test (FailNow) when it does not exit in time.
func (r *runProcess) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(limit):
		t.Fatalf("stortest did not exit within %v; stderr: %s", limit, r.stderr.String())
	}
	return r.cmd.ProcessState.ExitCode()
}

// signalRun runs the built command with args and TMPDIR=tmp, sends sig
// once ready holds of its stderr so far (or 30 s pass) and wait more, and
// returns its exit code, stdout and stderr. It stops the test (FailNow)
// when the command does not start, or does not exit within 30 s of the
// signal.
func signalRun(t *testing.T, bin, tmp string, ready func(stderr string) bool, wait time.Duration, sig os.Signal, args ...string) (int, []byte, string) {
	t.Helper()
	r := startRun(t, bin, tmp, args...)
	r.signalWhen(t, ready, wait, sig)
	code := r.wait(t, 30*time.Second)
	return code, []byte(r.stdout.String()), r.stderr.String()
}

// announced is signalRun's ready for a run that writes s on stderr.
func announced(s string) func(string) bool {
	return func(stderr string) bool { return strings.Contains(stderr, s) }
}

// laidOut is signalRun's ready for a job that announces nothing: its
// target file has size bytes.
func laidOut(target string, size int64) func(string) bool {
	return func(string) bool {
		st, err := os.Stat(target)
		return err == nil && st.Size() >= size
	}
}

// SIGINT to `stortest run` stops the run, prints the partial results,
// flushes the histogram logs, exits 130 and leaves no loop device or
// scratch file behind: during the default job, during the scratch target's
// layout, and in a long job writing histogram logs.
func TestRunSIGINT(t *testing.T) {
	testenv.SkipShort(t, "builds the command and runs it for seconds")
	bin := buildStortest(t)
	t.Run("default job", func(t *testing.T) {
		tmp := t.TempDir()
		start := time.Now()
		code, stdout, stderr := signalRun(t, bin, tmp, announced("stortest run: target"), time.Second, os.Interrupt,
			"run", "--progress", "off", "--output-format", "json", "--scratch-size", "64m")
		assert.Less(t, time.Since(start), 9*time.Second, "stopped before the 10 s default runtime")
		require.Equal(t, 130, code, "stderr: %s", stderr)
		assert.Contains(t, stderr, "interrupted: results above are partial")
		out, err := latency.ReadFio(bytes.NewReader(stdout), "stdout")
		require.NoError(t, err, "partial results are complete JSON: %s", stdout)
		require.Len(t, out.Jobs, 1)
		require.NotNil(t, out.Jobs[0].Read.Clat)
		assert.Positive(t, out.Jobs[0].Read.Clat.N, "I/Os of the second before SIGINT")
		assert.Empty(t, proctest.LoopsOver(tmp), "loop devices left over the scratch file")
		left, _ := os.ReadDir(tmp)
		assert.Empty(t, left, "scratch files left")
	})
	t.Run("during layout", func(t *testing.T) {
		tmp := t.TempDir()
		// SIGINT as soon as the process runs, while the 512 MiB scratch file
		// is written.
		code, _, stderr := signalRun(t, bin, tmp, announced(""), 100*time.Millisecond, os.Interrupt,
			"run", "--progress", "off", "--scratch-size", "512m")
		require.Equal(t, 130, code, "stderr: %s", stderr)
		assert.Empty(t, proctest.LoopsOver(tmp))
		left, _ := os.ReadDir(tmp)
		assert.Empty(t, left, "scratch files left")
	})
	t.Run("histogram logs", func(t *testing.T) {
		tmp := t.TempDir()
		target := filepath.Join(tmp, "target")
		prefix := filepath.Join(tmp, "h")
		code, stdout, stderr := signalRun(t, bin, tmp, laidOut(target, 16<<20), 2500*time.Millisecond, syscall.SIGINT,
			"run", "--progress", "off", "--output-format", "json", "--name=long", "--filename="+target,
			"--size=16m", "--rw=randread", "--ioengine=psync", "--runtime=60", "--time_based", "--write_hist_log="+prefix)
		require.Equal(t, 130, code, "stderr: %s", stderr)
		out, err := latency.ReadFio(bytes.NewReader(stdout), "stdout")
		require.NoError(t, err)
		require.Len(t, out.Jobs, 1)
		logs, _ := filepath.Glob(prefix + "_clat_hist.*.log")
		require.Len(t, logs, 1, "the histogram log")
		f, err := os.Open(logs[0])
		require.NoError(t, err)
		defer f.Close()
		rows := 0
		var last string
		for sc := bufio.NewScanner(f); sc.Scan(); rows++ {
			last = sc.Text()
		}
		assert.GreaterOrEqual(t, rows, 2, "a row per second, and the partial second at SIGINT")
		assert.True(t, strings.Count(last, ",") > 3, "the last row is complete: %q", last)
	})
}

// A signal that stops `stortest run` gives the exit status a shell gives
// a process that signal ends, 128 + its number: 143 for SIGTERM, 130 for
// SIGINT, with the partial results printed either way.
func TestRunSignalExitStatus(t *testing.T) {
	testenv.SkipShort(t, "builds the command and runs it for seconds")
	bin := buildStortest(t)
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			target := filepath.Join(tmp, "target")
			code, stdout, stderr := signalRun(t, bin, tmp, laidOut(target, 4<<20), 500*time.Millisecond, c.sig,
				"run", "--progress", "off", "--output-format", "json", "--name=long", "--filename="+target,
				"--size=4m", "--rw=randread", "--ioengine=psync", "--runtime=60", "--time_based")
			assert.Equal(t, c.want, code, "stderr: %s", stderr)
			assert.Contains(t, stderr, "interrupted: results above are partial")
			out, err := latency.ReadFio(bytes.NewReader(stdout), "stdout")
			require.NoError(t, err, "partial results are complete JSON: %s", stdout)
			assert.Len(t, out.Jobs, 1)
		})
	}
}

// stallCLIMargin is what `stortest run` may take beyond the grace period
// after a signal, during a stall: the run's own margin and the process's
// output and exit. Measured on a 2-CPU machine shared with five other
// test runs (load average 5 to 11): results 0.02 to 0.30 s after the
// grace period; the margin is more than ten times that.
const stallCLIMargin = 4 * time.Second

// waitOutput waits up to limit from the signal for the results, which
// name the outstanding I/O (on stderr, the error; on stdout, the
// summary), and returns how long after the signal they came.
func (r *runProcess) waitOutput(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	for !strings.Contains(r.stderr.String(), "still outstanding") {
		if time.Since(r.signaled) > limit {
			t.Fatalf("no result %v after the signal; stdout: %s\nstderr: %s", limit, r.stdout.String(), r.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(r.signaled)
}

// SIGINT or SIGTERM to `stortest run` during an injected stall of an hour
// ends the run within the grace period (DefaultGrace) and prints the
// partial results with the outstanding I/O, in the summary and in the
// JSON; the process exits non-zero, the stall named.
func TestRunSignalDuringStall(t *testing.T) {
	testenv.SkipShort(t, "builds the command and runs it for seconds")
	bin := buildStortest(t)
	for _, tc := range []struct {
		name   string
		sig    os.Signal
		engine string
		format string
	}{
		{"SIGINT psync", os.Interrupt, "psync", "normal"},
		{"SIGTERM psync", syscall.SIGTERM, "psync", "json"},
		{"SIGINT libaio", os.Interrupt, "libaio", "json"},
		{"SIGTERM io_uring", syscall.SIGTERM, "io_uring", "normal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "f")
			r := startRun(t, bin, t.TempDir(), "run", "--progress", "off", "--output-format", tc.format,
				"--faults", "stall_at=0+64m,stall=1h", "--name=x", "--rw=randread", "--bs=4k", "--iodepth=2",
				"--ioengine="+tc.engine, "--filename="+target, "--size=16m", "--runtime=60", "--time_based")
			r.signalWhen(t, announced("injecting faults"), 500*time.Millisecond /* the job is in its stall */, tc.sig)
			took := r.waitOutput(t, workload.DefaultGrace+stallCLIMargin)
			code := r.wait(t, stallCLIMargin)
			t.Logf("%s: results %v after the signal, exit %d", tc.name, took, code)
			assert.GreaterOrEqual(t, took, workload.DefaultGrace-time.Second, "the grace period was waited")
			assert.Equal(t, 128+int(tc.sig.(syscall.Signal)), code, "a signal's exit status, as a shell reports it")
			assert.Contains(t, r.stderr.String(), "still outstanding 5s after the run was stopped (the device stopped answering): read of 4096 bytes at offset ")
			out := r.stdout.String()
			if tc.format == "json" {
				doc, err := latency.ReadFio(strings.NewReader(out), "stdout")
				require.NoError(t, err, "partial results are complete JSON: %s", out)
				require.Len(t, doc.Jobs, 1)
				assert.Contains(t, out, `"outstanding": [`)
				assert.Contains(t, out, `"canceled": true`)
			} else {
				assert.Contains(t, out, "(canceled: partial results)")
				assert.Contains(t, out, "error: ")
				assert.Contains(t, out, "still outstanding")
			}
		})
	}
}

// The same on a device that really stops answering: a loop device over
// the faults package's FUSE file, whose reads stall for an hour. The
// process's threads stay blocked in the kernel; the run still ends within
// the grace period of the signal and prints the outstanding I/O. The
// kernel lets the process exit once the device answers (here, when the
// test releases the stall), and nothing is left: no mount, no loop device.
func TestRunSignalDuringKernelStall(t *testing.T) {
	testenv.SkipShort(t, "builds the command and runs it for seconds")
	needFaults(t)
	bin := buildStortest(t)
	for _, tc := range []struct {
		name   string
		sig    os.Signal
		engine string
	}{
		{"SIGINT psync", os.Interrupt, "psync"},
		{"SIGTERM libaio", syscall.SIGTERM, "libaio"},
		{"SIGINT io_uring", os.Interrupt, "io_uring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, l, err := faults.ServeLoop(faults.FileOptions{Dir: t.TempDir(), Size: 16 << 20, Rules: faults.Rules{
				{Range: engines.Range{Off: 0, Len: 16 << 20}, Stall: time.Hour}}}, engines.LoopOptions{DirectIO: true})
			require.NoError(t, err)
			t.Cleanup(func() {
				assert.NoError(t, f.Close())
				assert.False(t, l.Bound(), "%s still bound", l.Path())
				assert.False(t, f.Mounted(), "%s still mounted", f.Mountpoint())
			})
			r := startRun(t, bin, t.TempDir(), "run", "--progress", "off", "--output-format", "json",
				"--name=x", "--rw=randread", "--bs=4k", "--iodepth=2", "--direct=1", "--ioengine="+tc.engine,
				"--filename="+l.Path(), "--runtime=60", "--time_based")
			deadline := time.Now().Add(30 * time.Second)
			for f.Stats().Stalls == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			require.NotZero(t, f.Stats().Stalls, "the job reached the stall; stderr: %s", r.stderr.String())
			r.signalWhen(t, announced(""), 0, tc.sig)
			took := r.waitOutput(t, workload.DefaultGrace+stallCLIMargin)
			t.Logf("%s: results %v after the signal", tc.name, took)
			assert.Contains(t, r.stderr.String(), "still outstanding 5s after the run was stopped")
			// stdout is complete once the process has written it; the
			// process itself waits in the kernel for its I/O.
			require.Eventually(t, func() bool {
				_, err := latency.ReadFio(bytes.NewReader([]byte(r.stdout.String())), "stdout")
				return err == nil
			}, stallCLIMargin, 20*time.Millisecond, "complete JSON: %s", r.stdout.String())
			assert.Contains(t, r.stdout.String(), `"outstanding": [`)
			f.Release()
			code := r.wait(t, 30*time.Second)
			assert.NotZero(t, code)
		})
	}
}

// needFaults skips a test that needs root, /dev/fuse and loop devices, or
// fails it when STORTEST_REQUIRE_DEVICE=1.
func needFaults(t *testing.T) {
	t.Helper()
	testenv.RequireDevices(t, "fuse", "loop-control")
}
