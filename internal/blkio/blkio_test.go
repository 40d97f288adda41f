package blkio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stortest.dev/internal/blkio"
	"stortest.dev/internal/testenv"
)

// newGroup makes a group for the test and removes it when the test ends.
func newGroup(t *testing.T) *blkio.Group {
	t.Helper()
	return testenv.BlkioGroup(t, "stortest-blkio-test")
}

// A Command runs inside the group: its own /proc/self/cgroup names it.
func TestCommandRunsInGroup(t *testing.T) {
	g := newGroup(t)
	out, err := g.Command("cat", "/proc/self/cgroup").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := filepath.Base(g.Dir); !strings.Contains(string(out), ":blkio:") || !strings.Contains(string(out), want) {
		t.Errorf("/proc/self/cgroup of the command:\n%s\nwant its blkio group ...%s", out, want)
	}
}

// New removes the empty groups that a process since gone left (a test
// killed before its cleanup), and keeps those of live processes and
// every group it did not name.
func TestNewSweepsGroupsOfGoneProcesses(t *testing.T) {
	testenv.RequireBlkio(t)
	first, err := blkio.New("stortest-blkio-test")
	if err != nil {
		t.Fatal(err)
	}
	parent := first.Parent
	if err := first.Remove(); err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{ // name: removed by New
		fmt.Sprintf("stortest-blkio-test-%d-1", gone.Process.Pid):        true,
		fmt.Sprintf("stortest-x-y-%d-2", gone.Process.Pid):               true,
		fmt.Sprintf("stortest-blkio-test-%d-3", os.Getppid()):            false, // alive
		fmt.Sprintf("other-blkio-test-%d-4", gone.Process.Pid):           false, // not ours
		fmt.Sprintf("stortest-blkio-test-%d-notatime", gone.Process.Pid): false,
	}
	for d := range dirs {
		if err := os.Mkdir(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(filepath.Join(parent, d)) })
	}
	newGroup(t) // sweeps parent
	for d, removed := range dirs {
		_, err := os.Stat(filepath.Join(parent, d))
		if gotRemoved := os.IsNotExist(err); gotRemoved != removed {
			t.Errorf("%s: removed %v, want %v (%v)", d, gotRemoved, removed, err)
		}
	}
}
