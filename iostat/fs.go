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
	"syscall"

	"stortest.dev/internal/kernelfs"
)

// ErrNoDevice marks a block device name or number with no entry in sysfs.
var ErrNoDevice = errors.New("no such block device")

// FS reads block device statistics from a proc and a sys tree. Its roots
// are injectable so captured fixtures stand in for /proc and /sys.
type FS struct {
	root kernelfs.FS // the proc, sys and dev roots
	// alt is sysstat's alternate directory of device counters (-f, +f):
	// it has diskstats, block/ and dev/block/. altToo (+f) reads the
	// standard places first and alt after them.
	alt    string
	altToo bool
}

// NewFS returns an FS rooted at procRoot (normally "/proc") and sysRoot
// (normally "/sys"). Both must be directories.
func NewFS(procRoot, sysRoot string) (FS, error) {
	for _, d := range []string{procRoot, sysRoot} {
		if d == "" {
			return FS{}, fmt.Errorf("iostat: a root is empty")
		}
	}
	root, err := kernelfs.New(procRoot, sysRoot, "")
	if err != nil {
		return FS{}, fmt.Errorf("iostat: %w", err)
	}
	return FS{root: root}, nil
}

// DefaultFS reads the running kernel's /proc, /sys and /dev.
func DefaultFS() FS { return FS{} }

// WithDev returns f with devRoot in place of /dev, where device nodes
// give the numbers of partitions named by the user (as sysstat finds
// them) and /dev/mapper and /dev/disk/by-* give display names.
func (f FS) WithDev(devRoot string) FS {
	f.root = f.root.WithDev(devRoot)
	return f
}

// WithAltDir returns f reading the devices' counters from dir, as
// sysstat's iostat -f dir reads them: dir/diskstats for /proc/diskstats,
// dir/block and dir/dev/block for those of /sys; the uptime, the CPU
// and the rest come from the proc and sys roots still. With too
// (iostat +f dir), the standard places are read first and dir as well:
// both diskstats files, every device of both block directories, and a
// named device from dir when the standard place has none.
func (f FS) WithAltDir(dir string, too bool) FS {
	f.alt, f.altToo = dir, too
	return f
}

// diskRoots are the directories holding block/ and dev/block/, in the
// order they are read.
func (f FS) diskRoots() []string {
	switch {
	case f.alt == "":
		return []string{f.root.SysRoot()}
	case f.altToo:
		return []string{f.root.SysRoot(), f.alt}
	}
	return []string{f.alt}
}

// diskstatsFiles are the diskstats files read with -p ALL, in order.
func (f FS) diskstatsFiles() []string {
	switch {
	case f.alt == "":
		return []string{f.ProcPath("diskstats")}
	case f.altToo:
		return []string{f.ProcPath("diskstats"), filepath.Join(f.alt, "diskstats")}
	}
	return []string{filepath.Join(f.alt, "diskstats")}
}

// DevPath joins rel to the dev root.
func (f FS) DevPath(rel ...string) string { return f.root.DevPath(rel...) }

// ProcPath joins rel to the proc root.
func (f FS) ProcPath(rel ...string) string { return f.root.ProcPath(rel...) }

// SysPath joins rel to the sys root.
func (f FS) SysPath(rel ...string) string { return f.root.SysPath(rel...) }

// Diskstats reads and parses <proc>/diskstats (or the alternate
// directory's, see WithAltDir), with a note for each line skipped (see
// ParseDiskstats).
func (f FS) Diskstats() ([]DiskStat, []Note, error) {
	files := f.diskstatsFiles()
	return readDiskstats(files[len(files)-1])
}

func readDiskstats(p string) ([]DiskStat, []Note, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("iostat: %w", err)
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
		// ENOTDIR: an entry of /sys/block that is a file (sysstat's
		// fixtures have "_list"), which holds no device.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return IOStats{}, fmt.Errorf("iostat: %w: %w", ErrNoDevice, err)
		}
		return IOStats{}, fmt.Errorf("iostat: %w", err)
	}
	defer fh.Close()
	return ParseSysStat(fh, p)
}

// BlockStat reads <sys>/block/<dev>/stat for a whole device (or the
// alternate directory's, see WithAltDir).
func (f FS) BlockStat(dev string) (IOStats, error) {
	var err error
	for _, root := range f.diskRoots() {
		var s IOStats
		if s, err = f.readStat(filepath.Join(root, "block", sysName(dev), "stat")); err == nil {
			return s, nil
		}
	}
	return IOStats{}, err
}

// numberedStat reads <sys>/dev/block/MAJ:MIN/stat (or the alternate
// directory's), as sysstat reads a partition it was given by name.
func (f FS) numberedStat(major, minor uint32) (IOStats, error) {
	var err error
	for _, root := range f.diskRoots() {
		var s IOStats
		if s, err = f.readStat(filepath.Join(root, "dev", "block", fmt.Sprintf("%d:%d", major, minor), "stat")); err == nil {
			return s, nil
		}
	}
	return IOStats{}, err
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
// kernel name ("sda", "sda1", "cciss/c0d0p2"; '!' for '/' is accepted
// too): <sys>/block/<name>/stat for a whole device, else the stat file of
// the partition's numbers, <sys>/dev/block/MAJ:MIN/stat, as sysstat reads
// a named partition. The numbers come from the "dev" file in sysfs, or
// else from the device node <dev>/<name> as sysstat takes them; they are
// zero when neither is there. A name with no stat file is an error
// wrapping ErrNoDevice.
func (f FS) DeviceStat(name string) (DiskStat, error) {
	ds := DiskStat{Name: kernelName(name)}
	dir := f.SysPath("block", sysName(name))
	if _, err := os.Stat(filepath.Join(dir, "stat")); err == nil {
		st, err := f.readStat(filepath.Join(dir, "stat"))
		if err != nil {
			return ds, err
		}
		ds.IOStats = st
		ds.Major, ds.Minor, _ = f.devNumbers(filepath.Join(dir, "dev"))
		return ds, nil
	}
	maj, minr, err := f.Numbers(name)
	if err != nil {
		return ds, err
	}
	ds.Major, ds.Minor = maj, minr
	st, err := f.readStat(f.SysPath("dev", "block", fmt.Sprintf("%d:%d", maj, minr), "stat"))
	if err != nil {
		return ds, fmt.Errorf("iostat: %s (%d:%d): %w", name, maj, minr, err)
	}
	ds.IOStats = st
	return ds, nil
}

// Numbers returns a block device's major and minor numbers from its
// kernel name: from its device node <dev>/<name> (the way sysstat finds
// them), else from sysfs (its "dev" file, or the link named by its
// numbers under <sys>/dev/block). An error wraps ErrNoDevice when none
// is there.
func (f FS) Numbers(name string) (major, minor uint32, err error) {
	if maj, minr := f.numbersOf(name); maj != 0 || minr != 0 {
		return maj, minr, nil
	}
	return 0, 0, fmt.Errorf("iostat: %s: %w (not in sysfs, no block device node %s)", name, ErrNoDevice, f.DevPath(kernelName(name)))
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
