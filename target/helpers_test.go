package target

import (
	"testing"

	"stortest.dev/engines"
	"stortest.dev/internal/testenv"
)

// attachLoop attaches a loop device over a new sparse temp file of size
// bytes and detaches it in t.Cleanup. Needs root.
func attachLoop(t testing.TB, size int64) *engines.Loop {
	t.Helper()
	return testenv.AttachLoop(t, size, nil, func(backing string) (*engines.Loop, error) {
		return engines.AttachLoop(backing, engines.LoopOptions{})
	})
}
