package engines

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestGeometryRegularFile(t *testing.T) {
	f := openT(t, tempFile(t, 3<<20+512), false)
	size, err := Size(f)
	if err != nil || size != 3<<20+512 {
		t.Errorf("Size = %d, %v; want %d", size, err, 3<<20+512)
	}
	lbs, err := LogicalBlockSize(f)
	if err != nil || lbs < 512 || lbs&(lbs-1) != 0 {
		t.Errorf("LogicalBlockSize = %d, %v; want a power of two >= 512", lbs, err)
	}
	var stx unix.Statx_t
	if unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &stx) == nil && stx.Dio_offset_align > 0 {
		if lbs != int(stx.Dio_offset_align) {
			t.Errorf("LogicalBlockSize = %d, want statx dio_offset_align %d", lbs, stx.Dio_offset_align)
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if pbs, err := PhysicalBlockSize(f); err != nil || pbs != int(st.Blksize) {
		t.Errorf("PhysicalBlockSize = %d, %v; want st_blksize %d", pbs, err, st.Blksize)
	}
}

func TestGeometryClosedFile(t *testing.T) {
	f, err := os.Open(tempFile(t, 512))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, fn := range map[string]func(*os.File) (int, error){
		"LogicalBlockSize": LogicalBlockSize, "PhysicalBlockSize": PhysicalBlockSize,
		"Size": func(f *os.File) (int, error) { n, err := Size(f); return int(n), err },
	} {
		if _, err := fn(f); err == nil {
			t.Errorf("%s of a closed file: nil error", name)
		}
	}
}

func TestOpenFile(t *testing.T) {
	path := tempFile(t, 4096)
	f, err := OpenFile(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_DIRECT == 0 || flags&unix.O_ACCMODE != unix.O_RDONLY {
		t.Errorf("flags %#x: want O_DIRECT and O_RDONLY", flags)
	}
	if _, err := OpenFile(path+".missing", true, false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
