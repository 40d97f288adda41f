// Package blkio makes throw-away cgroup v1 blkio groups that throttle
// chosen threads' I/O to a device: a real way to make a device slower on
// purpose, for tests of what stortest reports about a slow device.
//
// cgroup v1 places threads, not processes, so one I/O thread can be
// throttled while the rest of the process is not; cgroup v2's io
// controller cannot do that.
package blkio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/kernelfs"
)

// Root is where cgroup v1's blkio hierarchy is mounted.
const Root = "/sys/fs/cgroup/blkio"

// ErrUnavailable means this machine has no cgroup v1 blkio throttling.
var ErrUnavailable = errors.New("blkio: no cgroup v1 blkio throttling at " + Root + " (cgroup v2's io controller cannot hold a single thread)")

// Available reports whether throttling is possible here.
func Available() error {
	if _, err := os.Stat(filepath.Join(Root, "blkio.throttle.read_iops_device")); err != nil {
		return ErrUnavailable
	}
	return nil
}

// Group is a blkio cgroup, a child of the process's own.
type Group struct {
	Dir    string
	Parent string // the process's own group, where threads go back
}

// New creates a child of the process's own blkio group named
// <prefix>-<pid>-<nanoseconds>.
func New(prefix string) (*Group, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	parent := filepath.Join(Root, ownPath())
	sweep(parent)
	g := &Group{Parent: parent, Dir: filepath.Join(parent, fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano()))}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("blkio: %w", err)
	}
	return g, nil
}

// sweep removes the groups that processes since gone made under parent
// and could not remove (killed, or stopped by a test's timeout before
// its cleanup ran): a group of New's naming, <prefix>-<pid>-<ns> with a
// prefix starting "stortest", whose pid is no longer alive and which
// holds no process. rmdir fails on a group still in use, so nothing
// running is touched; errors are ignored, the group is left as it was.
func sweep(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, ok := groupPID(e.Name())
		if !e.IsDir() || !ok || pid == os.Getpid() || unix.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		_ = os.Remove(filepath.Join(parent, e.Name()))
	}
}

// groupPID is the pid in the name of a group New made, and whether the
// name is one.
func groupPID(name string) (int, bool) {
	f := strings.Split(name, "-")
	if len(f) < 3 || !strings.HasPrefix(name, "stortest") {
		return 0, false
	}
	if _, err := strconv.ParseInt(f[len(f)-1], 10, 64); err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(f[len(f)-2])
	return pid, err == nil && pid > 0
}

// ownPath is this process's blkio group, from /proc/self/cgroup.
func ownPath() string {
	b, err := os.ReadFile(kernelfs.Default().ProcPath("self", "cgroup"))
	if err != nil {
		return "/"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "blkio") {
			return parts[2]
		}
	}
	return "/"
}

// AddThread moves thread tid into the group.
func (g *Group) AddThread(tid int) error {
	return os.WriteFile(filepath.Join(g.Dir, "tasks"), []byte(strconv.Itoa(tid)), 0)
}

// Command is exec.Command(name, args...) run inside the group: a shell
// moves itself in, then execs name, so every process and thread it
// starts is throttled from its first I/O.
func (g *Group) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, g.Dir, name}, args...)...)
}

// SetReadIOPS limits the group's reads from device dev ("MAJ:MIN") to
// iops per second; 0 removes the limit.
func (g *Group) SetReadIOPS(dev string, iops int) error {
	return os.WriteFile(filepath.Join(g.Dir, "blkio.throttle.read_iops_device"), fmt.Appendf(nil, "%s %d", dev, iops), 0)
}

// ServicedReads is the group's count of reads from dev that went through
// the throttle.
func (g *Group) ServicedReads(dev string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(g.Dir, "blkio.throttle.io_serviced"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line) // "7:3 Read 1234"
		if len(f) == 3 && f[0] == dev && f[1] == "Read" {
			return strconv.ParseUint(f[2], 10, 64)
		}
	}
	return 0, nil
}

// Remove moves any thread still inside back to the parent (a thread that
// exited meanwhile is gone) and removes the group with its limits.
func (g *Group) Remove() error {
	var errs []error
	if tasks, err := os.ReadFile(filepath.Join(g.Dir, "tasks")); err == nil {
		for _, tid := range strings.Fields(string(tasks)) {
			if err := os.WriteFile(filepath.Join(g.Parent, "tasks"), []byte(tid), 0); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("blkio: move thread %s back to %s: %w", tid, g.Parent, err))
			}
		}
	}
	var rmErr error
	for range 50 { // a thread leaving is asynchronous for rmdir: EBUSY for a moment
		if rmErr = os.Remove(g.Dir); rmErr == nil || errors.Is(rmErr, os.ErrNotExist) {
			return errors.Join(errs...)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.Join(append(errs, fmt.Errorf("blkio: remove %s: %w", g.Dir, rmErr))...)
}

// DevNumber is the "MAJ:MIN" of a block device node, as the throttle
// files want it.
func DevNumber(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("blkio: %s is not a block device", path)
	}
	return fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)), nil
}
