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

	"stortest.dev/internal/proctest"
	"stortest.dev/latency"
)

// buildStortest builds the command into a temp dir and returns its path.
func buildStortest(t *testing.T) string {
	t.Helper()
	return proctest.GoBuild(t, "stortest", "build", ".")
}

// signalRun runs the built command with args and TMPDIR=tmp, sends sig
// once ready holds of its stderr so far (or 30 s pass) and wait more, and
// returns its exit code, stdout and stderr. It stops the test (FailNow)
// when the command does not start, or does not exit within 30 s of the
// signal (it is killed then).
func signalRun(t *testing.T, bin, tmp string, ready func(stderr string) bool, wait time.Duration, sig os.Signal, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout bytes.Buffer
	var stderr proctest.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	exited, err := proctest.Start(t, cmd)
	require.NoError(t, err)
	deadline := time.Now().Add(30 * time.Second)
	for !ready(stderr.String()) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(wait)
	require.NoError(t, cmd.Process.Signal(sig))
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("stortest did not stop within 30 s of %v; stderr: %s", sig, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.Bytes(), stderr.String()
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
	if testing.Short() {
		t.Skip("builds the command and runs it for seconds")
	}
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
	if testing.Short() {
		t.Skip("builds the command and runs it for seconds")
	}
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
