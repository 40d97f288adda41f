package target

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"stortest.dev/iostat"
)

// ErrUnsafe is wrapped by every refusal to write a block device.
var ErrUnsafe = errors.New("refusing to write")

// UnsafeError is a refusal to write a block device: what makes the
// write unsafe and what would allow it. It wraps ErrUnsafe.
type UnsafeError struct {
	Path string // the device as it was given
	// Reason says what uses the device ("loop0 is mounted on /mnt
	// (ext4)"), or that it is not listed.
	Reason string
	// InUse is set when the device, or one of its partitions, is
	// mounted, held by another device or used as swap.
	InUse bool
	Hint  string // what to do about it
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%v %s: %s; %s", ErrUnsafe, e.Path, e.Reason, e.Hint)
}

func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// Rules say which writes CheckWrite allows.
type Rules struct {
	// AllowMountedWrite is fio's allow_mounted_write=1: a device that is
	// mounted, has a mounted partition, is held by another device or is
	// used as swap is written all the same.
	AllowMountedWrite bool
	// ListVar, when set, is the test API's stricter rule: a device is
	// written only when it is listed in List (comma-separated paths,
	// compared after resolving symbolic links), in use or not. ListVar
	// names the variable List comes from, for the messages
	// (STORTEST_ALLOW_DESTRUCTIVE). Without it (fio's rule) a device in
	// no use is written whatever it holds, as fio writes it.
	ListVar string
	List    string
}

// Guard checks writes against the kernel's view of its block devices,
// read through an iostat.FS: the mount table (<proc>/self/mountinfo),
// the swap list (<proc>/swaps), partitions and holders
// (<sys>/class/block) and device numbers (<sys>/dev/block).
type Guard struct {
	fs iostat.FS
}

// NewGuard returns a Guard reading the kernel files of fs.
func NewGuard(fs iostat.FS) Guard { return Guard{fs: fs} }

// Live returns a Guard reading the running kernel's /proc and /sys.
func Live() Guard { return Guard{fs: iostat.DefaultFS()} }

// IsBlockDevice reports whether path names a block device (following
// symbolic links): the files the guard is for.
func IsBlockDevice(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0
}

// blockDev names a block device as the checks need it: the path it was
// given by, its kernel name and its MAJ:MIN.
type blockDev struct {
	path, name, majmin string
}

// lookupBlockDev finds the kernel name of the block device at path from
// its device number and <sys>/dev/block.
func (g Guard) lookupBlockDev(path string) (blockDev, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return blockDev{}, fmt.Errorf("target: stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		return blockDev{}, fmt.Errorf("target: %s is not a block device", path)
	}
	major, minor := iostat.DevNumbers(st.Rdev)
	name, err := g.fs.DeviceByNumber(major, minor)
	if err != nil {
		return blockDev{}, fmt.Errorf("target: %s: %w", path, err)
	}
	return blockDev{path: path, name: name, majmin: fmt.Sprintf("%d:%d", major, minor)}, nil
}

// CheckWrite says whether a job may write or trim the block device at
// path under r: nil, or an error that wraps ErrUnsafe (an *UnsafeError)
// when the write is refused, or another error when the kernel's files
// cannot be read (a write is never allowed by default). path must be a
// block device.
func (g Guard) CheckWrite(path string, r Rules) error {
	d, err := g.lookupBlockDev(path)
	if err != nil {
		return err
	}
	var sig string
	if r.ListVar != "" {
		if f, err := os.Open(path); err == nil {
			sig = signature(f)
			f.Close()
		}
	}
	return g.checkDev(d, r, sig)
}

// InUse describes what uses the block device at path or one of its
// partitions (mounted, held by another device, swap), "" when nothing
// does.
func (g Guard) InUse(path string) (string, error) {
	d, err := g.lookupBlockDev(path)
	if err != nil {
		return "", err
	}
	return g.inUse(d)
}

// checkDev refuses a write to d, with the reason, when d or one of its
// partitions is mounted, held by another device (device mapper, md,
// bcache) or used as swap, unless r.AllowMountedWrite; and, under the
// listing rule, when d is not listed. sig, when known, names what the
// device holds, for the message.
func (g Guard) checkDev(d blockDev, r Rules, sig string) error {
	use, err := g.inUse(d)
	if err != nil {
		return err
	}
	if use != "" && !r.AllowMountedWrite {
		first := "unmount it first"
		switch {
		case strings.Contains(use, " is held by "):
			first = "release it first"
		case strings.Contains(use, " as swap"):
			first = "swapoff it first"
		}
		hint := first + ", or set allow_mounted_write=1 to write it anyway"
		if r.ListVar != "" {
			hint = first + "; " + r.ListVar + " does not override this, the job's AllowMountedWrite does"
		}
		return &UnsafeError{Path: d.path, Reason: use, InUse: true, Hint: hint}
	}
	if r.ListVar != "" && !allowed(d.path, r.List) {
		what := ""
		if sig != "" {
			what = ", and it holds " + sig
		}
		return &UnsafeError{Path: d.path, Reason: "a write workload destroys its data" + what,
			Hint: "list it in " + r.ListVar + " (comma-separated paths) to allow it"}
	}
	return nil
}

// inUse describes the first use found of d or one of its partitions:
// mounted, held by another device, or swap; "" when none.
func (g Guard) inUse(d blockDev) (string, error) {
	members, err := g.partitions(d)
	if err != nil {
		return "", err
	}
	members = append([]blockDev{d}, members...)
	if use, err := g.mounted(members); err != nil || use != "" {
		return use, err
	}
	for _, m := range members {
		ents, err := os.ReadDir(g.fs.SysPath("class", "block", m.name, "holders"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("target: %w", err)
		}
		if len(ents) > 0 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return fmt.Sprintf("%s is held by %s: device mapper, LVM, md or bcache is using it", m.name, strings.Join(names, ", ")), nil
		}
	}
	return g.swap(members)
}

// partitions lists d's partitions: the directories under
// <sys>/class/block/<d> with a "partition" file, each with its dev file.
func (g Guard) partitions(d blockDev) ([]blockDev, error) {
	dir := g.fs.SysPath("class", "block", d.name)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("target: %w", err)
	}
	var parts []blockDev
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "partition")); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "dev"))
		if err != nil {
			return nil, fmt.Errorf("target: partition %s of %s: %w", e.Name(), d.name, err)
		}
		parts = append(parts, blockDev{path: "/dev/" + e.Name(), name: e.Name(), majmin: strings.TrimSpace(string(b))})
	}
	return parts, nil
}

// mounted describes the first mount of one of members in
// <proc>/self/mountinfo, by device number or, for file systems whose
// st_dev is not the device's (btrfs), by mount source; "" when none.
func (g Guard) mounted(members []blockDev) (string, error) {
	name := g.fs.ProcPath("self", "mountinfo")
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			return "", fmt.Errorf("target: %s:%d: %d fields, want at least 5", name, line, len(fields))
		}
		source, fstype := "", ""
		if i := slices.Index(fields, "-"); i >= 0 && i+2 < len(fields) {
			fstype, source = fields[i+1], unescapeMount(fields[i+2])
		}
		for _, m := range members {
			if fields[2] == m.majmin || source == "/dev/"+m.name {
				return fmt.Sprintf("%s is mounted on %s (%s)", m.name, unescapeMount(fields[4]), fstype), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("target: %s: %w", name, err)
	}
	return "", nil
}

// swap describes the first of members in <proc>/swaps; "" when none.
func (g Guard) swap(members []blockDev) (string, error) {
	name := g.fs.ProcPath("swaps")
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil // a kernel without swap support
		}
		return "", fmt.Errorf("target: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if line == 1 || len(fields) == 0 {
			continue // "Filename Type Size Used Priority"
		}
		p := unescapeMount(fields[0])
		if !strings.HasPrefix(p, "/dev/") {
			continue // a swap file lives on a mounted file system, caught above
		}
		base := filepath.Base(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			base = filepath.Base(real) // /dev/mapper/x -> dm-N
		}
		for _, m := range members {
			if base == m.name {
				return fmt.Sprintf("%s is in use as swap", m.name), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("target: %s: %w", name, err)
	}
	return "", nil
}

// unescapeMount undoes the octal escapes (\040 for a space) the kernel
// writes in mountinfo and swaps paths.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// allowed reports whether path is listed in allow, comparing cleaned
// paths and, where they exist, the paths symbolic links resolve to
// (/dev/disk/by-id/... names /dev/sdb).
func allowed(path, allow string) bool {
	canon := func(p string) string {
		p = filepath.Clean(strings.TrimSpace(p))
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return p
	}
	want := canon(path)
	for _, a := range strings.Split(allow, ",") {
		if strings.TrimSpace(a) != "" && canon(a) == want {
			return true
		}
	}
	return false
}

// signatureBytes is how much of a device signature reads: the btrfs
// superblock sits at 64 KiB.
const signatureBytes = 68 << 10

// signature names what the start of a device holds, as far as a few
// well-known magic numbers tell; "" when none is found. It is for the
// refusal message only: an unknown signature proves nothing.
func signature(r io.ReaderAt) string {
	buf := make([]byte, signatureBytes)
	n, _ := r.ReadAt(buf, 0)
	buf = buf[:n]
	for _, s := range signatures {
		if s.off+len(s.magic) <= len(buf) && string(buf[s.off:s.off+len(s.magic)]) == s.magic {
			return s.what
		}
	}
	return ""
}

// signatures are the magic numbers signature knows, first match wins.
var signatures = []struct {
	off   int
	magic string
	what  string
}{
	{0, "LUKS\xba\xbe", "a LUKS volume"},
	{0, "XFSB", "an xfs file system"},
	{1080, "\x53\xef", "an ext2/3/4 file system"},
	{65600, "_BHRfS_M", "a btrfs file system"},
	{4086, "SWAPSPACE2", "a swap area"},
	{4086, "SWAP-SPACE", "a swap area"},
	{536, "LVM2 001", "an LVM physical volume"},
	{512, "EFI PART", "a GPT partition table"},
	{3, "NTFS    ", "an NTFS file system"},
	{510, "\x55\xaa", "an MBR partition table or boot sector"},
}
