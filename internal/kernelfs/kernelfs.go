// Package kernelfs is the one seam between stortest and the kernel's
// trees: /proc, /sys and /dev. Every reader of a kernel file goes through
// an FS, so that a test roots it at a captured fixture (testdata/proc,
// testdata/sys, testdata/dev) instead of the running kernel, as
// prometheus/procfs's FS does.
//
// The zero FS is the running kernel's: /proc, /sys and /dev.
package kernelfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The running kernel's roots.
const (
	Proc = "/proc"
	Sys  = "/sys"
	Dev  = "/dev"
)

// FS is where the proc, sys and dev trees are. An empty root is the
// running kernel's.
type FS struct {
	proc, sys, dev string
}

// Default returns the running kernel's FS (the zero FS).
func Default() FS { return FS{} }

// At returns an FS rooted at proc, sys and dev; an empty root stands for
// the running kernel's. Nothing is checked: see New.
func At(proc, sys, dev string) FS { return FS{proc: proc, sys: sys, dev: dev} }

// New returns an FS rooted at proc, sys and dev, each of which must be a
// directory (an empty root is the running kernel's and is not checked).
func New(proc, sys, dev string) (FS, error) {
	for _, d := range []string{proc, sys, dev} {
		if d == "" {
			continue
		}
		st, err := os.Stat(d)
		if err != nil {
			return FS{}, err
		}
		if !st.IsDir() {
			return FS{}, fmt.Errorf("%s: not a directory", d)
		}
	}
	return At(proc, sys, dev), nil
}

// WithDev returns f with its dev root at dev ("" is /dev).
func (f FS) WithDev(dev string) FS {
	f.dev = dev
	return f
}

// ProcRoot is f's proc root.
func (f FS) ProcRoot() string { return or(f.proc, Proc) }

// SysRoot is f's sys root.
func (f FS) SysRoot() string { return or(f.sys, Sys) }

// DevRoot is f's dev root.
func (f FS) DevRoot() string { return or(f.dev, Dev) }

// ProcPath joins rel to the proc root: ProcPath("self", "mountinfo").
func (f FS) ProcPath(rel ...string) string { return join(f.ProcRoot(), rel) }

// SysPath joins rel to the sys root: SysPath("block", "loop0", "size").
func (f FS) SysPath(rel ...string) string { return join(f.SysRoot(), rel) }

// DevPath joins rel to the dev root: DevPath("loop0").
func (f FS) DevPath(rel ...string) string { return join(f.DevRoot(), rel) }

// ReadString reads a one-value kernel file (a sysfs attribute, a
// /proc/sys setting) and returns its text with the surrounding white
// space trimmed.
func ReadString(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadInt reads a kernel file holding one decimal integer; the error
// names the file and the text when it holds something else.
func ReadInt(path string) (int64, error) {
	s, err := ReadString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", path, s)
	}
	return v, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func join(root string, rel []string) string {
	return filepath.Join(append([]string{root}, rel...)...)
}

// DevNumbers decodes Linux's dev_t (glibc's gnu_dev_major and
// gnu_dev_minor), as stat's st_dev and st_rdev hold it.
func DevNumbers(dev uint64) (major, minor uint32) {
	major = uint32((dev>>8)&0xfff | (dev>>32)&^0xfff)
	minor = uint32(dev&0xff | (dev>>12)&^0xff)
	return major, minor
}

// DevBlockPath is the sysfs directory of the block device numbered dev,
// <sys>/dev/block/MAJ:MIN, joined with rel: DevBlockPath(dev, "size").
// The join is lexical (filepath.Join), so ".." in rel is cleaned away
// rather than followed through the link: append "/../x" to the result
// for the parent the link leads to (a partition's disk).
func (f FS) DevBlockPath(dev uint64, rel ...string) string {
	major, minor := DevNumbers(dev)
	return f.SysPath(append([]string{"dev", "block", strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)}, rel...)...)
}
