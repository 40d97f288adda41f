package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	bin := filepath.Join(t.TempDir(), "stortest")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// interrupt runs the built command with args and TMPDIR=tmp, sends SIGINT
// once stderr contains ready (and after wait more), and returns its exit
// code, stdout and stderr.
func interrupt(t *testing.T, bin, tmp, ready string, wait time.Duration, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout bytes.Buffer
	var stderr proctest.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), ready) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(wait)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("stortest did not stop within 30 s of SIGINT; stderr: %s", stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.Bytes(), stderr.String()
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
		code, stdout, stderr := interrupt(t, bin, tmp, "stortest run: target", time.Second,
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
		code, _, stderr := interrupt(t, bin, tmp, "", 100*time.Millisecond,
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
		// The job announces nothing on stderr; wait for its file instead.
		ready := make(chan struct{})
		go func() {
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if st, err := os.Stat(target); err == nil && st.Size() >= 16<<20 {
					break
				}
			}
			close(ready)
		}()
		cmd := exec.Command(bin, "run", "--progress", "off", "--output-format", "json", "--name=long", "--filename="+target,
			"--size=16m", "--rw=randread", "--ioengine=psync", "--runtime=60", "--time_based", "--write_hist_log="+prefix)
		var stdout bytes.Buffer
		var stderr proctest.LockedBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Start())
		<-ready
		time.Sleep(2500 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, 130, ee.ExitCode(), "stderr: %s", stderr.String())
		out, err := latency.ReadFio(bytes.NewReader(stdout.Bytes()), "stdout")
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
