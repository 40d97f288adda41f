package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"stortest.dev/engines"
)

// Sentinel errors for errors.Is.
var (
	// ErrNoFUSE: the system cannot mount FUSE file systems here (no
	// /dev/fuse, not root, or FUSE is not in the kernel).
	ErrNoFUSE = errors.New("faults: FUSE is not available")
	// ErrConfig: bad FileOptions or rules.
	ErrConfig = errors.New("faults: invalid configuration")
)

// Rule makes requests for a byte range misbehave.
type Rule struct {
	engines.Range
	// Ops the rule applies to (read, write, fsync); 0 means reads and
	// writes. Fsync requests have no range: a rule with OpFsync in Ops
	// applies to every fsync, whatever its range.
	Ops engines.OpSet
	// Stall holds the request this long before it is answered (with
	// Errno, if set). Stalled requests end early when the File is
	// released or closed.
	Stall time.Duration
	// Errno fails the request; 0 lets it succeed (after Stall).
	Errno syscall.Errno
}

func (r Rule) ops() engines.OpSet {
	if r.Ops == 0 {
		return engines.OpsOf(engines.OpRead, engines.OpWrite)
	}
	return r.Ops
}

// String describes the rule: "read,write [4096, 8192): stall 2s, EIO".
func (r Rule) String() string {
	var ops []string
	for op := engines.OpRead; op <= engines.OpTrim; op++ {
		if r.ops().Has(op) {
			ops = append(ops, op.String())
		}
	}
	var what []string
	if r.Stall > 0 {
		what = append(what, "stall "+r.Stall.String())
	}
	if r.Errno != 0 {
		name := errnoName(r.Errno)
		what = append(what, name)
	}
	if len(what) == 0 {
		what = append(what, "no fault")
	}
	return strings.Join(ops, ",") + " " + r.Range.String() + ": " + strings.Join(what, ", ")
}

// Rules are checked in order; the first that matches a request applies.
type Rules []Rule

// Match returns the first rule for a request of op over [off, off+n).
func (rs Rules) Match(op engines.Op, off, n int64) (Rule, bool) {
	for _, r := range rs {
		if !r.ops().Has(op) {
			continue
		}
		if op == engines.OpFsync || op == engines.OpFdatasync || (n > 0 && off < r.Off+r.Len && r.Off < off+n) {
			return r, true
		}
	}
	return Rule{}, false
}

func (rs Rules) validate() error {
	for i, r := range rs {
		switch {
		case r.Off < 0 || r.Len <= 0:
			return fmt.Errorf("%w: rule %d: range offset %d length %d: want offset >= 0, length > 0", ErrConfig, i, r.Off, r.Len)
		case r.Stall < 0:
			return fmt.Errorf("%w: rule %d: negative stall %v", ErrConfig, i, r.Stall)
		case r.Errno > 4095:
			return fmt.Errorf("%w: rule %d: errno %d", ErrConfig, i, uint64(r.Errno))
		}
	}
	return nil
}

// FileOptions configure Serve.
type FileOptions struct {
	// Dir is where the mount point is created; "" means os.TempDir().
	Dir string
	// Size of the file in bytes, served from memory (zeros at first).
	// Ignored with Backing.
	Size int64
	// Backing, when set, is a regular file whose contents are served, read
	// and written through; its size is the file's size.
	Backing string
	Rules   Rules
}

// Stats count the requests the file served.
type Stats struct {
	Reads, Writes, Fsyncs uint64
	Errors                uint64 // requests failed by a rule
	Stalls                uint64 // requests stalled by a rule
}

// File is a file served through FUSE whose requests fail or stall where
// its rules say. Close it when done (t.Cleanup in tests): it detaches the
// loop devices it attached, unmounts and removes the mount point.
type File struct {
	mnt     string
	path    string
	size    int64
	server  *fuse.Server
	mem     []byte // in-memory contents, or nil with a backing file
	memMu   sync.RWMutex
	backing *os.File

	rules   atomic.Pointer[Rules]
	release chan struct{} // closed by Release
	relOnce sync.Once

	reads, writes, fsyncs, errs, stalls atomic.Uint64

	mu     sync.Mutex
	loops  []*engines.Loop
	closed bool
}

// fileName is the file's name in the mount point.
const fileName = "disk.img"

// Serve mounts a FUSE file system holding one file (Path) and serves it
// until Close. Every open of the file uses FUSE direct I/O, so each read
// and write (also those of a loop device over it) reaches the rules: the
// kernel caches none of its pages. Needs root (the file system is mounted
// with mount(2), without fusermount) and /dev/fuse; ErrNoFUSE says why
// when they are missing.
func Serve(o FileOptions) (*File, error) {
	if err := o.Rules.validate(); err != nil {
		return nil, err
	}
	f := &File{release: make(chan struct{})}
	switch {
	case o.Backing != "":
		if st, err := os.Stat(o.Backing); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: backing file %s is not a regular file (mode %v)", ErrConfig, o.Backing, st.Mode())
		}
		b, err := os.OpenFile(o.Backing, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("faults: backing file: %w", err)
		}
		st, err := b.Stat()
		if err != nil || !st.Mode().IsRegular() {
			b.Close()
			if err == nil {
				err = fmt.Errorf("mode %v", st.Mode())
			}
			return nil, fmt.Errorf("%w: backing file %s is not a regular file (%v)", ErrConfig, o.Backing, err)
		}
		f.backing, f.size = b, st.Size()
	case o.Size > 0:
		f.mem, f.size = make([]byte, o.Size), o.Size
	default:
		return nil, fmt.Errorf("%w: want a Size > 0 or a Backing file", ErrConfig)
	}
	rules := append(Rules(nil), o.Rules...)
	f.rules.Store(&rules)
	if _, err := os.Stat("/dev/fuse"); err != nil {
		f.closeBacking()
		return nil, fmt.Errorf("%w: %w", ErrNoFUSE, err)
	}
	mnt, err := os.MkdirTemp(o.Dir, "stortest-faults-*")
	if err != nil {
		f.closeBacking()
		return nil, fmt.Errorf("faults: mount point: %w", err)
	}
	f.mnt, f.path = mnt, filepath.Join(mnt, fileName)
	root := &fs.Inode{}
	zero := time.Duration(0)
	server, err := fs.Mount(mnt, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			DirectMountStrict: true, // mount(2): no fusermount needed as root
			FsName:            "stortest-faults",
			Name:              "stortest",
			MaxWrite:          1 << 20, // requests up to 1 MiB, as large as a loop device sends
			DisableXAttrs:     true,
			// Asynchronous direct I/O: a loop device's requests then run
			// concurrently, so a stalled one holds only itself, as on a
			// device with a queue; without it the loop worker waits for
			// each request in turn.
			ExtraCapabilities: fuse.CAP_ASYNC_DIO,
			MaxBackground:     128, // async requests in flight; the default 12 would queue the rest
		},
		// The size never changes; nothing to cache wrongly.
		AttrTimeout:  &zero,
		EntryTimeout: &zero,
		OnAdd: func(ctx context.Context) {
			n := root.NewPersistentInode(ctx, &node{f: f}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
			root.AddChild(fileName, n, true)
		},
	})
	if err != nil {
		os.Remove(mnt)
		f.closeBacking()
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w: mount %s: %w (needs root and FUSE in the kernel)", ErrNoFUSE, mnt, err)
		}
		return nil, fmt.Errorf("faults: mount %s: %w", mnt, err)
	}
	f.server = server
	return f, nil
}

// Path is the served file.
func (f *File) Path() string { return f.path }

// Mountpoint is the directory the file system is mounted on.
func (f *File) Mountpoint() string { return f.mnt }

// Size is the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// SetRules replaces the rules; requests already stalled keep their stall.
func (f *File) SetRules(rs Rules) error {
	if err := rs.validate(); err != nil {
		return err
	}
	c := append(Rules(nil), rs...)
	f.rules.Store(&c)
	return nil
}

// Release ends every stall now and makes later stalls end at once: the
// requests are answered (with their rule's errno, if any).
func (f *File) Release() { f.relOnce.Do(func() { close(f.release) }) }

// Stats returns the counts so far.
func (f *File) Stats() Stats {
	return Stats{Reads: f.reads.Load(), Writes: f.writes.Load(), Fsyncs: f.fsyncs.Load(),
		Errors: f.errs.Load(), Stalls: f.stalls.Load()}
}

// AttachLoop attaches a loop device over the file (engines.AttachLoop);
// Close detaches it. The kernel's loop driver then turns every failed
// request into a failed block I/O, so the block layer's error paths reach
// any engine on the device. Loop direct I/O (opts.DirectIO) over FUSE
// depends on the kernel; without it the loop's requests still reach the
// rules, since the file is opened with FUSE direct I/O.
func (f *File) AttachLoop(opts engines.LoopOptions) (*engines.Loop, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fmt.Errorf("faults: attach loop: %s is closed", f.path)
	}
	l, err := engines.AttachLoop(f.path, opts)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	f.loops = append(f.loops, l)
	return l, nil
}

// Close releases stalls, detaches the loop devices AttachLoop made,
// unmounts the file system (lazily, MNT_DETACH, if something still holds
// it open) and removes the mount point. It is safe to call more than once.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.Release()
	var errs []error
	for _, l := range f.loops {
		if err := l.Detach(); err != nil {
			errs = append(errs, err)
		}
	}
	f.loops = nil
	if err := f.server.Unmount(); err != nil {
		// Busy: unmount lazily, the kernel finishes when the last user
		// closes the file; the server answers until then.
		if err2 := syscall.Unmount(f.mnt, syscall.MNT_DETACH); err2 != nil {
			errs = append(errs, fmt.Errorf("faults: unmount %s: %w, then lazily: %w", f.mnt, err, err2))
		}
	}
	if err := os.Remove(f.mnt); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("faults: %w", err))
	}
	f.closeBacking()
	return errors.Join(errs...)
}

func (f *File) closeBacking() {
	if f.backing != nil {
		f.backing.Close()
	}
}

// Mounted reports whether the file system is still mounted, from
// /proc/self/mountinfo.
func (f *File) Mounted() bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(line); len(fields) > 4 && fields[4] == f.mnt {
			return true
		}
	}
	return false
}

// apply runs the rule for a request, if any: stalls, then returns the
// errno to answer with (0 to go on).
func (f *File) apply(ctx context.Context, op engines.Op, off, n int64) syscall.Errno {
	r, ok := (*f.rules.Load()).Match(op, off, n)
	if !ok {
		return 0
	}
	if r.Stall > 0 {
		f.stalls.Add(1)
		t := time.NewTimer(r.Stall)
		select {
		case <-t.C:
		case <-f.release:
		case <-ctx.Done():
			t.Stop()
			return syscall.EINTR
		}
		t.Stop()
	}
	if r.Errno != 0 {
		f.errs.Add(1)
	}
	return r.Errno
}

// node is the served file.
type node struct {
	fs.Inode
	f *File
}

var (
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeReader    = (*node)(nil)
	_ fs.NodeWriter    = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
	_ fs.NodeFlusher   = (*node)(nil)
)

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(n.f.size)
	out.Blksize = 4096
	out.Blocks = (out.Size + 511) / 512
	out.Nlink = 1
	return 0
}

// Setattr accepts what does not change the file (times, owner) and
// refuses a new size: the file stands in for a device.
func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok && sz != uint64(n.f.size) {
		return syscall.EPERM
	}
	return n.Getattr(ctx, fh, out)
}

// Open answers with FOPEN_DIRECT_IO: the kernel caches nothing, every
// read and write comes here.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	f := n.f
	f.reads.Add(1)
	if errno := f.apply(ctx, engines.OpRead, off, int64(len(dest))); errno != 0 {
		return nil, errno
	}
	if off >= f.size {
		return fuse.ReadResultData(nil), 0
	}
	dest = dest[:min(int64(len(dest)), f.size-off)]
	if f.backing != nil {
		k, err := f.backing.ReadAt(dest, off)
		if err != nil && k < len(dest) {
			return nil, syscall.EIO
		}
		return fuse.ReadResultData(dest[:k]), 0
	}
	f.memMu.RLock()
	copy(dest, f.mem[off:])
	f.memMu.RUnlock()
	return fuse.ReadResultData(dest), 0
}

func (n *node) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	f := n.f
	f.writes.Add(1)
	if errno := f.apply(ctx, engines.OpWrite, off, int64(len(data))); errno != 0 {
		return 0, errno
	}
	if off >= f.size {
		return 0, syscall.ENOSPC
	}
	data = data[:min(int64(len(data)), f.size-off)]
	if f.backing != nil {
		k, err := f.backing.WriteAt(data, off)
		if err != nil {
			return uint32(k), syscall.EIO
		}
		return uint32(k), 0
	}
	f.memMu.Lock()
	copy(f.mem[off:], data)
	f.memMu.Unlock()
	return uint32(len(data)), 0
}

func (n *node) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	f := n.f
	f.fsyncs.Add(1)
	if errno := f.apply(ctx, engines.OpFsync, 0, 0); errno != 0 {
		return errno
	}
	if f.backing != nil && f.backing.Sync() != nil {
		return syscall.EIO
	}
	return 0
}

func (n *node) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno { return 0 }

func errnoName(e syscall.Errno) string {
	if name := errnoNames[e]; name != "" {
		return name
	}
	return fmt.Sprintf("errno %d", uint64(e))
}

// errnoNames are the errnos a rule usually injects.
var errnoNames = map[syscall.Errno]string{
	syscall.EIO: "EIO", syscall.EILSEQ: "EILSEQ", syscall.ENOSPC: "ENOSPC", syscall.EROFS: "EROFS",
	syscall.ETIMEDOUT: "ETIMEDOUT", syscall.ENODATA: "ENODATA", syscall.EAGAIN: "EAGAIN", syscall.EBADMSG: "EBADMSG",
	syscall.EREMOTEIO: "EREMOTEIO", syscall.ENOLINK: "ENOLINK",
}
