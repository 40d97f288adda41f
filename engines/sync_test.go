package engines

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPvsync2NoWait reads uncached data with RWF_NOWAIT: the read fails with
// -EAGAIN instead of blocking, and succeeds once the data is cached.
func TestPvsync2NoWait(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	bufs := allocBuffers(t, 1, 4096)
	e := newEngine(t, "pvsync2", Config{File: f, NoWait: true})
	u := Unit{Op: OpRead, Offset: 256 << 10, Buf: bufs.Buf(0), BufIndex: -1}
	// FADV_DONTNEED skips pages it cannot drop at that moment (still in a
	// CPU's LRU batch, say): drop again until the read finds none cached.
	for try := 0; ; try++ {
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		if st, err := e.Queue(&u); st != Completed || err != nil {
			t.Fatalf("Queue = %v, %v; want completed, nil", st, err)
		}
		if u.Res < 0 || try == 9 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if u.Res != -int64(unix.EAGAIN) {
		t.Fatalf("NOWAIT read of uncached data: Res = %d, want %d (-EAGAIN)", u.Res, -int64(unix.EAGAIN))
	}
	err := e.Explain(&u)
	if !errors.Is(err, unix.EAGAIN) || !strings.Contains(err.Error(), "RWF_NOWAIT") {
		t.Errorf("Explain = %v, want EAGAIN explained by RWF_NOWAIT", err)
	}
	// Cache it with a blocking read, then NOWAIT succeeds.
	if _, err := f.ReadAt(make([]byte, 4096), u.Offset); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Queue(&u); err != nil || u.Res != 4096 {
		t.Errorf("NOWAIT read of cached data: Res = %d, err = %v; want 4096, nil", u.Res, err)
	}
}

// TestSyncSeek checks that the sync engine seeks only when the file position
// is not already the unit's offset, as fio's sync engine does, and forgets the
// position after a failure.
func TestSyncSeek(t *testing.T) {
	path := tempFile(t, 64<<10)
	f := openT(t, path, false)
	data := make([]byte, 64<<10)
	fill(data, 0, 5)
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, "sync", Config{File: f})
	s := e.(*syncEngine)
	buf := make([]byte, 4096)
	for _, off := range []int64{8192, 12288, 0, 4096} {
		u := Unit{Op: OpRead, Offset: off, Buf: buf, BufIndex: -1}
		e.Queue(&u)
		if u.Res != 4096 || !bytes.Equal(buf, data[off:off+4096]) {
			t.Fatalf("read at %d: Res %d, data match %v", off, u.Res, bytes.Equal(buf, data[off:off+4096]))
		}
		if s.pos != off+4096 {
			t.Errorf("after read at %d: pos = %d, want %d", off, s.pos, off+4096)
		}
		// The descriptor agrees: the engine never seeks behind its back.
		if cur, _ := unix.Seek(s.fd, 0, 1 /* SEEK_CUR */); cur != s.pos {
			t.Errorf("descriptor position %d, engine thinks %d", cur, s.pos)
		}
	}
	u := Unit{Op: OpRead, Offset: -4096, Buf: buf, BufIndex: -1}
	e.Queue(&u)
	if u.Res != -int64(unix.EINVAL) || s.pos != -1 {
		t.Errorf("read at -4096: Res %d pos %d; want -EINVAL, -1", u.Res, s.pos)
	}
}
