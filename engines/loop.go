package engines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/kernelfs"
)

// LoopOptions configure a loop device.
type LoopOptions struct {
	// DirectIO makes the loop driver use O_DIRECT on the backing file
	// (LO_FLAGS_DIRECT_IO), so the loop device's I/O bypasses the page cache of
	// the backing file. AttachLoop fails with ErrNoDirectIO when the backing
	// file system cannot do it.
	DirectIO bool
	// BlockSize is the logical block size in bytes (512 to the page size, a
	// power of two); 0 lets the kernel choose (512, or the backing device's
	// block size with direct I/O).
	BlockSize uint32
	ReadOnly  bool // LO_FLAGS_READ_ONLY
	// AutoClear detaches the device when its last user closes it
	// (LO_FLAGS_AUTOCLEAR). The Loop holds the device open until Detach.
	AutoClear bool
}

// Loop is an attached loop device. Detach it when done (t.Cleanup in tests).
type Loop struct {
	n       int
	path    string
	backing string
	canon   string   // backing as the kernel prints it (absolute, symlinks resolved)
	f       *os.File // the device, held open for LOOP_CLR_FD

	mu       sync.Mutex
	detached bool
	closed   bool // by Close, without detaching
}

// Bounds on retries. Attaching races with other processes taking the same free
// device; detaching races with udev and blkid, which open a device briefly
// after every change.
const (
	loopAttachTries = 64
	loopDetachTries = 50
	loopRetryPause  = 10 * time.Millisecond
	loopGoneWait    = 5 * time.Second // for the device to drop its backing file
)

// loopBusyRetries counts lost races for a free device, for tests.
var loopBusyRetries atomic.Int64

// LoopAttachRetries returns how many times AttachLoop in this process lost
// a free device to another attacher (EBUSY) and asked for another: a
// measure of how hard attaches contended, for tests that make them.
func LoopAttachRetries() int64 { return loopBusyRetries.Load() }

// AttachLoop attaches backing (a regular file) to a free loop device with
// LOOP_CTL_GET_FREE and LOOP_CONFIGURE (Linux >= 5.8). Another process may
// configure the device GET_FREE returned first: AttachLoop then asks for
// another free device, a bounded number of times. Needs CAP_SYS_ADMIN.
func AttachLoop(backing string, opts LoopOptions) (*Loop, error) {
	flag := os.O_RDWR
	if opts.ReadOnly {
		flag = os.O_RDONLY
	}
	if opts.DirectIO {
		flag |= unix.O_DIRECT
	}
	bf, err := os.OpenFile(backing, flag, 0)
	if err != nil {
		if opts.DirectIO && errors.Is(err, unix.EINVAL) {
			return nil, fmt.Errorf("engines: loop: %w: %s cannot be opened with O_DIRECT (%w); use a file on a "+
				"file system with direct I/O (ext4, xfs, btrfs) or attach without DirectIO", ErrNoDirectIO, backing, err)
		}
		return nil, fmt.Errorf("engines: loop: open backing file: %w", err)
	}
	defer bf.Close() // the loop driver holds its own reference once configured

	ctl, err := os.OpenFile(kernelfs.Default().DevPath("loop-control"), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("engines: loop: %w (attaching loop devices needs root)", err)
	}
	defer ctl.Close()

	var cfg unix.LoopConfig
	cfg.Fd = uint32(bf.Fd())
	cfg.Size = opts.BlockSize
	if opts.DirectIO {
		cfg.Info.Flags |= unix.LO_FLAGS_DIRECT_IO
	}
	if opts.ReadOnly {
		cfg.Info.Flags |= unix.LO_FLAGS_READ_ONLY
	}
	if opts.AutoClear {
		cfg.Info.Flags |= unix.LO_FLAGS_AUTOCLEAR
	}
	copy(cfg.Info.File_name[:len(cfg.Info.File_name)-1], backing)

	var lastErr error
	for range loopAttachTries {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("engines: loop: LOOP_CTL_GET_FREE: %w", err)
		}
		path := kernelfs.Default().DevPath("loop" + strconv.Itoa(n))
		lf, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			// A device created by GET_FREE gets its node from devtmpfs; give it
			// a moment rather than failing.
			lastErr = err
			if errors.Is(err, os.ErrNotExist) {
				time.Sleep(loopRetryPause)
				continue
			}
			return nil, fmt.Errorf("engines: loop: %w", err)
		}
		err = unix.IoctlLoopConfigure(int(lf.Fd()), &cfg)
		if errors.Is(err, unix.EBUSY) {
			loopBusyRetries.Add(1)
			lf.Close() // someone else configured it first
			lastErr = err
			continue
		}
		if err != nil {
			lf.Close()
			return nil, configureErr(path, backing, opts, err)
		}
		l := &Loop{n: n, path: path, backing: backing, canon: canonical(backing), f: lf}
		if opts.DirectIO {
			info, err := unix.IoctlLoopGetStatus64(int(lf.Fd()))
			if err != nil {
				l.Detach()
				return nil, fmt.Errorf("engines: loop: LOOP_GET_STATUS64 %s: %w", path, err)
			}
			if info.Flags&unix.LO_FLAGS_DIRECT_IO == 0 {
				l.Detach()
				return nil, fmt.Errorf("engines: loop: %w: the kernel attached %s to %s with buffered I/O: "+
					"the backing file system cannot do direct I/O at the loop block size %d",
					ErrNoDirectIO, backing, path, opts.BlockSize)
			}
		}
		return l, nil
	}
	return nil, fmt.Errorf("engines: loop: no free loop device after %d tries (other processes took each one): %w", loopAttachTries, lastErr)
}

func configureErr(path, backing string, opts LoopOptions, err error) error {
	if errors.Is(err, unix.EINVAL) {
		if opts.BlockSize != 0 {
			return fmt.Errorf("engines: loop: LOOP_CONFIGURE %s over %s: %w: block size %d must be a power of two "+
				"from 512 to the page size, and not smaller than the backing file's direct-I/O alignment",
				path, backing, err, opts.BlockSize)
		}
		if opts.DirectIO {
			return fmt.Errorf("engines: loop: LOOP_CONFIGURE %s over %s: %w: %w", path, backing, ErrNoDirectIO, err)
		}
	}
	if errors.Is(err, unix.ENOTTY) {
		return fmt.Errorf("engines: loop: LOOP_CONFIGURE %s: %w: %w (Linux < 5.8)", path, ErrUnsupported, err)
	}
	return fmt.Errorf("engines: loop: LOOP_CONFIGURE %s over %s: %w", path, backing, err)
}

// Path is the device node, e.g. /dev/loop3.
func (l *Loop) Path() string { return l.path }

// Number is the loop device's minor number N in /dev/loopN.
func (l *Loop) Number() int { return l.n }

// Backing is the file the device was attached to.
func (l *Loop) Backing() string { return l.backing }

// sysBacking is the sysfs file that exists while the device is bound.
func (l *Loop) sysBacking() string {
	return kernelfs.Default().SysPath("block", "loop"+strconv.Itoa(l.n), "loop", "backing_file")
}

// canonical is path as the kernel's d_path prints it, as far as it can be
// known from user space.
func canonical(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}

// Bound reports whether the device is still attached to this Loop's backing
// file. After Detach it turns false; the same device number may by then be
// attached to another file by someone else, which does not count.
func (l *Loop) Bound() bool {
	b, err := os.ReadFile(l.sysBacking())
	if err != nil {
		return false
	}
	// A deleted backing file reads as "<path> (deleted)".
	got := strings.TrimSuffix(strings.TrimSpace(string(b)), deletedSuffix)
	return got == l.canon
}

// ErrNotBound: the loop device is attached to no file.
var ErrNotBound = errors.New("loop device not attached to a file")

// OpenLoop opens the attached loop device at path (/dev/loopN), whoever
// attached it, to look at it and, if the caller so decides, Detach it.
// Backing, BackingDeleted and BackingID are read after the device is
// open, and while the Loop holds it open the device stays attached to that
// file (a detach by another process waits for the last close): a Detach
// after checking them detaches that binding, never a later one. Close lets
// go without detaching. A device attached to no file fails with
// ErrNotBound. Needs root.
func OpenLoop(path string) (*Loop, error) {
	num, ok := strings.CutPrefix(filepath.Base(path), "loop")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 {
		return nil, fmt.Errorf("engines: loop: %s is not a loop device path (/dev/loopN)", path)
	}
	// Read-only: a writer's close makes udev probe the device again.
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("engines: loop: %w", err)
	}
	l := &Loop{n: n, path: path, f: f}
	if _, err := unix.IoctlLoopGetStatus64(int(f.Fd())); err != nil {
		f.Close()
		if errors.Is(err, unix.ENXIO) {
			return nil, fmt.Errorf("engines: loop: %s: %w", path, ErrNotBound)
		}
		return nil, fmt.Errorf("engines: loop: LOOP_GET_STATUS64 %s: %w", path, err)
	}
	b, err := os.ReadFile(l.sysBacking())
	if err != nil {
		f.Close()
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("engines: loop: %s: %w", path, ErrNotBound)
		}
		return nil, fmt.Errorf("engines: loop: %w", err)
	}
	l.canon = strings.TrimSuffix(strings.TrimSpace(string(b)), deletedSuffix)
	l.backing = l.canon
	return l, nil
}

// deletedSuffix ends the kernel's name of a backing file that was removed.
const deletedSuffix = " (deleted)"

// BackingDeleted reports whether the backing file was removed while the
// device was attached (the kernel then names it "<path> (deleted)").
func (l *Loop) BackingDeleted() bool {
	b, err := os.ReadFile(l.sysBacking())
	return err == nil && strings.HasSuffix(strings.TrimSpace(string(b)), deletedSuffix)
}

// BackingID returns the device number and inode of the backing file
// (LOOP_GET_STATUS64), to compare with what os.Stat says of a path: the
// name the kernel prints is the file's path in the mount namespace of the
// reader, which need not be the file at that path here.
func (l *Loop) BackingID() (dev, ino uint64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.detached || l.closed {
		return 0, 0, fmt.Errorf("engines: loop: %s: %w", l.path, os.ErrClosed)
	}
	info, err := unix.IoctlLoopGetStatus64(int(l.f.Fd()))
	if err != nil {
		if errors.Is(err, unix.ENXIO) {
			err = ErrNotBound
		}
		return 0, 0, fmt.Errorf("engines: loop: LOOP_GET_STATUS64 %s: %w", l.path, err)
	}
	return info.Device, info.Inode, nil
}

// Close lets go of the device without detaching it; Detach after Close
// fails. A device attached with AutoClear detaches now if no one else
// holds it open. Close after Detach, or twice, does nothing.
func (l *Loop) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.detached || l.closed {
		return nil
	}
	l.closed = true
	return l.f.Close()
}

// Detach detaches the device (LOOP_CLR_FD) and waits until it has let go of
// its backing file. While another process (udev, blkid) holds the device open,
// the kernel defers the detach to the last close; older kernels answer EBUSY
// instead, which is retried for a short while. Detach is idempotent.
func (l *Loop) Detach() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.detached {
		return nil
	}
	if l.closed {
		return fmt.Errorf("engines: loop: detach %s: %w", l.path, os.ErrClosed)
	}
	var err error
	for range loopDetachTries {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, l.f.Fd(), unix.LOOP_CLR_FD, 0)
		if errno == 0 || errno == unix.ENXIO { // ENXIO: already unbound
			err = nil
			break
		}
		err = errno
		if errno != unix.EBUSY && errno != unix.EINTR {
			break
		}
		time.Sleep(loopRetryPause)
	}
	if err != nil {
		return fmt.Errorf("engines: loop: detach %s: %w", l.path, err)
	}
	l.f.Close()
	l.detached = true
	deadline := time.Now().Add(loopGoneWait)
	for {
		if !l.Bound() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("engines: loop: %s still bound to %s %v after detach: another process holds it open; "+
				"it detaches when that process closes it", l.path, l.backing, loopGoneWait)
		}
		time.Sleep(loopRetryPause)
	}
}
