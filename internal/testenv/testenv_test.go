package testenv

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"stortest.dev/internal/blkio"
)

// fakeTB records what a helper did: Fatalf and Skipf end the calling
// goroutine as FailNow and SkipNow do.
type fakeTB struct {
	dir      string
	cleanups []func()
	errors   []string
	fatal    string
	skip     string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) TempDir() string   { return f.dir }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, a ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.fatal = fmt.Sprintf(format, a...)
	runtime.Goexit()
}
func (f *fakeTB) Skipf(format string, a ...any) { f.skip = fmt.Sprintf(format, a...); runtime.Goexit() }
func (f *fakeTB) run(fn func(TB)) *fakeTB {
	done := make(chan struct{})
	go func() { defer close(done); fn(f) }()
	<-done
	return f
}

func TestUnmet(t *testing.T) {
	t.Setenv(EnvRequireDevice, "")
	f := (&fakeTB{}).run(func(tb TB) { Unmet(tb, EnvRequireDevice, "needs %s", "x") })
	if f.fatal != "" || !strings.HasPrefix(f.skip, "needs x (set STORTEST_REQUIRE_DEVICE=1") {
		t.Errorf("without the variable: skip %q, fatal %q; want a skip", f.skip, f.fatal)
	}
	t.Setenv(EnvRequireDevice, "1")
	f = (&fakeTB{}).run(func(tb TB) { Unmet(tb, EnvRequireDevice, "needs %s", "x") })
	if f.skip != "" || !strings.HasPrefix(f.fatal, "needs x (STORTEST_REQUIRE_DEVICE=1: failing") {
		t.Errorf("with it: skip %q, fatal %q; want a failure", f.skip, f.fatal)
	}
}

func TestRequireDevicesMissingNode(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("RequireDevices stops at root first")
	}
	t.Setenv(EnvRequireDevice, "")
	f := (&fakeTB{}).run(func(tb TB) { RequireDevices(tb, "null", "no-such-node-here") })
	if !strings.Contains(f.skip, "/dev/no-such-node-here") {
		t.Errorf("skip %q, want it to name /dev/no-such-node-here", f.skip)
	}
	f = (&fakeTB{}).run(func(tb TB) { RequireDevices(tb, "null") })
	if f.skip != "" || f.fatal != "" {
		t.Errorf("/dev/null: skip %q, fatal %q", f.skip, f.fatal)
	}
}

func TestRequireTool(t *testing.T) {
	t.Setenv(EnvRequireDevice, "1")
	var got string
	f := (&fakeTB{}).run(func(tb TB) { got = RequireTool(tb, "sh") })
	if got == "" || f.fatal != "" {
		t.Errorf("sh: %q, fatal %q", got, f.fatal)
	}
	f = (&fakeTB{}).run(func(tb TB) { RequireTool(tb, "no-such-tool-stortest") })
	if !strings.Contains(f.fatal, "no-such-tool-stortest") {
		t.Errorf("a missing tool under %s=1: fatal %q", EnvRequireDevice, f.fatal)
	}
	if os.Geteuid() != 0 {
		return // RequireRoot stops at root first
	}
	f = (&fakeTB{}).run(func(tb TB) { RequireRoot(tb, "sh", "no-such-tool-stortest") })
	if !strings.Contains(f.fatal, "no-such-tool-stortest") {
		t.Errorf("RequireRoot with a missing tool: fatal %q", f.fatal)
	}
	f = (&fakeTB{}).run(func(tb TB) { RequireRoot(tb, "sh") })
	if f.fatal != "" || f.skip != "" {
		t.Errorf("RequireRoot with sh: fatal %q, skip %q", f.fatal, f.skip)
	}
}

type fakeLoop struct {
	backing  string
	detached *int
	err      error
}

func (l fakeLoop) Path() string  { return "/dev/loop-fake" }
func (l fakeLoop) Detach() error { *l.detached++; return l.err }

// AttachLoop makes the backing file (size, head) and registers the
// detach, which reports a failure to detach.
func TestAttachLoop(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("AttachLoop stops at root first")
	}
	detached := 0
	f := &fakeTB{dir: t.TempDir()}
	var l fakeLoop
	f.run(func(tb TB) {
		l = AttachLoop(tb, 1<<20, []byte("MBR"), func(backing string) (fakeLoop, error) {
			return fakeLoop{backing: backing, detached: &detached, err: errors.New("busy")}, nil
		})
	})
	st, err := os.Stat(l.backing)
	if err != nil || st.Size() != 1<<20 {
		t.Fatalf("backing file: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(l.backing); string(b[:3]) != "MBR" {
		t.Errorf("backing file starts %q, want the head", b[:3])
	}
	if len(f.cleanups) != 1 {
		t.Fatalf("%d cleanups, want 1", len(f.cleanups))
	}
	f.cleanups[0]()
	if detached != 1 || len(f.errors) != 1 || !strings.Contains(f.errors[0], "busy") {
		t.Errorf("cleanup: detached %d times, errors %q", detached, f.errors)
	}
	f = (&fakeTB{dir: t.TempDir()}).run(func(tb TB) {
		AttachLoop(tb, 1<<20, nil, func(string) (fakeLoop, error) { return fakeLoop{}, errors.New("no free loop") })
	})
	if !strings.Contains(f.fatal, "no free loop") || len(f.cleanups) != 0 {
		t.Errorf("a failed attach: fatal %q, %d cleanups", f.fatal, len(f.cleanups))
	}
}

// ValidateJUnit reports a file Jenkins' schema refuses and passes one it
// accepts.
func TestValidateJUnit(t *testing.T) {
	JUnitSchema(t)
	RequireTool(t, "xmllint")
	dir := t.TempDir()
	good, bad := dir+"/good.xml", dir+"/bad.xml"
	if err := os.WriteFile(good, []byte(`<testsuites><testsuite name="x" tests="0" failures="0" errors="0" time="0.123"/></testsuites>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`<testsuites><testsuite name="x" tests="0" failures="0" errors="0" time="0.1234"/></testsuites>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := (&fakeTB{}).run(func(tb TB) { ValidateJUnit(tb, good) }); len(f.errors) != 0 || f.fatal != "" || f.skip != "" {
		t.Errorf("a valid file: errors %q, fatal %q, skip %q", f.errors, f.fatal, f.skip)
	}
	if f := (&fakeTB{}).run(func(tb TB) { ValidateJUnit(tb, bad) }); len(f.errors) != 1 || !strings.Contains(f.errors[0], "bad.xml") {
		t.Errorf("an invalid file: errors %q, want one naming it", f.errors)
	}
}

func TestSkipShort(t *testing.T) {
	short := flag.Lookup("test.short")
	was := short.Value.String()
	t.Cleanup(func() { short.Value.Set(was) })
	short.Value.Set("false")
	if f := (&fakeTB{}).run(func(tb TB) { SkipShort(tb, "runs for minutes") }); f.skip != "" {
		t.Errorf("without -short: skip %q", f.skip)
	}
	short.Value.Set("true")
	if !testing.Short() {
		t.Fatal("testing.Short() is false with -test.short set")
	}
	if f := (&fakeTB{}).run(func(tb TB) { SkipShort(tb, "runs for minutes") }); f.skip != "runs for minutes" {
		t.Errorf("with -short: skip %q, want %q", f.skip, "runs for minutes")
	}
}

// BlkioGroup makes a group and registers its removal.
func TestBlkioGroup(t *testing.T) {
	RequireBlkio(t)
	var g *blkio.Group
	f := (&fakeTB{}).run(func(tb TB) { g = BlkioGroup(tb, "stortest-testenv-test") })
	if f.fatal != "" || f.skip != "" || g == nil {
		t.Fatalf("fatal %q, skip %q, group %v", f.fatal, f.skip, g)
	}
	if _, err := os.Stat(g.Dir); err != nil {
		t.Errorf("the group's directory: %v", err)
	}
	if len(f.cleanups) != 1 {
		t.Fatalf("%d cleanups, want 1", len(f.cleanups))
	}
	f.cleanups[0]()
	if _, err := os.Stat(g.Dir); !errors.Is(err, os.ErrNotExist) || len(f.errors) != 0 {
		t.Errorf("after the cleanup: the group's directory %v, errors %q", err, f.errors)
	}
}
