//go:build !stortest_perfslow

package runner

import "testing"

// A build without the stortest_perfslow tag spins at no completion.
func TestPerfSlowOffInNormalBuilds(t *testing.T) {
	if perfSlowNs != 0 {
		t.Fatalf("perfSlowNs = %d in a normal build", perfSlowNs)
	}
}
