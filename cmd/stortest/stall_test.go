package main

import (
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

// stallCLIMargin is what `stortest run` may take beyond the grace period
// after a signal, during a stall: the run's own margin and the process's
// output and exit. Measured on a 2-CPU machine shared with five other
// test runs (load average 5 to 11): results 0.02 to 0.30 s after the
// grace period; the margin is more than ten times that.
const stallCLIMargin = 4 * time.Second

// stallRun is a `stortest run` child process in a stall.
type stallRun struct {
	cmd            *exec.Cmd
	stdout, stderr proctest.LockedBuffer
	exited         <-chan struct{}
	signaled       time.Time
}

func startStallRun(t *testing.T, bin string, args ...string) *stallRun {
	t.Helper()
	r := &stallRun{cmd: exec.Command(bin, args...)}
	r.cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	var err error
	r.exited, err = proctest.Start(t, r.cmd)
	require.NoError(t, err)
	return r
}

// signal sends sig and notes when.
func (r *stallRun) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	r.signaled = time.Now()
	require.NoError(t, r.cmd.Process.Signal(sig))
}

// waitOutput waits up to limit from the signal for the results, which
// name the outstanding I/O (on stderr, the error; on stdout, the
// summary), and returns how long after the signal they came.
func (r *stallRun) waitOutput(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	for !strings.Contains(r.stderr.String(), "still outstanding") {
		if time.Since(r.signaled) > limit {
			t.Fatalf("no result %v after the signal; stdout: %s\nstderr: %s", limit, r.stdout.String(), r.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(r.signaled)
}

// wait waits up to limit for the process to exit and returns its status.
func (r *stallRun) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(limit):
		t.Fatalf("stortest did not exit within %v; stderr: %s", limit, r.stderr.String())
	}
	return r.cmd.ProcessState.ExitCode()
}

// SIGINT or SIGTERM to `stortest run` during an injected stall of an hour
// ends the run within the grace period (DefaultGrace) and prints the
// partial results with the outstanding I/O, in the summary and in the
// JSON; the process exits non-zero, the stall named.
func TestRunSignalDuringStall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs it for seconds")
	}
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
			r := startStallRun(t, bin, "run", "--progress", "off", "--output-format", tc.format,
				"--faults", "stall_at=0+64m,stall=1h", "--name=x", "--rw=randread", "--bs=4k", "--iodepth=2",
				"--ioengine="+tc.engine, "--filename="+target, "--size=16m", "--runtime=60", "--time_based")
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(r.stderr.String(), "injecting faults") && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond) // the job is in its stall
			r.signal(t, tc.sig)
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
	if testing.Short() {
		t.Skip("builds the command and runs it for seconds")
	}
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
			r := startStallRun(t, bin, "run", "--progress", "off", "--output-format", "json",
				"--name=x", "--rw=randread", "--bs=4k", "--iodepth=2", "--direct=1", "--ioengine="+tc.engine,
				"--filename="+l.Path(), "--runtime=60", "--time_based")
			deadline := time.Now().Add(30 * time.Second)
			for f.Stats().Stalls == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			require.NotZero(t, f.Stats().Stalls, "the job reached the stall; stderr: %s", r.stderr.String())
			r.signal(t, tc.sig)
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
