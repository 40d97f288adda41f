package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"stortest.dev/engines"
)

// The file system is served by a child process: this program, started
// again with serverEnv set, which init below turns into the server
// before main runs. The process that runs the I/O must not serve it. Its
// engines issue transfers as raw system calls (see engines), so a thread
// blocked in one, waiting uninterruptibly for a loop device's request
// that the FUSE server has yet to answer, still counts as running; a
// garbage collection that starts meanwhile stops every other goroutine,
// the server's too, and waits for that thread forever. The same holds
// for a page fault on a memory mapping of the device. In its own process
// the server answers whatever the runner's process is doing.
//
// The parent talks to the server over its stdin and stdout, one JSON
// object per line: the configuration first (answered with the mount or
// an error), then requests, each answered in turn. The server ends when
// asked to, or when its stdin ends: the parent is gone (killed, even by
// SIGKILL), and the server unmounts and removes the mount point, so
// nothing is left.
const serverEnv = "STORTEST_FAULTS_SERVER"

func init() {
	if os.Getenv(serverEnv) != "1" {
		return
	}
	os.Unsetenv(serverEnv) // not for the server's own children
	os.Exit(serverMain(os.Stdin, os.Stdout))
}

// serveConfig is the server's first input line.
type serveConfig struct {
	Mountpoint string // an empty directory, made by the parent
	Size       int64  // served from memory, when Backing is ""
	Backing    string
	Rules      Rules
}

// request is a line to the server after the configuration.
type request struct {
	Op    string // "rules", "release", "stats", "close"
	Rules Rules  `json:",omitempty"`
}

// reply is the server's answer to the configuration or to a request.
type reply struct {
	Err    string `json:",omitempty"`
	NoFUSE bool   `json:",omitempty"` // Err is ErrNoFUSE's case
	Stats  *Stats `json:",omitempty"`
	Size   int64  `json:",omitempty"`
}

// serverMain serves the configuration read from in until told to close
// or until in ends, and returns the exit status.
func serverMain(in io.Reader, out io.Writer) int {
	// A terminal's Ctrl-C reaches the whole process group; the parent
	// decides when the server ends (it may still need the file to
	// unwind), so the server ends on its stdin only.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(out)
	if !sc.Scan() {
		return 1
	}
	var cfg serveConfig
	if err := json.Unmarshal(sc.Bytes(), &cfg); err != nil {
		enc.Encode(reply{Err: fmt.Sprintf("faults: server: configuration: %v", err)})
		return 1
	}
	s, err := mount(cfg)
	if err != nil {
		enc.Encode(reply{Err: err.Error(), NoFUSE: errors.Is(err, ErrNoFUSE)})
		return 1
	}
	enc.Encode(reply{Size: s.size})
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			enc.Encode(reply{Err: fmt.Sprintf("faults: server: request: %v", err)})
			continue
		}
		switch req.Op {
		case "rules":
			if err := req.Rules.validate(); err != nil {
				enc.Encode(reply{Err: err.Error()})
				continue
			}
			c := append(Rules(nil), req.Rules...)
			s.rules.Store(&c)
			enc.Encode(reply{})
		case "release":
			s.releaseStalls()
			enc.Encode(reply{})
		case "stats":
			st := s.stats()
			enc.Encode(reply{Stats: &st})
		case "close":
			err := s.shutdown()
			if err != nil {
				enc.Encode(reply{Err: err.Error()})
				return 1
			}
			enc.Encode(reply{})
			return 0
		default:
			enc.Encode(reply{Err: fmt.Sprintf("faults: server: unknown request %q", req.Op)})
		}
	}
	// The parent is gone: leave nothing mounted, and no mount point.
	err = s.shutdown()
	if rerr := os.Remove(cfg.Mountpoint); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, fmt.Errorf("faults: %w", rerr))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// server is the served file system, in the server process.
type server struct {
	mnt     string
	size    int64
	fuse    *fuse.Server
	mem     []byte // in-memory contents, or nil with a backing file
	memMu   sync.RWMutex
	backing *os.File

	rules   atomic.Pointer[Rules]
	release chan struct{} // closed by releaseStalls
	relOnce sync.Once

	reads, writes, fsyncs, errs, stalls atomic.Uint64
}

// mount opens the contents and mounts the file system on cfg.Mountpoint.
func mount(cfg serveConfig) (*server, error) {
	s := &server{mnt: cfg.Mountpoint, release: make(chan struct{})}
	if cfg.Backing != "" {
		b, err := os.OpenFile(cfg.Backing, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("faults: backing file: %w", err)
		}
		st, err := b.Stat()
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("faults: backing file: %w", err)
		}
		s.backing, s.size = b, st.Size()
	} else {
		s.mem, s.size = make([]byte, cfg.Size), cfg.Size
	}
	rules := append(Rules(nil), cfg.Rules...)
	s.rules.Store(&rules)
	root := &fs.Inode{}
	zero := time.Duration(0)
	fsrv, err := fs.Mount(cfg.Mountpoint, root, &fs.Options{
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
			n := root.NewPersistentInode(ctx, &node{s: s}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
			root.AddChild(fileName, n, true)
		},
	})
	if err != nil {
		s.closeBacking()
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w: mount %s: %w (needs root and FUSE in the kernel)", ErrNoFUSE, cfg.Mountpoint, err)
		}
		return nil, fmt.Errorf("faults: mount %s: %w", cfg.Mountpoint, err)
	}
	s.fuse = fsrv
	return s, nil
}

func (s *server) releaseStalls() { s.relOnce.Do(func() { close(s.release) }) }

func (s *server) stats() Stats {
	return Stats{Reads: s.reads.Load(), Writes: s.writes.Load(), Fsyncs: s.fsyncs.Load(),
		Errors: s.errs.Load(), Stalls: s.stalls.Load()}
}

// shutdown answers the stalled requests and unmounts; lazily (MNT_DETACH)
// while something still holds the file open, such as a loop device its
// owner has yet to detach: the kernel then ends the mount with the last
// user, and requests that come meanwhile fail (the server is gone).
func (s *server) shutdown() error {
	s.releaseStalls()
	var err error
	if uerr := s.fuse.Unmount(); uerr != nil {
		if err2 := syscall.Unmount(s.mnt, syscall.MNT_DETACH); err2 != nil {
			err = fmt.Errorf("faults: unmount %s: %w, then lazily: %w", s.mnt, uerr, err2)
		}
	}
	s.closeBacking()
	return err
}

func (s *server) closeBacking() {
	if s.backing != nil {
		s.backing.Close()
	}
}

// apply runs the rule for a request, if any: stalls, then returns the
// errno to answer with (0 to go on).
func (s *server) apply(ctx context.Context, op engines.Op, off, n int64) syscall.Errno {
	r, ok := (*s.rules.Load()).Match(op, off, n)
	if !ok {
		return 0
	}
	if r.Stall > 0 {
		s.stalls.Add(1)
		t := time.NewTimer(r.Stall)
		select {
		case <-t.C:
		case <-s.release:
		case <-ctx.Done():
			t.Stop()
			return syscall.EINTR
		}
		t.Stop()
	}
	if r.Errno != 0 {
		s.errs.Add(1)
	}
	return r.Errno
}

// node is the served file.
type node struct {
	fs.Inode
	s *server
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
	out.Size = uint64(n.s.size)
	out.Blksize = 4096
	out.Blocks = (out.Size + 511) / 512
	out.Nlink = 1
	return 0
}

// Setattr accepts what does not change the file (times, owner) and
// refuses a new size: the file stands in for a device.
func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok && sz != uint64(n.s.size) {
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
	s := n.s
	s.reads.Add(1)
	if errno := s.apply(ctx, engines.OpRead, off, int64(len(dest))); errno != 0 {
		return nil, errno
	}
	if off >= s.size {
		return fuse.ReadResultData(nil), 0
	}
	dest = dest[:min(int64(len(dest)), s.size-off)]
	if s.backing != nil {
		k, err := s.backing.ReadAt(dest, off)
		if err != nil && k < len(dest) {
			return nil, syscall.EIO
		}
		return fuse.ReadResultData(dest[:k]), 0
	}
	s.memMu.RLock()
	copy(dest, s.mem[off:])
	s.memMu.RUnlock()
	return fuse.ReadResultData(dest), 0
}

func (n *node) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	s := n.s
	s.writes.Add(1)
	if errno := s.apply(ctx, engines.OpWrite, off, int64(len(data))); errno != 0 {
		return 0, errno
	}
	if off >= s.size {
		return 0, syscall.ENOSPC
	}
	data = data[:min(int64(len(data)), s.size-off)]
	if s.backing != nil {
		k, err := s.backing.WriteAt(data, off)
		if err != nil {
			return uint32(k), syscall.EIO
		}
		return uint32(k), 0
	}
	s.memMu.Lock()
	copy(s.mem[off:], data)
	s.memMu.Unlock()
	return uint32(len(data)), 0
}

func (n *node) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	s := n.s
	s.fsyncs.Add(1)
	if errno := s.apply(ctx, engines.OpFsync, 0, 0); errno != 0 {
		return errno
	}
	if s.backing != nil && s.backing.Sync() != nil {
		return syscall.EIO
	}
	return 0
}

func (n *node) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno { return 0 }
