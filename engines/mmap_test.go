package engines

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMmapTruncated reads through a mapping whose file was truncated: the
// fault becomes -EIO instead of crashing the process.
func TestMmapTruncated(t *testing.T) {
	path := tempFile(t, 64<<10)
	f := openT(t, path, false)
	e := newEngine(t, "mmap", Config{File: f})
	buf := make([]byte, 4096)
	u := Unit{Op: OpRead, Offset: 8192, Buf: buf, BufIndex: -1}
	if _, err := e.Queue(&u); err != nil || u.Res != 4096 {
		t.Fatalf("read before truncation: Res = %d, err = %v", u.Res, err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Queue(&u); err != nil || u.Res != -int64(unix.EIO) {
		t.Fatalf("read after truncation: Res = %d, err = %v; want %d (-EIO), nil", u.Res, err, -int64(unix.EIO))
	}
}

func TestMmapReadOnlyWrite(t *testing.T) {
	path := tempFile(t, 64<<10)
	f, err := OpenFile(path, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := newEngine(t, "mmap", Config{File: f})
	u := Unit{Op: OpWrite, Buf: make([]byte, 512), BufIndex: -1}
	e.Queue(&u)
	if u.Res != -int64(unix.EBADF) {
		t.Fatalf("write through a read-only mapping: Res = %d, want -EBADF", u.Res)
	}
	if err := e.Explain(&u); !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Explain = %v, want it to say read-only", err)
	}
}

// TestMmapSize maps more than the file holds: the file is extended, the new
// range is usable, and the mapping's end behaves like a device's end.
func TestMmapSize(t *testing.T) {
	path := tempFile(t, 4096)
	f := openT(t, path, false)
	e := newEngine(t, "mmap", Config{File: f, Size: 64 << 10})
	if st, _ := f.Stat(); st.Size() != 64<<10 {
		t.Fatalf("file size %d, want it extended to %d", st.Size(), 64<<10)
	}
	buf := make([]byte, 4096)
	for _, c := range []struct {
		op   Op
		off  int64
		want int64
	}{
		{OpWrite, 60 << 10, 4096},
		{OpRead, 62 << 10, 2048}, // short read at the end
		{OpRead, 64 << 10, 0},
		{OpWrite, 62 << 10, -int64(unix.ENOSPC)},
		{OpFdatasync, 0, 0},
	} {
		u := Unit{Op: c.op, Offset: c.off, Buf: buf, BufIndex: -1}
		e.Queue(&u)
		if u.Res != c.want {
			t.Errorf("%v at %d: Res %d, want %d", c.op, c.off, u.Res, c.want)
		}
	}
	ro, err := OpenFile(path, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := New("mmap", Config{File: ro, Size: 1 << 20}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("mapping past the end of a read-only file: %v, want an error", err)
	}
}
