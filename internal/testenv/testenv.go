// Package testenv holds what the module's tests share about their
// environment: whether a long test runs (not under -short), whether they
// may use root, loop devices, FUSE, cgroups (and a blkio group of their
// own) and tools (skipping, or failing where CI says the environment
// must have them), where fio is and running it on a job file, attaching
// a loop device for a test, the -update flag of golden files, and
// reading the recorded data kept gzipped under testdata/.
//
// It does not import "testing" (nothing below the test API does; see
// internal/lint): its functions take a TB, the part of testing.TB they
// use, as internal/tmpfs.ForTest does.
//
// A missing prerequisite skips the test, with the reason; with
// STORTEST_REQUIRE_DEVICE=1 (CI, where skipping would hide the test) it
// fails it (FailNow) instead.
package testenv

import (
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"stortest.dev/internal/blkio"
	"stortest.dev/internal/kernelfs"
)

// TB is the part of testing.TB that testenv uses.
type TB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// The environment variables that turn a skip into a failure.
const (
	// EnvRequireDevice=1: device tests (root, loop devices, FUSE, tools)
	// must run.
	EnvRequireDevice = "STORTEST_REQUIRE_DEVICE"
	// EnvRequireBlkio=1: the tests that throttle a device with cgroup v1
	// blkio must run.
	EnvRequireBlkio = "STORTEST_REQUIRE_BLKIO"
)

// Update is the -update flag of the tests that keep golden files under
// testdata/: with it they rewrite the files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// SkipShort skips a long test under go test -short, saying what it
// would have done: "runs the 10 s default job". It reads the flag
// testing.Short reads (testenv does not import "testing").
func SkipShort(t TB, what string) {
	t.Helper()
	if f := flag.Lookup("test.short"); f != nil && f.Value.String() == "true" {
		t.Skipf("%s", what)
	}
}

// Gunzip returns the contents of the gzipped file at path (recordings
// are kept compressed under testdata/), failing the test (Fatalf) when it
// does not read.
func Gunzip(t TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("testenv: %s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("testenv: %s: %v", path, err)
	}
	return b
}

// Unmet stops a test whose prerequisite is missing: it skips it with the
// reason, or fails it (FailNow) when the environment variable env is "1".
func Unmet(t TB, env, format string, args ...any) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf(format+" ("+env+"=1: failing instead of skipping)", args...)
	}
	t.Skipf(format+" (set "+env+"=1 to fail instead of skipping)", args...)
}

// RequireRoot stops a test that needs root (loop devices, mounts,
// cgroups) when not root, or that needs the commands tools (losetup,
// mount) when one is not installed: see Unmet.
func RequireRoot(t TB, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Unmet(t, EnvRequireDevice, "needs root (loop devices, mounts, cgroups)")
	}
	for _, name := range tools {
		RequireTool(t, name)
	}
}

// RequireDevices stops a test that needs root and the device nodes nodes
// under /dev (e.g. "fuse", "loop-control") when one is missing.
func RequireDevices(t TB, nodes ...string) {
	t.Helper()
	RequireRoot(t)
	for _, n := range nodes {
		p := kernelfs.Default().DevPath(n)
		if _, err := os.Stat(p); err != nil {
			Unmet(t, EnvRequireDevice, "needs %s: %v", p, err)
		}
	}
}

// RequireBlkio stops a test that needs root and cgroup v1's blkio
// controller when either is missing; EnvRequireBlkio=1 fails it.
func RequireBlkio(t TB) {
	t.Helper()
	RequireRoot(t)
	if err := blkio.Available(); err != nil {
		Unmet(t, EnvRequireBlkio, "%v", err)
	}
}

// BlkioGroup stops a test as RequireBlkio does, or makes a blkio group
// for it, named for prefix (see blkio.New), and removes it when the test
// ends, even when it fails: its threads go back to the process's group.
// It stops the test (FailNow) when the group cannot be made.
func BlkioGroup(t TB, prefix string) *blkio.Group {
	t.Helper()
	RequireBlkio(t)
	g, err := blkio.New(prefix)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	return g
}

// RequireTool returns the path of the command name, or stops the test
// when it is not installed (see Unmet).
func RequireTool(t TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Unmet(t, EnvRequireDevice, "needs %s: %v", name, err)
	}
	return p
}

// JUnitSchema returns the path of Jenkins' junit-10.xsd in the shared
// directory beside the repository (../shared/schemas from the module
// root, the first directory above the test's with a go.mod), or skips the
// test without it.
func JUnitSchema(t TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("no go.mod above the test's directory: cannot locate ../shared/schemas/junit-10.xsd")
		}
		dir = parent
	}
	xsd := filepath.Join(filepath.Dir(dir), "shared", "schemas", "junit-10.xsd")
	if _, err := os.Stat(xsd); err != nil {
		t.Skipf("Jenkins' schema is not beside the repository (%v)", err)
	}
	return xsd
}

// ValidateJUnit checks the JUnit file at path against Jenkins'
// junit-10.xsd (JUnitSchema) with xmllint: a file the schema refuses is
// reported and the test continues (Errorf). Without the schema the test
// is skipped; without xmllint it stops as RequireTool says.
func ValidateJUnit(t TB, path string) {
	t.Helper()
	xsd := JUnitSchema(t)
	xmllint := RequireTool(t, "xmllint")
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput(); err != nil {
		t.Errorf("xmllint %s: %v\n%s", path, err, out)
	}
}

var fioPath = sync.OnceValues(func() (string, error) { return exec.LookPath("fio") })

// FioPath returns the installed fio's path, looked up once, for tests
// that compare with fio when it is there and run without it otherwise.
func FioPath() (string, error) { return fioPath() }

// Fio returns the installed fio's path, or skips the test, saying it
// skips what: "the comparison with fio's option table". A missing fio
// never fails a test: stortest does not need it.
func Fio(t TB, what string) string {
	t.Helper()
	p, err := FioPath()
	if err != nil {
		t.Skipf("fio is not installed: skipping %s", what)
	}
	return p
}

// FioOn runs the fio at path fio with args, and text as a job file after
// them when text is not empty, in a temporary directory, and returns
// whether fio succeeded and what it printed. It stops the test (FailNow)
// when fio does not run.
func FioOn(t TB, fio, text string, args ...string) (bool, string) {
	t.Helper()
	if text != "" {
		f := filepath.Join(t.TempDir(), "j.fio")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatalf("%v", err)
		}
		args = append(args, f)
	}
	cmd := exec.Command(fio, args...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v", err)
	}
	return err == nil, string(out)
}

// Loop is what AttachLoop needs of an attached loop device
// (*engines.Loop); testenv does not import engines, whose own tests use
// it.
type Loop interface {
	Path() string
	Detach() error
}

// AttachLoop stops the test when not root, creates a sparse backing file
// of size bytes in a temporary directory, starting with head, attaches it
// with attach (engines.AttachLoop with the test's options) and detaches
// it when the test ends, even when it fails. The detach is registered
// before anything the test registers after AttachLoop returns, so it runs
// after the test's own cleanups (unmounts, swapoffs).
func AttachLoop[L Loop](t TB, size int64, head []byte, attach func(backing string) (L, error)) L {
	t.Helper()
	RequireRoot(t)
	backing := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(backing, head, 0o600); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if err := os.Truncate(backing, size); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	l, err := attach(backing)
	if err != nil {
		t.Fatalf("testenv: attach a loop device over %s: %v", backing, err)
	}
	t.Cleanup(func() {
		if err := l.Detach(); err != nil {
			t.Errorf("testenv: detach %s: %v", l.Path(), err)
		}
	})
	return l
}
