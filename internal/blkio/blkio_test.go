package blkio_test

import (
	"path/filepath"
	"strings"
	"testing"

	"stortest.dev/internal/blkio"
	"stortest.dev/internal/testenv"
)

// A Command runs inside the group: its own /proc/self/cgroup names it.
func TestCommandRunsInGroup(t *testing.T) {
	testenv.RequireBlkio(t)
	g, err := blkio.New("stortest-blkio-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Error(err)
		}
	})
	out, err := g.Command("cat", "/proc/self/cgroup").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := filepath.Base(g.Dir); !strings.Contains(string(out), ":blkio:") || !strings.Contains(string(out), want) {
		t.Errorf("/proc/self/cgroup of the command:\n%s\nwant its blkio group ...%s", out, want)
	}
}
