// Package replay shows recorded /proc, /sys and /dev trees to sysstat's
// iostat, and to this module's, one sample at a time: the trees of
// sysstat's own test suite (tests/root1 ... root7, each one sample of a
// machine) become the successive readings of one run.
//
// A Tree is a directory holding proc/, sys/ and dev/, whose entries lead
// through the link "cur" to the sample shown now; Next moves the link,
// atomically, to the following sample. This module's iostat reads the
// tree through its --proc, --sys and --dev roots; sysstat's is started by
// Sysstat in a private mount namespace where the tree's directories are
// bind-mounted over /proc, /sys and /dev, and the tree moves to the next
// sample each time iostat has read one and gone to sleep.
//
// Device nodes cannot be recorded in a repository (sysstat's fixtures
// hold "MAJOR MINOR" text in their place), so NewTree makes them with
// mknod(2), which takes root; without root the tree has none.
package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procFiles and sysDirs are what iostat reads of a sample; each is a link
// into the current sample.
var (
	procFiles = []string{"uptime", "stat", "diskstats", "devices"}
	sysDirs   = []string{"block", "dev", "devices", "class"}
)

// Tree shows one of several recorded samples at a time.
type Tree struct {
	// Dir holds proc, sys, dev and the link cur.
	Dir   string
	roots []string
	k     int // index of the sample shown
	// Nodes reports whether dev/ holds device nodes (made as root).
	Nodes bool
}

// NewTree makes a tree in dir (which must exist and be empty) over the
// sample roots, in order. Each root has proc/, sys/ and dev/ as sysstat's
// tests/rootN do. Device nodes are made from the "MAJOR MINOR" files
// under each root's dev/ (the first root that has a name wins), and the
// links of dev/mapper are copied; dev/disk leads to the current sample's.
func NewTree(dir string, roots []string) (*Tree, error) {
	if len(roots) == 0 {
		return nil, errors.New("replay: no samples")
	}
	t := &Tree{Dir: dir, Nodes: true}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		t.roots = append(t.roots, abs)
	}
	for _, d := range []string{"proc", "sys", "dev"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	if err := t.point(0); err != nil {
		return nil, err
	}
	cur := filepath.Join(dir, "cur")
	for _, f := range procFiles {
		if err := os.Symlink(filepath.Join(cur, "proc", f), filepath.Join(dir, "proc", f)); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	for _, d := range sysDirs {
		if err := os.Symlink(filepath.Join(cur, "sys", d), filepath.Join(dir, "sys", d)); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	if err := os.Symlink(filepath.Join(cur, "dev", "disk"), filepath.Join(dir, "dev", "disk")); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for _, r := range t.roots {
		if err := t.makeDev(filepath.Join(r, "dev")); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *Tree) makeDev(src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel == "disk" {
				return filepath.SkipDir // a link to the current sample's
			}
			return os.MkdirAll(filepath.Join(t.Dir, "dev", rel), 0o755)
		}
		dst := filepath.Join(t.Dir, "dev", rel)
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var maj, minr uint32
		if _, err := fmt.Sscanf(string(b), "%d %d", &maj, &minr); err != nil {
			return nil // not a device's numbers
		}
		if !t.Nodes {
			return nil
		}
		err = syscall.Mknod(dst, syscall.S_IFBLK|0o600, int(mkdev(maj, minr)))
		if errors.Is(err, syscall.EPERM) {
			t.Nodes = false
			return nil
		}
		if err != nil {
			return fmt.Errorf("replay: mknod %s: %w", dst, err)
		}
		return nil
	})
}

// mkdev is glibc's makedev.
func mkdev(major, minor uint32) uint64 {
	m, n := uint64(major), uint64(minor)
	return m&0xfff<<8 | m&^0xfff<<32 | n&0xff | n&^0xff<<12
}

// Proc, Sys and Dev are the roots to read the tree through.
func (t *Tree) Proc() string { return filepath.Join(t.Dir, "proc") }
func (t *Tree) Sys() string  { return filepath.Join(t.Dir, "sys") }
func (t *Tree) Dev() string  { return filepath.Join(t.Dir, "dev") }

// Samples is the number of samples; Shown the index of the one shown.
func (t *Tree) Samples() int { return len(t.roots) }
func (t *Tree) Shown() int   { return t.k }

// Next shows the following sample and reports whether there was one; past
// the last, the last stays.
func (t *Tree) Next() (bool, error) {
	if t.k+1 >= len(t.roots) {
		return false, nil
	}
	return true, t.point(t.k + 1)
}

// Reset shows the first sample again.
func (t *Tree) Reset() error { return t.point(0) }

// point moves the link cur to sample k by renaming a new link over it, so
// a reader sees the old sample or the new one, never neither.
func (t *Tree) point(k int) error {
	tmp := filepath.Join(t.Dir, "cur.new")
	os.Remove(tmp)
	if err := os.Symlink(t.roots[k], tmp); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(t.Dir, "cur")); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	t.k = k
	return nil
}

// pauseSyscall is pause(2) on x86-64, where iostat sleeps between samples.
const pauseSyscall = 34

// Sysstat runs sysstat's iostat with args over the tree, from its first
// sample, and returns its standard output. env is added to LC_ALL=C and
// S_COLORS=never. Each time iostat has read a sample and sleeps in
// pause(2) until its next interval, the tree moves to the next sample, so
// iostat must be given an interval of one second or more. Needs root (a
// mount namespace) and util-linux's unshare; the context bounds the run.
func (t *Tree) Sysstat(ctx context.Context, env []string, args ...string) ([]byte, error) {
	if err := t.Reset(); err != nil {
		return nil, err
	}
	script := `mount --bind "$0/sys" /sys && mount --bind "$0/dev" /dev && mount --bind "$0/proc" /proc && exec iostat "$@"`
	cmd := exec.CommandContext(ctx, "unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, t.Dir}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "S_COLORS=never"}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	lastSwitches := int64(-1)
	tick := time.NewTicker(5 * time.Millisecond) // far below the 1 s interval
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return stdout.Bytes(), fmt.Errorf("replay: %v: %w\n%s", cmd.Args, err, stderr.Bytes())
			}
			return stdout.Bytes(), nil
		case <-tick.C:
		}
		// iostat has read a sample when it sleeps in pause(2) after a
		// voluntary switch not seen before (each sleep is one).
		if sw, ok := pausedIostat(pid); ok && sw != lastSwitches {
			lastSwitches = sw
			if _, err := t.Next(); err != nil {
				cmd.Process.Kill()
				<-done
				return nil, err
			}
		}
	}
}

// pausedIostat reports whether process pid is iostat asleep in pause(2),
// with its count of voluntary context switches.
func pausedIostat(pid int) (int64, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	comm, err := os.ReadFile(filepath.Join(dir, "comm"))
	if err != nil || strings.TrimSpace(string(comm)) != "iostat" {
		return 0, false
	}
	sc, err := os.ReadFile(filepath.Join(dir, "syscall"))
	if err != nil {
		return 0, false
	}
	nr, _, _ := strings.Cut(strings.TrimSpace(string(sc)), " ")
	if nr != strconv.Itoa(pauseSyscall) {
		return 0, false
	}
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
