package engines

import (
	"errors"
	"os"
	"testing"
	"unsafe"
)

func TestAllocBuffers(t *testing.T) {
	page := uintptr(os.Getpagesize())
	b, err := AllocBuffers(3, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 3 || b.Size() != 5000 || len(b.All()) != 3 {
		t.Fatalf("Len %d Size %d All %d", b.Len(), b.Size(), len(b.All()))
	}
	var prevEnd uintptr
	for i := range b.Len() {
		buf := b.Buf(i)
		addr := uintptr(unsafe.Pointer(&buf[0]))
		if addr%page != 0 {
			t.Errorf("buffer %d at %#x: not page aligned", i, addr)
		}
		if len(buf) != 5000 || cap(buf) != 5000 {
			t.Errorf("buffer %d: len %d cap %d, want 5000 5000", i, len(buf), cap(buf))
		}
		if addr < prevEnd {
			t.Errorf("buffer %d overlaps the previous one", i)
		}
		prevEnd = addr + uintptr(len(buf))
		for j := range buf {
			buf[j] = byte(i)
		}
		if &b.All()[i][0] != &buf[0] {
			t.Errorf("All()[%d] is not Buf(%d)", i, i)
		}
	}
	for i := range b.Len() {
		for j, c := range b.Buf(i) {
			if c != byte(i) {
				t.Fatalf("buffer %d byte %d = %d: buffers share memory", i, j, c)
			}
		}
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Errorf("second Free = %v", err)
	}
	for _, bad := range [][2]int{{0, 4096}, {1, 0}, {-1, 1}, {1 << 40, 1 << 40}} {
		if _, err := AllocBuffers(bad[0], bad[1]); !errors.Is(err, ErrConfig) {
			t.Errorf("AllocBuffers(%d, %d) = %v, want ErrConfig", bad[0], bad[1], err)
		}
	}
}
