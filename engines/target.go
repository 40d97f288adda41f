package engines

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// OpenFile opens a target for an engine: read-only or read-write, with
// O_DIRECT when direct is set. A regular file that does not exist is not
// created: targets are laid out before a run.
func OpenFile(path string, write, direct bool) (*os.File, error) {
	return OpenFileFlags(path, write, direct, 0)
}

// OpenFileFlags is OpenFile with more open flags (fio's sync=: O_SYNC,
// O_DSYNC).
func OpenFileFlags(path string, write, direct bool, more int) (*os.File, error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	flag |= more
	if direct {
		flag |= unix.O_DIRECT
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		if direct && errors.Is(err, unix.EINVAL) {
			return nil, fmt.Errorf("engines: open %s with O_DIRECT: %w: %w", path, ErrNoDirectIO, err)
		}
		return nil, fmt.Errorf("engines: open target: %w", err)
	}
	return f, nil
}

func fstat(f *os.File) (unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return st, fmt.Errorf("engines: stat %s: %w", f.Name(), err)
	}
	return st, nil
}

func isBlockDev(st *unix.Stat_t) bool { return st.Mode&unix.S_IFMT == unix.S_IFBLK }

// LogicalBlockSize is the unit O_DIRECT offsets and lengths must be multiples
// of, in bytes. Block devices answer BLKSSZGET. For regular files it is the
// file system's direct-I/O offset alignment from statx (STATX_DIOALIGN, Linux
// >= 6.1) and, where statx has no answer, the file system block size from
// statfs, which is a safe upper bound.
func LogicalBlockSize(f *os.File) (int, error) {
	st, err := fstat(f)
	if err != nil {
		return 0, err
	}
	fd := int(f.Fd())
	if isBlockDev(&st) {
		n, err := unix.IoctlGetInt(fd, unix.BLKSSZGET)
		if err != nil {
			return 0, fmt.Errorf("engines: BLKSSZGET %s: %w", f.Name(), err)
		}
		return n, nil
	}
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &stx); err == nil &&
		stx.Mask&unix.STATX_DIOALIGN != 0 && stx.Dio_offset_align > 0 {
		return int(stx.Dio_offset_align), nil
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return 0, fmt.Errorf("engines: statfs %s: %w", f.Name(), err)
	}
	return int(sfs.Bsize), nil
}

// PhysicalBlockSize is the device's physical sector size in bytes (BLKPBSZGET);
// writes smaller than it make the device read-modify-write. For regular files
// it is the preferred I/O size st_blksize.
func PhysicalBlockSize(f *os.File) (int, error) {
	st, err := fstat(f)
	if err != nil {
		return 0, err
	}
	if isBlockDev(&st) {
		n, err := unix.IoctlGetUint32(int(f.Fd()), unix.BLKPBSZGET)
		if err != nil {
			return 0, fmt.Errorf("engines: BLKPBSZGET %s: %w", f.Name(), err)
		}
		return int(n), nil
	}
	return int(st.Blksize), nil
}

// Size is the size in bytes: BLKGETSIZE64 for block devices, st_size otherwise.
func Size(f *os.File) (int64, error) {
	st, err := fstat(f)
	if err != nil {
		return 0, err
	}
	if isBlockDev(&st) {
		var n uint64
		_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&n)))
		if e != 0 {
			return 0, fmt.Errorf("engines: BLKGETSIZE64 %s: %w", f.Name(), e)
		}
		return int64(n), nil
	}
	return st.Size, nil
}
