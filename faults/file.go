package faults

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"stortest.dev/engines"
	"stortest.dev/internal/kernelfs"
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
//
// The file system is served by a child process (this program, started
// again; see Serve), never by the process that calls Serve: that process
// may then run any engine on the file or a loop device over it,
// memory-mapped I/O included.
type File struct {
	mnt  string
	path string
	size int64

	ctl    sync.Mutex // one request to the server at a time
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *tailBuffer
	exited chan struct{} // closed when the server has exited
	last   Stats         // the latest counts the server gave

	mu     sync.Mutex
	loops  []*engines.Loop
	closed bool
}

// fileName is the file's name in the mount point.
const fileName = "disk.img"

// serverWait bounds the waits for the server process: for its mount, an
// answer, its exit. A server that takes longer is stuck, and is killed.
const serverWait = 30 * time.Second

// Serve mounts a FUSE file system holding one file (Path) and serves it
// until Close. Every open of the file uses FUSE direct I/O, so each read
// and write (also those of a loop device over it) reaches the rules: the
// kernel caches none of its pages. Needs root (the file system is mounted
// with mount(2), without fusermount) and /dev/fuse; ErrNoFUSE says why
// when they are missing.
//
// The server is a child process: the running program, executed again
// from /proc/self/exe, which this package's init turns into the server
// before main runs (so it works in any program that imports faults, test
// binaries included). It ignores SIGINT and SIGTERM and ends when Close
// tells it to, or when its parent is gone, even killed with SIGKILL: then
// it answers the stalled requests and unmounts, and a loop device from
// AttachLoop detaches itself (LO_FLAGS_AUTOCLEAR) as the dead parent's
// descriptors close.
func Serve(o FileOptions) (*File, error) {
	if err := o.Rules.validate(); err != nil {
		return nil, err
	}
	cfg := serveConfig{Rules: append(Rules(nil), o.Rules...)}
	switch {
	case o.Backing != "":
		st, err := os.Stat(o.Backing)
		if err != nil {
			return nil, fmt.Errorf("faults: backing file: %w", err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: backing file %s is not a regular file (mode %v)", ErrConfig, o.Backing, st.Mode())
		}
		abs, err := filepath.Abs(o.Backing)
		if err != nil {
			return nil, fmt.Errorf("faults: backing file: %w", err)
		}
		cfg.Backing = abs
	case o.Size > 0:
		cfg.Size = o.Size
	default:
		return nil, fmt.Errorf("%w: want a Size > 0 or a Backing file", ErrConfig)
	}
	if _, err := os.Stat(kernelfs.Default().DevPath("fuse")); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoFUSE, err)
	}
	mnt, err := os.MkdirTemp(o.Dir, "stortest-faults-*")
	if err != nil {
		return nil, fmt.Errorf("faults: mount point: %w", err)
	}
	if mnt, err = filepath.Abs(mnt); err != nil {
		return nil, fmt.Errorf("faults: mount point: %w", err)
	}
	cfg.Mountpoint = mnt
	f := &File{mnt: mnt, path: filepath.Join(mnt, fileName), stderr: &tailBuffer{max: 4 << 10}, exited: make(chan struct{})}
	if err := f.start(cfg); err != nil {
		os.Remove(mnt)
		return nil, err
	}
	return f, nil
}

// start runs the server process and waits for its mount.
func (f *File) start(cfg serveConfig) error {
	cmd := exec.Command(kernelfs.Default().ProcPath("self", "exe"))
	cmd.Args = []string{os.Args[0]}
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	cmd.Stderr = f.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("faults: server: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("faults: server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("faults: start the server process: %w", err)
	}
	f.cmd, f.in = cmd, in
	f.out = bufio.NewScanner(out)
	f.out.Buffer(make([]byte, 64<<10), 16<<20)
	go func() {
		cmd.Wait()
		close(f.exited)
	}()
	b, err := json.Marshal(cfg)
	if err != nil {
		f.kill()
		return fmt.Errorf("faults: server: %w", err)
	}
	r, err := f.exchange(b)
	if err == nil && r.Err != "" {
		err = errors.New(r.Err)
		if r.NoFUSE {
			err = fmt.Errorf("%w: %s", ErrNoFUSE, strings.TrimPrefix(r.Err, ErrNoFUSE.Error()+": "))
		}
	}
	if err != nil {
		f.kill()
		return err
	}
	f.size = r.Size
	return nil
}

// exchange sends one line to the server and reads its answer, within
// serverWait; the caller holds f.ctl or is the only user yet.
func (f *File) exchange(line []byte) (reply, error) {
	type result struct {
		r   reply
		err error
	}
	done := make(chan result, 1)
	go func() {
		if _, err := f.in.Write(append(line, '\n')); err != nil {
			done <- result{err: err}
			return
		}
		if !f.out.Scan() {
			err := f.out.Err()
			if err == nil {
				err = io.EOF
			}
			done <- result{err: err}
			return
		}
		var r reply
		err := json.Unmarshal(f.out.Bytes(), &r)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return reply{}, f.serverErr(res.err)
		}
		return res.r, nil
	case <-time.After(serverWait):
		f.kill()
		return reply{}, f.serverErr(fmt.Errorf("no answer in %v", serverWait))
	}
}

// serverErr describes a failed exchange with what the server printed.
func (f *File) serverErr(err error) error {
	select {
	case <-f.exited:
		err = fmt.Errorf("exited (%v): %w", f.cmd.ProcessState, err)
	case <-time.After(100 * time.Millisecond):
	}
	if msg := strings.TrimSpace(f.stderr.String()); msg != "" {
		return fmt.Errorf("faults: server process for %s: %w; it printed: %s", f.mnt, err, msg)
	}
	return fmt.Errorf("faults: server process for %s: %w", f.mnt, err)
}

// request sends a request and returns the server's answer.
func (f *File) request(req request) (reply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return reply{}, fmt.Errorf("faults: %w", err)
	}
	f.ctl.Lock()
	defer f.ctl.Unlock()
	select {
	case <-f.exited:
		return reply{}, f.serverErr(errors.New("not running"))
	default:
	}
	r, err := f.exchange(b)
	if err == nil && r.Err != "" {
		err = errors.New(r.Err)
	}
	return r, err
}

// kill ends the server process and waits for it.
func (f *File) kill() {
	if f.cmd != nil && f.cmd.Process != nil {
		f.cmd.Process.Kill()
		<-f.exited
	}
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
	_, err := f.request(request{Op: "rules", Rules: rs})
	return err
}

// Release ends every stall now and makes later stalls end at once: the
// requests are answered (with their rule's errno, if any).
func (f *File) Release() { f.request(request{Op: "release"}) }

// Stats returns the counts so far; after Close, or when the server
// cannot answer, the last counts it gave.
func (f *File) Stats() Stats {
	r, err := f.request(request{Op: "stats"})
	f.ctl.Lock()
	defer f.ctl.Unlock()
	if err == nil && r.Stats != nil {
		f.last = *r.Stats
	}
	return f.last
}

// AttachLoop attaches a loop device over the file (engines.AttachLoop,
// always with AutoClear: should this process die, the device detaches
// itself); Close detaches it. The kernel's loop driver then turns every
// failed request into a failed block I/O, so the block layer's error
// paths reach any engine on the device. Loop direct I/O (opts.DirectIO)
// over FUSE depends on the kernel; without it the loop's requests still
// reach the rules, since the file is opened with FUSE direct I/O.
func (f *File) AttachLoop(opts engines.LoopOptions) (*engines.Loop, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fmt.Errorf("faults: attach loop: %s is closed", f.path)
	}
	opts.AutoClear = true
	l, err := engines.AttachLoop(f.path, opts)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	f.loops = append(f.loops, l)
	return l, nil
}

// Close releases stalls, detaches the loop devices AttachLoop made,
// unmounts the file system (lazily, MNT_DETACH, if something still holds
// it open), ends the server process and removes the mount point. It is
// safe to call more than once.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.Stats() // keep the final counts
	var errs []error
	// Answer stalled requests first: a loop device detaches only once its
	// requests are done. A server that died cannot answer; its requests
	// failed with it.
	f.Release()
	for _, l := range f.loops {
		if err := l.Detach(); err != nil {
			errs = append(errs, err)
		}
	}
	f.loops = nil
	if _, err := f.request(request{Op: "close"}); err != nil {
		errs = append(errs, err)
	}
	f.in.Close() // a server that missed "close" ends on its stdin
	select {
	case <-f.exited:
	case <-time.After(serverWait):
		f.kill()
		errs = append(errs, fmt.Errorf("faults: server process for %s did not exit in %v; killed", f.mnt, serverWait))
	}
	if f.Mounted() {
		// The server died or could not unmount: unmount lazily here, the
		// kernel finishes when the last user closes the file.
		if err := syscall.Unmount(f.mnt, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("faults: unmount %s: %w", f.mnt, err))
		}
	}
	if err := os.Remove(f.mnt); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("faults: %w", err))
	}
	return errors.Join(errs...)
}

// Mounted reports whether the file system is still mounted, from
// /proc/self/mountinfo.
func (f *File) Mounted() bool {
	b, err := os.ReadFile(kernelfs.Default().ProcPath("self", "mountinfo"))
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

// tailBuffer keeps the last max bytes written to it: the server's
// stderr, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

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

// ServeLoop serves a faulty file (Serve) and attaches a loop device over
// it (AttachLoop); when the loop cannot be attached it closes the file
// and returns the error.
func ServeLoop(o FileOptions, lo engines.LoopOptions) (*File, *engines.Loop, error) {
	f, err := Serve(o)
	if err != nil {
		return nil, nil, err
	}
	l, err := f.AttachLoop(lo)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, l, nil
}
