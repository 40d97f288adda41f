package iostat

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"stortest.dev/internal/kernelfs"
)

// Resolution says which devices' counters show the I/O to a path.
type Resolution struct {
	// Device is the block device the path is, or the one its file
	// system lives on: "loop0", "sda1", "dm-0", "vda".
	Device string
	// Disks are the whole devices underneath, whose counters also
	// show the I/O: a partition's disk, the device under a loop
	// device's backing file, the slaves of dm and md devices, each
	// followed down to devices with nothing under them. A disk with
	// nothing under it is its own only entry. Sorted, no duplicates.
	Disks []string
}

// DevNumbers splits a Linux dev_t (stat's st_dev or st_rdev) into major
// and minor numbers (glibc's gnu_dev_major/minor encoding).
func DevNumbers(dev uint64) (major, minor uint32) { return kernelfs.DevNumbers(dev) }

// Resolve finds the devices whose counters show I/O to path: a block
// device node (disk, partition, loop, dm, md) or any file or directory,
// which resolves to the device of its file system. It follows symbolic
// links. The path is looked up on the real file system; the sys tree
// (and, for file systems like btrfs whose st_dev is not a block device,
// <proc>/self/mountinfo) come from f.
func (f FS) Resolve(path string) (Resolution, error) {
	name, err := f.deviceOfPath(path)
	if err != nil {
		return Resolution{}, err
	}
	return f.ResolveDevice(name)
}

// ResolveDevice is Resolve for a block device given by its kernel name
// ("sda1", "loop0", "dm-0").
func (f FS) ResolveDevice(name string) (Resolution, error) {
	seen := map[string]bool{}
	disks := map[string]bool{}
	if err := f.under(name, seen, disks, 0); err != nil {
		return Resolution{}, err
	}
	r := Resolution{Device: kernelName(name)}
	for d := range disks {
		r.Disks = append(r.Disks, d)
	}
	sort.Strings(r.Disks)
	return r, nil
}

// DeviceByNumber returns the kernel name of the block device MAJ:MIN
// from <sys>/dev/block.
func (f FS) DeviceByNumber(major, minor uint32) (string, error) {
	link := f.SysPath("dev", "block", fmt.Sprintf("%d:%d", major, minor))
	target, err := os.Readlink(link)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("iostat: %d:%d: %w", major, minor, ErrNoDevice)
		}
		return "", fmt.Errorf("iostat: %w", err)
	}
	return kernelName(filepath.Base(target)), nil
}

func (f FS) deviceOfPath(path string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return "", fmt.Errorf("iostat: stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
		maj, minr := DevNumbers(st.Rdev)
		name, err := f.DeviceByNumber(maj, minr)
		if err != nil {
			return "", fmt.Errorf("iostat: %s: %w", path, err)
		}
		return name, nil
	}
	maj, minr := DevNumbers(st.Dev)
	name, err := f.DeviceByNumber(maj, minr)
	if err == nil {
		return name, nil
	}
	if !errors.Is(err, ErrNoDevice) {
		return "", err
	}
	// btrfs, overlayfs and others report an anonymous st_dev; the
	// mount table names the device the file system was mounted from.
	src, ok := f.mountSource(maj, minr)
	if ok {
		var sst syscall.Stat_t
		if syscall.Stat(src, &sst) == nil && sst.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			if name, err := f.DeviceByNumber(DevNumbers(sst.Rdev)); err == nil {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("iostat: %s is on %d:%d, which is not a block device (tmpfs, network or virtual file system): %w",
		path, maj, minr, ErrNoDevice)
}

// mountSource finds the source of the mount with the given st_dev in
// <proc>/self/mountinfo.
func (f FS) mountSource(major, minor uint32) (string, bool) {
	fh, err := os.Open(f.ProcPath("self", "mountinfo"))
	if err != nil {
		return "", false
	}
	defer fh.Close()
	want := fmt.Sprintf("%d:%d", major, minor)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[2] != want {
			continue
		}
		for i, x := range fields {
			if x == "-" && i+2 < len(fields) && strings.HasPrefix(fields[i+2], "/dev/") {
				return fields[i+2], true
			}
		}
	}
	return "", false
}

// maxDepth bounds the walk down stacked devices; real stacks are a few
// levels deep, and a loop in a corrupt tree must not recurse forever.
const maxDepth = 16

func (f FS) under(name string, seen, disks map[string]bool, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("iostat: %s: devices stacked more than %d deep", name, maxDepth)
	}
	if seen[name] {
		return nil
	}
	seen[name] = true
	sn := sysName(name)
	// A partition: its parent directory in sysfs is the disk.
	if _, err := os.Stat(f.SysPath("class", "block", sn, "partition")); err == nil {
		parent, err := f.Parent(name)
		if err != nil {
			return err
		}
		return f.under(parent, seen, disks, depth+1)
	}
	// A loop device: the device under its backing file.
	if b, err := os.ReadFile(f.SysPath("block", sn, "loop", "backing_file")); err == nil {
		backing := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
		dev, err := f.deviceOfPath(backing)
		switch {
		case errors.Is(err, ErrNoDevice) || errors.Is(err, fs.ErrNotExist):
			// Backed by memory (tmpfs) or a deleted file: no device
			// below, so the loop device's own counters are the bottom.
			disks[name] = true
			return nil
		case err != nil:
			return fmt.Errorf("iostat: %s: backing file: %w", name, err)
		}
		return f.under(dev, seen, disks, depth+1)
	}
	// dm and md: their slaves.
	ents, err := os.ReadDir(f.SysPath("block", sn, "slaves"))
	if err == nil && len(ents) > 0 {
		for _, e := range ents {
			if err := f.under(kernelName(e.Name()), seen, disks, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := os.Stat(f.SysPath("block", sn)); err != nil {
		return fmt.Errorf("iostat: %s: %w", name, ErrNoDevice)
	}
	disks[name] = true
	return nil
}

// Parent returns the disk a partition belongs to ("sda" for "sda1"),
// from the partition's directory in <sys>/class/block, which links into
// its disk's directory.
func (f FS) Parent(part string) (string, error) {
	target, err := filepath.EvalSymlinks(f.SysPath("class", "block", sysName(part)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("iostat: %s: %w", part, ErrNoDevice)
		}
		return "", fmt.Errorf("iostat: %w", err)
	}
	if _, err := os.Stat(filepath.Join(target, "partition")); err != nil {
		return "", fmt.Errorf("iostat: %s: not a partition: %w", part, ErrNoDevice)
	}
	return kernelName(filepath.Base(filepath.Dir(target))), nil
}
