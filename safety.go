package stortest

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

// host locates the kernel files the safety checks read: /proc and /sys
// on a running system, fixture trees in tests.
type host struct {
	proc, sys string
}

var liveHost = host{proc: "/proc", sys: "/sys"}

// blockDev names a block device as the checks need it: the path it was
// given by, its kernel name and its MAJ:MIN.
type blockDev struct {
	path, name, majmin string
}

// lookupBlockDev finds the kernel name of the block device at path from
// its device number and <sys>/dev/block.
func (h host) lookupBlockDev(path string) (blockDev, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return blockDev{}, fmt.Errorf("stortest: stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		return blockDev{}, fmt.Errorf("stortest: %s is not a block device", path)
	}
	major, minor := iostat.DevNumbers(st.Rdev)
	fsys, err := iostat.NewFS(h.proc, h.sys)
	if err != nil {
		return blockDev{}, fmt.Errorf("stortest: %w", err)
	}
	name, err := fsys.DeviceByNumber(major, minor)
	if err != nil {
		return blockDev{}, fmt.Errorf("stortest: %s: %w", path, err)
	}
	return blockDev{path: path, name: name, majmin: fmt.Sprintf("%d:%d", major, minor)}, nil
}

// checkWrite says whether a write workload may run on the block device
// at path. allow is STORTEST_ALLOW_DESTRUCTIVE's value.
func (h host) checkWrite(path, allow string) error {
	d, err := h.lookupBlockDev(path)
	if err != nil {
		return err
	}
	var sig string
	if f, err := os.Open(path); err == nil {
		sig = signature(f)
		f.Close()
	}
	return h.checkDev(d, allow, sig)
}

// checkDev refuses a write to d, with the reason, when d or one of its
// partitions is mounted, held by another device (device mapper, md,
// bcache) or used as swap, whatever allow says; and otherwise when d is
// not listed in allow (comma-separated paths, compared after resolving
// symbolic links). sig, when known, names what the device holds, for the
// message.
func (h host) checkDev(d blockDev, allow, sig string) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("stortest: %w %s: %s", ErrUnsafe, d.path, fmt.Sprintf(format, args...))
	}
	members, err := h.partitions(d)
	if err != nil {
		return err
	}
	members = append([]blockDev{d}, members...)
	if use, err := h.mounted(members); err != nil {
		return err
	} else if use != "" {
		return refuse("%s (unmount it first; STORTEST_ALLOW_DESTRUCTIVE does not override this)", use)
	}
	for _, m := range members {
		ents, err := os.ReadDir(filepath.Join(h.sys, "class", "block", m.name, "holders"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("stortest: %w", err)
		}
		if len(ents) > 0 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return refuse("%s is held by %s (device mapper, LVM, md or bcache is using it; "+
				"STORTEST_ALLOW_DESTRUCTIVE does not override this)", m.name, strings.Join(names, ", "))
		}
	}
	if use, err := h.swap(members); err != nil {
		return err
	} else if use != "" {
		return refuse("%s (swapoff it first; STORTEST_ALLOW_DESTRUCTIVE does not override this)", use)
	}
	if !allowed(d.path, allow) {
		what := ""
		if sig != "" {
			what = ", and it holds " + sig
		}
		return refuse("a write workload destroys its data%s; list it in %s (comma-separated paths) to allow it",
			what, EnvAllowDestructive)
	}
	return nil
}

// partitions lists d's partitions: the directories under
// <sys>/class/block/<d> with a "partition" file, each with its dev file.
func (h host) partitions(d blockDev) ([]blockDev, error) {
	dir := filepath.Join(h.sys, "class", "block", d.name)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("stortest: %w", err)
	}
	var parts []blockDev
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "partition")); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "dev"))
		if err != nil {
			return nil, fmt.Errorf("stortest: partition %s of %s: %w", e.Name(), d.name, err)
		}
		parts = append(parts, blockDev{path: "/dev/" + e.Name(), name: e.Name(), majmin: strings.TrimSpace(string(b))})
	}
	return parts, nil
}

// mounted describes the first mount of one of members in
// <proc>/self/mountinfo, by device number or, for file systems whose
// st_dev is not the device's (btrfs), by mount source; "" when none.
func (h host) mounted(members []blockDev) (string, error) {
	name := filepath.Join(h.proc, "self", "mountinfo")
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("stortest: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTIONS
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			return "", fmt.Errorf("stortest: %s:%d: %d fields, want at least 5", name, line, len(fields))
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
		return "", fmt.Errorf("stortest: %s: %w", name, err)
	}
	return "", nil
}

// swap describes the first of members in <proc>/swaps; "" when none.
func (h host) swap(members []blockDev) (string, error) {
	name := filepath.Join(h.proc, "swaps")
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil // a kernel without swap support
		}
		return "", fmt.Errorf("stortest: %w", err)
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
		return "", fmt.Errorf("stortest: %s: %w", name, err)
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
	at := func(off int, magic string) bool {
		return off+len(magic) <= len(buf) && string(buf[off:off+len(magic)]) == magic
	}
	switch {
	case at(0, "LUKS\xba\xbe"):
		return "a LUKS volume"
	case at(0, "XFSB"):
		return "an xfs file system"
	case at(1080, "\x53\xef"):
		return "an ext2/3/4 file system"
	case at(65600, "_BHRfS_M"):
		return "a btrfs file system"
	case at(4086, "SWAPSPACE2"), at(4086, "SWAP-SPACE"):
		return "a swap area"
	case at(536, "LVM2 001"):
		return "an LVM physical volume"
	case at(512, "EFI PART"):
		return "a GPT partition table"
	case at(3, "NTFS    "):
		return "an NTFS file system"
	case at(510, "\x55\xaa"):
		return "an MBR partition table or boot sector"
	}
	return ""
}
