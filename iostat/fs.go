package iostat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoDevice marks a block device name or number with no entry in sysfs.
var ErrNoDevice = errors.New("no such block device")

// FS reads block device statistics from a proc and a sys tree. Its roots
// are injectable so captured fixtures stand in for /proc and /sys.
type FS struct {
	proc, sys string
}

// NewFS returns an FS rooted at procRoot (normally "/proc") and sysRoot
// (normally "/sys"). Both must be directories.
func NewFS(procRoot, sysRoot string) (FS, error) {
	for _, d := range []string{procRoot, sysRoot} {
		st, err := os.Stat(d)
		if err != nil {
			return FS{}, fmt.Errorf("iostat: %w", err)
		}
		if !st.IsDir() {
			return FS{}, fmt.Errorf("iostat: %s: not a directory", d)
		}
	}
	return FS{proc: procRoot, sys: sysRoot}, nil
}

// DefaultFS reads the running kernel's /proc and /sys.
func DefaultFS() FS { return FS{proc: "/proc", sys: "/sys"} }

// ProcPath joins rel to the proc root.
func (f FS) ProcPath(rel ...string) string { return filepath.Join(append([]string{f.proc}, rel...)...) }

// SysPath joins rel to the sys root.
func (f FS) SysPath(rel ...string) string { return filepath.Join(append([]string{f.sys}, rel...)...) }

// Diskstats reads and parses <proc>/diskstats.
func (f FS) Diskstats() ([]DiskStat, error) {
	p := f.ProcPath("diskstats")
	fh, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("iostat: %w", err)
	}
	defer fh.Close()
	return ParseDiskstats(fh, p)
}

// Uptime reads <proc>/uptime in hundredths of a second.
func (f FS) Uptime() (uint64, error) {
	p := f.ProcPath("uptime")
	fh, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("iostat: %w", err)
	}
	defer fh.Close()
	return ParseUptime(fh, p)
}

// sysName is a kernel block device name as sysfs spells it ('/' -> '!').
func sysName(name string) string { return strings.ReplaceAll(name, "/", "!") }

// kernelName is the inverse of sysName.
func kernelName(name string) string { return strings.ReplaceAll(name, "!", "/") }

func (f FS) readStat(p string) (IOStats, error) {
	fh, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return IOStats{}, fmt.Errorf("iostat: %w: %w", ErrNoDevice, err)
		}
		return IOStats{}, fmt.Errorf("iostat: %w", err)
	}
	defer fh.Close()
	return ParseSysStat(fh, p)
}

// BlockStat reads <sys>/block/<dev>/stat for a whole device.
func (f FS) BlockStat(dev string) (IOStats, error) {
	return f.readStat(f.SysPath("block", sysName(dev), "stat"))
}

// PartitionStat reads <sys>/block/<disk>/<part>/stat.
func (f FS) PartitionStat(disk, part string) (IOStats, error) {
	return f.readStat(f.SysPath("block", sysName(disk), sysName(part), "stat"))
}

// devNumbers reads a sysfs "dev" file ("MAJ:MIN").
func (f FS) devNumbers(p string) (uint32, uint32, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, 0, fmt.Errorf("iostat: %w", err)
	}
	maj, minr, err := parseMajMin(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, 0, fmt.Errorf("iostat: parse %s line 1: %w", p, err)
	}
	return maj, minr, nil
}

func parseMajMin(s string) (uint32, uint32, error) {
	a, b, ok := strings.Cut(s, ":")
	maj, err1 := strconv.ParseUint(a, 10, 32)
	minr, err2 := strconv.ParseUint(b, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%w: %q: want MAJOR:MINOR", ErrParse, s)
	}
	return uint32(maj), uint32(minr), nil
}

// DeviceStat reads the stat file of a whole device or a partition by its
// kernel name: <sys>/block/<name>/stat, else the partition's
// <sys>/block/<parent>/<name>/stat. Numbers come from the "dev" file
// beside it and are zero when that is missing.
func (f FS) DeviceStat(name string) (DiskStat, error) {
	ds := DiskStat{Name: kernelName(name)}
	dir := f.SysPath("block", sysName(name))
	if _, err := os.Stat(dir); err != nil {
		parent, perr := f.Parent(name)
		if perr != nil {
			return ds, perr
		}
		dir = f.SysPath("block", sysName(parent), sysName(name))
	}
	st, err := f.readStat(filepath.Join(dir, "stat"))
	if err != nil {
		return ds, err
	}
	ds.IOStats = st
	if maj, minr, err := f.devNumbers(filepath.Join(dir, "dev")); err == nil {
		ds.Major, ds.Minor = maj, minr
	}
	return ds, nil
}

// SysBlockStats reads the stat file of every whole device under
// <sys>/block, sorted by name as sysstat's iostat lists them without
// -p. Entries without a readable stat file are skipped, as iostat does.
func (f FS) SysBlockStats() ([]DiskStat, error) {
	dir := f.SysPath("block")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("iostat: %w", err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	// sysstat inserts in strcmp order; Go's string order is the same
	// byte order.
	sort.Strings(names)
	out := make([]DiskStat, 0, len(names))
	for _, n := range names {
		st, err := f.readStat(filepath.Join(dir, n, "stat"))
		if errors.Is(err, ErrNoDevice) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ds := DiskStat{Name: kernelName(n), IOStats: st}
		if maj, minr, err := f.devNumbers(filepath.Join(dir, n, "dev")); err == nil {
			ds.Major, ds.Minor = maj, minr
		}
		out = append(out, ds)
	}
	return out, nil
}
