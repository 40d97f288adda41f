package iostat

import "testing"

// dirFS is the FS whose /proc and /sys roots are both dir, where a test
// lays out its fixture's files side by side; it stops the test (FailNow)
// when NewFS refuses the directory.
func dirFS(t *testing.T, dir string) FS {
	t.Helper()
	f, err := NewFS(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// snapshotOf is f's snapshot from src; it stops the test (FailNow) when
// f cannot take it.
func snapshotOf(t *testing.T, f FS, src Source) Snapshot {
	t.Helper()
	s, err := f.Snapshot(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
