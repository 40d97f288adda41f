package target

import (
	"os"
	"path/filepath"
	"testing"

	"stortest.dev/engines"
)

// requireRoot skips a test that needs loop devices when not root, or
// fails it (FailNow) when STORTEST_REQUIRE_DEVICE=1 says devices must be
// tested.
func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("STORTEST_REQUIRE_DEVICE") == "1" {
		t.Fatal("loop devices need root, and STORTEST_REQUIRE_DEVICE=1 requires device tests to run")
	}
	t.Skip("loop devices need root (set STORTEST_REQUIRE_DEVICE=1 to fail instead of skipping)")
}

// attachLoop attaches a loop device over a new sparse temp file of size
// bytes and detaches it in t.Cleanup. Needs root.
func attachLoop(t testing.TB, size int64) *engines.Loop {
	t.Helper()
	requireRoot(t)
	backing := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(backing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(backing, size); err != nil {
		t.Fatal(err)
	}
	l, err := engines.AttachLoop(backing, engines.LoopOptions{})
	if err != nil {
		t.Fatalf("AttachLoop: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Detach(); err != nil {
			t.Errorf("Detach %s: %v", l.Path(), err)
		}
	})
	return l
}
