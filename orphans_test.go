package stortest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stortest.dev/engines"
	"stortest.dev/internal/proctest"
	"stortest.dev/workload"
)

// needLoopDevices skips a test that attaches loop devices when it cannot
// (not root, no /dev/loop-control), or fails it (FailNow) with
// STORTEST_REQUIRE_DEVICE=1.
func needLoopDevices(t *testing.T) {
	t.Helper()
	requireRoot(t)
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		skipOrFail(t, "no loop driver: %v", err)
	}
}

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
	needLoopDevices(t)
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
	got, err := workload.CleanOrphans()
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
