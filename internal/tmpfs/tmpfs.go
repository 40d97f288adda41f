// Package tmpfs mounts small tmpfs file systems for the tests that fill
// a disk: what the files stortest keeps must survive (ENOSPC) is tried on
// a real file system, in memory, of a few pages.
package tmpfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Unavailable says why Mount cannot work here ("" when it can): it needs
// root. Tests skip with the reason, or fail under STORTEST_REQUIRE_DEVICE=1.
func Unavailable() string {
	if os.Geteuid() != 0 {
		return "mounting a tmpfs needs root"
	}
	return ""
}

// Mount mounts a tmpfs of size bytes (whole pages) on dir, which must
// exist, and returns its unmount (lazy, so a file still open does not keep
// it). It needs root (CAP_SYS_ADMIN).
func Mount(dir string, size int64) (unmount func() error, err error) {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV,
		fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		return nil, fmt.Errorf("tmpfs: mount on %s: %w", dir, err)
	}
	return func() error {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("tmpfs: unmount %s: %w", dir, err)
		}
		return nil
	}, nil
}

// FillName is the file Fill writes.
const FillName = ".fill"

// Fill writes the file FillName in dir until the file system is full
// (ENOSPC), then gives back leave bytes of it (rounded to the pages the
// file system counts in), and returns the bytes it holds. Free removes
// it.
func Fill(dir string, leave int64) (int64, error) {
	f, err := os.OpenFile(filepath.Join(dir, FillName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("tmpfs: fill %s: %w", dir, err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	var n int64
	for _, size := range []int{4096, 512, 1} { // down to the last byte
		for {
			m, err := f.Write(buf[:size])
			n += int64(m)
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			if err != nil {
				return n, fmt.Errorf("tmpfs: fill %s: %w", dir, err)
			}
		}
	}
	if leave > 0 {
		n = max(n-leave, 0)
		if err := f.Truncate(n); err != nil {
			return n, fmt.Errorf("tmpfs: fill %s: %w", dir, err)
		}
	}
	return n, nil
}

// Free removes what Fill wrote.
func Free(dir string) error {
	return os.Remove(filepath.Join(dir, FillName))
}

// TB is the part of testing.TB that ForTest uses (this package does not
// import testing: nothing below the test API does).
type TB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Error(args ...any)
	Fatal(args ...any)
	Skip(args ...any)
}

// ForTest mounts a tmpfs of size bytes on a new temporary directory,
// unmounted when the test ends (even when it fails), and returns the
// directory. Without root it skips the test, or fails it (FailNow) under
// STORTEST_REQUIRE_DEVICE=1.
func ForTest(t TB, size int64) string {
	t.Helper()
	if why := Unavailable(); why != "" {
		if os.Getenv("STORTEST_REQUIRE_DEVICE") == "1" {
			t.Fatal(why + " (STORTEST_REQUIRE_DEVICE=1)")
		}
		t.Skip(why + " (set STORTEST_REQUIRE_DEVICE=1 to fail instead of skipping)")
	}
	dir := t.TempDir()
	unmount, err := Mount(dir, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// Files returns the files under dir but Fill's, by path relative to dir,
// with their contents: what a test compares before and after a write the
// full disk refused. It stops the test (FailNow) when dir cannot be read.
func Files(t TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == FillName {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
