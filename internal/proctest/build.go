package proctest

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// TB is the part of testing.TB that GoBuild uses.
type TB interface {
	Helper()
	TempDir() string
	Fatalf(format string, args ...any)
}

// GoBuild runs `go VERB -o BIN ARGS...` with the go command of the
// toolchain running the tests ("build" and a package for a command,
// "test", "-c" and a package for a test binary) and returns BIN, name in
// the test's temporary directory. It stops the test (FailNow) when the
// build fails, with go's output.
func GoBuild(t TB, name, verb string, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{verb, "-o", bin}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s %s: %v\n%s", verb, strings.Join(args, " "), err, out)
	}
	return bin
}

// ExitCode reads the error of a command that was run or waited for: its
// exit status (0 for a nil error, -1 for a process a signal ended), or
// err itself when the command did not run to an exit.
func ExitCode(err error) (int, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	}
	return -1, err
}

// CombinedOutput runs cmd with its stdout and stderr in one buffer, as
// exec.Cmd.CombinedOutput does, and returns that output and the exit
// status: an exit other than 0 is a status, not an error (see ExitCode).
func CombinedOutput(cmd *exec.Cmd) (string, int, error) {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	code, err := ExitCode(cmd.Run())
	return buf.String(), code, err
}
