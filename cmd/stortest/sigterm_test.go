package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/proctest"
	"stortest.dev/latency"
)

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
			cmd := exec.Command(bin, "run", "--progress", "off", "--output-format", "json", "--name=long", "--filename="+target,
				"--size=4m", "--rw=randread", "--ioengine=psync", "--runtime=60", "--time_based")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout bytes.Buffer
			var stderr proctest.LockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The job announces nothing: wait for its laid out file, then
			// a little of the run.
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if st, err := os.Stat(target); err == nil && st.Size() >= 4<<20 {
					break
				}
			}
			time.Sleep(500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(c.sig))
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("stortest did not stop within 30 s of %v; stderr: %s", c.sig, stderr.String())
			}
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit: %v; stderr: %s", err, stderr.String())
			assert.Equal(t, c.want, ee.ExitCode(), "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), "interrupted: results above are partial")
			out, err := latency.ReadFio(bytes.NewReader(stdout.Bytes()), "stdout")
			require.NoError(t, err, "partial results are complete JSON: %s", stdout.String())
			assert.Len(t, out.Jobs, 1)
		})
	}
}
