package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// failAt makes the n-th step (from 1) fail with EIO, and counts.
func failAt(n int) (steps *int, restore func()) {
	var k int
	restore = Inject(func(Op, string) error {
		k++
		if k == n {
			return syscall.EIO
		}
		return nil
	})
	return &k, restore
}

// A failure at any step of a whole-file write leaves the old file and
// nothing else, and names the file; only a failed directory sync after
// the rename leaves the new one (ErrUnsynced).
func TestWriteFileEveryStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteBytes(path, 0o644, []byte("old")); err != nil {
		t.Fatal(err)
	}
	steps, restore := failAt(0)
	if err := WriteBytes(path, 0o644, []byte("new")); err != nil {
		t.Fatal(err)
	}
	restore()
	total := *steps
	if err := WriteBytes(path, 0o644, []byte("old")); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= total; i++ {
		_, restore := failAt(i)
		err := WriteBytes(path, 0o644, []byte("new"))
		restore()
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), path) {
			t.Fatalf("step %d: %v", i, err)
		}
		want := "old"
		if errors.Is(err, ErrUnsynced) {
			want = "new"
		}
		if got := read(t, path); got != want {
			t.Fatalf("step %d: %q, want %q", i, got, want)
		}
		if n := names(t, dir); len(n) != 1 {
			t.Fatalf("step %d: left %q", i, n)
		}
		WriteBytes(path, 0o644, []byte("old"))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

// Open reads a log's end: its last line and a partial entry after it,
// across the chunks it reads backwards.
func TestLogEnd(t *testing.T) {
	long := strings.Repeat("y", 150<<10)
	for _, tc := range []struct {
		name, text, last string
		partial          int
	}{
		{"empty", "", "", 0},
		{"one", "a\n", "a", 0},
		{"partial-only", "abc", "", 3},
		{"lines-partial", "a\nbb\nccc", "bb", 3},
		{"long-last", "a\n" + long + "\n", long, 0},
		{"long-partial", "a\nbb\n" + long, "bb", len(long)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := Open(path, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if string(l.Last()) != tc.last || l.Partial() != tc.partial {
				t.Errorf("last %.20q (%d bytes), partial %d; want %.20q, %d", l.Last(), len(l.Last()), l.Partial(), tc.last, tc.partial)
			}
		})
	}
}

// Append replaces a partial entry; Undo puts it back; a failure at any
// step of Append leaves the file as it was; a new log that gets no line
// is not left behind.
func TestLogAppendUndo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.jsonl")
	const start = "a\nbcdefgh"
	os.WriteFile(path, []byte(start), 0o644)
	l, err := Open(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "a\nx\n" {
		t.Fatalf("after Append: %q", got)
	}
	if err := l.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != start {
		t.Fatalf("after Undo: %q", got)
	}
	if err := l.Append([]byte("x\ny\n")); err == nil {
		t.Fatal("two lines appended")
	}
	l.Close()

	for i := 1; ; i++ {
		l, err := Open(path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		steps, restore := failAt(i)
		err = l.Append([]byte("a much longer line than the partial entry\n"))
		restore()
		l.Close()
		if *steps < i {
			break // every step failed once
		}
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), path) {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := read(t, path); got != start {
			t.Fatalf("step %d: %q", i, got)
		}
	}

	// A new log: a failed append, or none, leaves no file.
	fresh := filepath.Join(dir, "new.jsonl")
	l, err = Open(fresh, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, restore := failAt(1)
	err = l.Append([]byte("x\n"))
	restore()
	l.Close()
	if !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed first append left the file: %v", err)
	}
	l, err = Open(fresh, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an open without append left the file: %v", err)
	}
}

// Writers that append at once, each a line at a time, to a log none has
// yet made, leave every line whole, once.
func TestLogConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				l, err := Open(path, 0o644)
				if err != nil {
					errs <- err
					return
				}
				if err := l.Append(fmt.Appendf(nil, "%d-%d\n", w, i)); err != nil {
					errs <- err
				}
				l.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(read(t, path), "\n"), "\n")
	sort.Strings(lines)
	var want []string
	for w := range writers {
		for i := range each {
			want = append(want, fmt.Sprintf("%d-%d", w, i))
		}
	}
	sort.Strings(want)
	if !slices.Equal(lines, want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
}
