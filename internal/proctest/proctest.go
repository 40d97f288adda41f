// Package proctest holds what the tests that run a stortest binary and
// signal it share: a buffer its output can be copied into while the test
// reads it, a check for loop devices it left behind, and the tag of a
// process that is gone.
package proctest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"stortest.dev/internal/kernelfs"
	"stortest.dev/internal/owner"
)

// LoopsOver returns the sysfs backing_file entries of the loop devices
// whose backing file lies under dir: none should outlive a run that used
// a scratch file there.
func LoopsOver(dir string) []string {
	var out []string
	files, _ := filepath.Glob(kernelfs.Default().SysPath("block", "loop*", "loop", "backing_file"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.HasPrefix(strings.TrimSpace(string(b)), dir+"/") {
			out = append(out, f)
		}
	}
	return out
}

// LockedBuffer is a bytes.Buffer safe for the writer (a command's output
// copier) and the reader (the test) at once.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// DeadTag returns the owner tag (see internal/owner) of a process that has
// run and is gone: a child started, tagged while it ran, then killed and
// reaped.
func DeadTag() (string, error) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		return "", err
	}
	tag, err := owner.Of(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	return tag, err
}

// Start starts cmd and reaps it in the background: the channel it returns
// is closed once the process has exited. When the test ends (t.Cleanup)
// a process still running is killed and reaped, so that none outlives
// its test.
func Start(t interface{ Cleanup(func()) }, cmd *exec.Cmd) (exited <-chan struct{}, err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})
	return done, nil
}
