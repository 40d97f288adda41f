package stortest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stortest.dev/engines"
	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
	"stortest.dev/target"
	"stortest.dev/workload"
)

// childTest returns the command that runs this test binary's test name
// alone, as a child process playing a part for its parent test; env turns
// it on. The child writes no report and keeps nothing on purpose.
func childTest(name string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.timeout=2m", "-test.parallel=16")
	cmd.Env = append(os.Environ(), append([]string{"STORTEST_JUNIT=", EnvNoCleanup + "=", "STORTEST_DEVICE="}, env...)...)
	return cmd
}

// forgetLoop detaches dev if it is still attached to backing, for a
// test's cleanup; a device someone else attached since is left alone.
func forgetLoop(dev, backing string) {
	l, err := engines.OpenLoop(dev)
	if err != nil {
		return
	}
	if l.Backing() == backing {
		l.Detach()
		return
	}
	l.Close()
}

// boundTo reports whether loop device dev is attached to backing.
func boundTo(dev, backing string) bool {
	b, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file"))
	return err == nil && strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)") == backing
}

const orphanChildEnv = "STORTEST_ORPHAN_CHILD"

// A test binary killed with SIGKILL leaves its loop device attached and
// its scratch file in its TempDir; the cleanup of a later process
// detaches the device, removes the file and the emptied TempDir, and says
// which device, which file and which process.
func TestOrphansAfterSIGKILL(t *testing.T) {
	if os.Getenv(orphanChildEnv) == "1" {
		t.Skip("in the child")
	}
	testenv.RequireDevices(t, "loop-control") // root and loop devices
	cmd := childTest("TestOrphanChild", orphanChildEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr proctest.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	killed := false
	kill := func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
			killed = true
		}
	}
	t.Cleanup(kill)

	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "orphan ") {
				lines <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	var dev, backing string
	select {
	case l := <-lines:
		if _, err := fmt.Sscanf(l, "orphan %s %s", &dev, &backing); err != nil {
			t.Fatalf("child said %q: %v", l, err)
		}
	case <-time.After(30 * time.Second):
		kill()
		t.Fatalf("the child announced no loop device in 30 s; stderr:\n%s", stderr.String())
	}
	seq := filepath.Dir(backing)
	testDir := filepath.Dir(seq)
	// Whatever the assertions say, nothing stays: the device, the file,
	// the child's TempDir (named after its test, made by its testing
	// package).
	t.Cleanup(func() {
		forgetLoop(dev, backing)
		os.Remove(backing)
		if strings.HasPrefix(filepath.Base(testDir), "TestOrphanChild") {
			os.RemoveAll(testDir)
		}
	})

	kill()
	if !boundTo(dev, backing) {
		t.Fatalf("after SIGKILL %s is not attached to %s", dev, backing)
	}
	if _, err := os.Stat(backing); err != nil {
		t.Fatalf("after SIGKILL: %v", err)
	}

	// Another stortest process starting now might clean up first; this
	// one follows the kill within milliseconds.
	start := time.Now()
	got, err := target.CleanOrphans()
	t.Logf("CleanOrphans in %v: %q, %v", time.Since(start).Round(time.Microsecond), got, err)
	want := fmt.Sprintf("orphan %s over %s of process %d (gone): detached %s, removed %s, %s, %s", dev, backing, pid, dev, backing, seq, testDir)
	found := false
	for _, l := range got {
		found = found || l == want
	}
	if !found {
		t.Errorf("CleanOrphans said:\n%s\nwant the line\n%s", strings.Join(got, "\n"), want)
	}
	if boundTo(dev, backing) {
		t.Errorf("%s is still attached to %s", dev, backing)
	}
	for _, p := range []string{backing, seq, testDir} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left: %v", p, err)
		}
	}
}

// TestOrphanChild, run by TestOrphansAfterSIGKILL, attaches a loop device,
// says which on stdout, and waits to be killed.
func TestOrphanChild(t *testing.T) {
	if os.Getenv(orphanChildEnv) != "1" {
		t.Skip("run by TestOrphansAfterSIGKILL")
	}
	d := LoopDevice(t, 1<<20)
	fmt.Printf("orphan %s %s\n", d.Path, d.Backing)
	time.Sleep(time.Minute) // killed long before
	t.Error("not killed within a minute")
}

const (
	artifactChildEnv    = "STORTEST_ARTIFACT_CHILD" // "wait": until stdin ends; "once": not
	artifactChildTarget = "STORTEST_ARTIFACT_TARGET"
)

// A test binary killed with SIGKILL after a run leaves its temporary
// artifact directory; the next test binary's first run removes it, says
// so on stderr, and leaves a live test binary's directory alone.
func TestArtifactOrphansAfterSIGKILL(t *testing.T) {
	if os.Getenv(artifactChildEnv) != "" {
		t.Skip("in the child")
	}
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	// The children's temporary directories, artifacts and TempDirs.
	tmp := t.TempDir()
	type child struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stderr proctest.LockedBuffer
		dir    string // its artifact directory: stortest-artifacts-<tag>-<random>
	}
	start := func(mode string) *child {
		t.Helper()
		c := &child{cmd: childTest("TestArtifactOrphanChild", artifactChildEnv+"="+mode, artifactChildTarget+"="+target,
			"GOTMPDIR="+tmp, "STORTEST_OUT=")}
		c.cmd.Stderr = &c.stderr
		stdout, err := c.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if c.stdin, err = c.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		})
		lines := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if d, ok := strings.CutPrefix(sc.Text(), "artifacts "); ok {
					lines <- d
					break
				}
			}
			io.Copy(io.Discard, stdout)
		}()
		select {
		case c.dir = <-lines:
		case <-time.After(time.Minute):
			t.Fatalf("the child (%s) announced no artifacts in a minute; stderr:\n%s", mode, c.stderr.String())
		}
		if !strings.HasPrefix(c.dir, tmp+"/") {
			t.Fatalf("the child's artifacts are in %s, not in its GOTMPDIR %s", c.dir, tmp)
		}
		return c
	}
	files := func(dir string) int {
		n := 0
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}

	killed := start("wait")
	live := start("wait")
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	n := files(killed.dir)
	if n == 0 {
		t.Fatalf("after SIGKILL %s holds no files", killed.dir)
	}

	// The next test binary: its run cleans up before it writes.
	next := start("once")
	if err := next.cmd.Wait(); err != nil {
		t.Fatalf("the next child: %v\nstderr:\n%s", err, next.stderr.String())
	}
	want := fmt.Sprintf("stortest: orphan artifacts %s of process %d (gone): removed it and the %d files in it\n",
		killed.dir, killed.cmd.Process.Pid, n)
	if !strings.Contains(next.stderr.String(), want) {
		t.Errorf("the next child's stderr:\n%s\nwant the line\n%s", next.stderr.String(), want)
	}
	if strings.Contains(next.stderr.String(), live.dir) {
		t.Errorf("the next child's stderr names the live child's %s:\n%s", live.dir, next.stderr.String())
	}
	for _, d := range []string{killed.dir, next.dir} {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is left: %v", d, err)
		}
	}
	if got := files(live.dir); got == 0 {
		t.Errorf("the live child's %s was emptied or removed", live.dir)
	}

	// The live one ends as a test does and removes its own.
	live.stdin.Close()
	if err := live.cmd.Wait(); err != nil {
		t.Errorf("the live child: %v\nstderr:\n%s", err, live.stderr.String())
	}
	if _, err := os.Stat(live.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s is left after its test: %v", live.dir, err)
	}
}

// TestArtifactOrphanChild, run by TestArtifactOrphansAfterSIGKILL, runs a
// short job on the file it is given, says where its artifacts went, and
// then, in mode "wait", waits for its stdin to end (or to be killed).
func TestArtifactOrphanChild(t *testing.T) {
	mode := os.Getenv(artifactChildEnv)
	if mode == "" {
		t.Skip("run by TestArtifactOrphansAfterSIGKILL")
	}
	r := Run(t, Device(t, os.Getenv(artifactChildTarget)), workload.Job{Name: "rr", RW: workload.Read, Size: 1 << 20})
	if len(r.Artifacts) == 0 {
		t.Fatal("no artifacts")
	}
	// <temp>/stortest-artifacts-<tag>-<random>/<test name>/<file>
	fmt.Printf("artifacts %s\n", filepath.Dir(filepath.Dir(r.Artifacts[0])))
	if mode == "wait" {
		io.Copy(io.Discard, os.Stdin)
	}
}
