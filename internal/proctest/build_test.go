package proctest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records a Fatalf and ends the goroutine, as FailNow does.
type fakeTB struct {
	dir   string
	fatal string
}

func (f *fakeTB) Helper()         {}
func (f *fakeTB) TempDir() string { return f.dir }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.fatal = fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func TestCombinedOutput(t *testing.T) {
	for _, c := range []struct {
		script string
		out    string
		code   int
	}{
		{"echo out; echo err >&2", "out\nerr\n", 0},
		{"echo failed >&2; exit 3", "failed\n", 3},
		{"kill -KILL $$", "", -1},
	} {
		out, code, err := CombinedOutput(exec.Command("sh", "-c", c.script))
		if err != nil || out != c.out || code != c.code {
			t.Errorf("%s: %q, exit %d, %v; want %q, exit %d", c.script, out, code, err, c.out, c.code)
		}
	}
	_, code, err := CombinedOutput(exec.Command("/no/such/command"))
	if !errors.Is(err, os.ErrNotExist) || code != -1 {
		t.Errorf("a command that does not start: exit %d, %v; want -1 and the error", code, err)
	}
}

// A failed build stops the test with go's own words.
func TestGoBuildFails(t *testing.T) {
	f := &fakeTB{dir: t.TempDir()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		GoBuild(f, "x", "build", "./no-such-package")
	}()
	<-done
	if !strings.HasPrefix(f.fatal, "go build ./no-such-package: exit status 1\n") || !strings.Contains(f.fatal, "no-such-package") {
		t.Errorf("fatal %q", f.fatal)
	}
}
