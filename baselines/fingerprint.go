package baselines

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"stortest.dev/engines"
	"stortest.dev/fio"
	"stortest.dev/internal/human"
	"stortest.dev/internal/kernelfs"
	"stortest.dev/workload"
)

// Fingerprint says what a baseline was measured on. Two runs compare like
// with like when their fingerprints agree. When the same device changed
// (a firmware update, a new kernel) the comparison is exactly what a
// regression gate is for, so those differences are reported (Diff), never
// refused. When the device itself is another (DeviceMismatch: its model,
// serial, size or, for a loop device, backing file differ), the baseline
// does not belong to it and the gate refuses to compare.
type Fingerprint struct {
	// Kind is "block" for a block device, "loop" for a loop device,
	// "file" for a regular file (Device is then the disk holding it), or
	// "" when unknown (imported results).
	Kind string
	// Device is the kernel name of the whole disk: "nvme0n1", "sda",
	// "loop3"; "" when it cannot be resolved (tmpfs, overlay).
	Device   string
	Vendor   string // sysfs device/vendor
	Model    string // sysfs device/model; "loop" for a loop device
	Serial   string // sysfs device/serial or serial
	Firmware string // sysfs device/firmware_rev (NVMe) or device/rev (SCSI, ATA)
	// Backing is a loop device's backing file and BackingDevice the disk
	// holding it with its identity: "nvme0n1 (Samsung SSD 980, firmware
	// 1B2Q)", so a firmware change under a loop device still shows.
	Backing       string
	BackingDevice string
	Kernel        string // kernel release (uname -r)
	Engine        string // I/O engine
	// Version is the tool that measured: "stortest-0.1.0", or fio's
	// version ("fio-3.33") for imported results.
	Version  string
	Hostname string // optional; compared only when both sides have one
	// Size is the target's size in bytes: a block device's as the
	// kernel reports it (BLKGETSIZE64, or sysfs when the device cannot be
	// opened), a file's length; 0 when unknown (imported results, schema
	// 2 and older).
	Size uint64
}

// fingerprintFields lists the fields in file and Diff order with the names
// Diff prints.
func (f *Fingerprint) fields() []struct {
	key, label string
	v          *string
} {
	return []struct {
		key, label string
		v          *string
	}{
		{"kind", "kind", &f.Kind},
		{"device", "device", &f.Device},
		{"vendor", "vendor", &f.Vendor},
		{"model", "model", &f.Model},
		{"serial", "serial", &f.Serial},
		{"firmware", "firmware", &f.Firmware},
		{"backing", "backing file", &f.Backing},
		{"backing_device", "backing device", &f.BackingDevice},
		{"kernel", "kernel", &f.Kernel},
		{"engine", "engine", &f.Engine},
		{"version", "version", &f.Version},
		{"hostname", "hostname", &f.Hostname},
	}
}

// Change is one difference between two fingerprints or two jobs.
type Change struct {
	Field    string // "firmware", "kernel", or a job's fio option name
	Old, New string // "" when absent
}

// String prints "firmware 1.2 -> 1.3"; an absent value prints as (none).
func (c Change) String() string {
	show := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	return c.Field + " " + show(c.Old) + " -> " + show(c.New)
}

// Diff lists what changed from f (the baseline) to other (the current
// run), in a fixed order. Hostnames are compared only when both are set.
func (f Fingerprint) Diff(other Fingerprint) []Change {
	var out []Change
	a, b := f.fields(), other.fields()
	for i := range a {
		x, y := *a[i].v, *b[i].v
		if x == y || (a[i].key == "hostname" && (x == "" || y == "")) {
			continue
		}
		out = append(out, Change{Field: a[i].label, Old: x, New: y})
	}
	if f.Size != other.Size && f.Size != 0 && other.Size != 0 {
		out = append(out, Change{Field: "size", Old: sizeString(f.Size), New: sizeString(other.Size)})
	}
	return out
}

// DeviceMismatch lists the differences that make other a different
// device from f's, not the same device changed: model, serial and size,
// and for loop devices the backing file (a loop device's number changes
// from run to run; what it stands for does not). A field counts only
// when both sides have it: imported fio results have none. Firmware,
// kernel and engine changes are not mismatches: they are what a gate
// compares across.
func (f Fingerprint) DeviceMismatch(other Fingerprint) []Change {
	var out []Change
	for _, c := range []struct {
		label string
		x, y  string
	}{
		{"model", f.Model, other.Model},
		{"serial", f.Serial, other.Serial},
		{"backing file", f.Backing, other.Backing},
	} {
		if c.x != "" && c.y != "" && c.x != c.y {
			out = append(out, Change{Field: c.label, Old: c.x, New: c.y})
		}
	}
	if f.Size != 0 && other.Size != 0 && f.Size != other.Size {
		out = append(out, Change{Field: "size", Old: sizeString(f.Size), New: sizeString(other.Size)})
	}
	return out
}

// sizeString prints a size in bytes with its binary multiple: "268435456
// (256MiB)".
func sizeString(n uint64) string {
	return strconv.FormatUint(n, 10) + " (" + human.Bytes(float64(n)) + ")"
}

// ignoredJobFields differ between runs of the same workload: the target's
// path (a fresh loop device or temp file each run) and free text.
var ignoredJobFields = map[string]bool{
	"name": true, "description": true, "filename": true, "write_hist_log": true, "log_hist_msec": true,
}

// DiffJobs lists the options in which two jobs differ, by fio option name
// ("iodepth 32 -> 16"), both normalized. The name, description, target
// file and histogram-log options are not compared: they change between
// runs of the same workload.
func DiffJobs(old, cur workload.Job) []Change {
	a, errA := jobFields(old)
	b, errB := jobFields(cur)
	if errA != nil || errB != nil {
		return []Change{{Field: "job", Old: fmt.Sprint(errA), New: fmt.Sprint(errB)}}
	}
	keys := append([]string(nil), a.keys...)
	for _, k := range b.keys {
		if _, ok := a.vals[k]; !ok {
			keys = append(keys, k)
		}
	}
	var out []Change
	for _, k := range keys {
		if ignoredJobFields[k] {
			continue
		}
		x, y := a.vals[k], b.vals[k]
		if x == y {
			continue
		}
		name := k
		if n, ok := strings.CutSuffix(k, "_ns"); ok {
			name = n
			x, y = nsString(x), nsString(y)
		}
		out = append(out, Change{Field: name, Old: x, New: y})
	}
	return out
}

func nsString(s string) string {
	if s == "" {
		return s
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return s
	}
	return time.Duration(n).String()
}

type orderedFields struct {
	keys []string
	vals map[string]string
}

// jobFields returns a job's JSON fields in order, strings unquoted.
func jobFields(j workload.Job) (orderedFields, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return orderedFields{}, err
	}
	out := orderedFields{vals: map[string]string{}}
	err = fio.EachField(data, func(k string, raw json.RawMessage) error {
		v := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			v = s
		}
		out.keys = append(out.keys, k)
		out.vals[k] = v
		return nil
	})
	return out, err
}

// ProbeOptions configure Probe. The zero value reads the live system.
type ProbeOptions struct {
	// SysRoot and ProcRoot are where sysfs and procfs are mounted: "/sys"
	// and "/proc" by default; tests point them at captured trees.
	SysRoot, ProcRoot string
	Engine            string // copied into the fingerprint
	Hostname          bool   // record os.Hostname
}

// Probe fingerprints target: a block device node, a loop device, or a
// regular file (then the disk holding it). It reads the device identity
// from sysfs (<sys>/dev/block/MAJ:MIN leads to the disk; its device/model,
// serial, firmware_rev or rev, vendor) and the kernel release from
// <proc>/sys/kernel/osrelease. Identity files a driver does not provide
// are left empty; only a target that cannot be stat'ed is an error.
func Probe(target string, o ProbeOptions) (Fingerprint, error) {
	k := kernelfs.At(o.ProcRoot, o.SysRoot, "")
	fp := Fingerprint{Engine: o.Engine, Version: "stortest-" + workload.Version}
	if rel, err := kernelfs.ReadString(k.ProcPath("sys", "kernel", "osrelease")); err == nil {
		fp.Kernel = rel
	}
	if o.Hostname {
		if h, err := os.Hostname(); err == nil {
			fp.Hostname = h
		}
	}
	fi, err := os.Stat(target)
	if err != nil {
		return fp, fmt.Errorf("baselines: fingerprint: %w", err)
	}
	dev, isBlock, err := deviceNumber(fi)
	if err != nil {
		return fp, fmt.Errorf("baselines: fingerprint %s: %w", target, err)
	}
	fp.Kind = "file"
	if fi.Mode().IsRegular() {
		fp.Size = uint64(max(0, fi.Size()))
	}
	if isBlock {
		fp.Kind = "block"
		fp.Size = blockSize(target, k, dev)
	}
	disk := diskOf(k, dev)
	if disk == "" {
		return fp, nil
	}
	fp.Device = disk
	if backing, ok := readAttr(k, "block", disk, "loop", "backing_file"); ok && isBlock {
		fp.Kind, fp.Model, fp.Backing = "loop", "loop", backing
		if bfi, err := os.Stat(backing); err == nil {
			if bdev, _, err := deviceNumber(bfi); err == nil {
				fp.BackingDevice = describe(k, diskOf(k, bdev))
			}
		}
		return fp, nil
	}
	identify(k, disk, &fp)
	return fp, nil
}

// blockSize is the size in bytes of the block device node at target:
// what BLKGETSIZE64 says (engines.Size), or when the node cannot be
// opened (no permission) or says 0, <sys>/dev/block/MAJ:MIN/size
// (512-byte sectors, whatever the device's block size); 0 when neither
// says.
func blockSize(target string, k kernelfs.FS, dev uint64) uint64 {
	if f, err := os.Open(target); err == nil {
		n, err := engines.Size(f)
		f.Close()
		if err == nil && n > 0 {
			return uint64(n)
		}
	}
	n, err := kernelfs.ReadInt(k.DevBlockPath(dev, "size"))
	if err != nil || n < 0 {
		return 0
	}
	return uint64(n) * 512
}

// deviceNumber returns the device a target stands for: a block device's
// own number, or the device of the file system holding a file.
func deviceNumber(fi fs.FileInfo) (dev uint64, isBlock bool, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false, errors.New("no device numbers on this system")
	}
	if fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0 {
		return uint64(st.Rdev), true, nil
	}
	return uint64(st.Dev), false, nil
}

// diskOf resolves a device number to the kernel name of its whole disk
// through <sys>/dev/block/MAJ:MIN (a partition's parent directory is its
// disk), or "" when sysfs does not know it (anonymous devices: tmpfs,
// overlay).
func diskOf(k kernelfs.FS, dev uint64) string {
	link := k.DevBlockPath(dev)
	target, err := os.Readlink(link)
	if err != nil {
		return ""
	}
	name := filepath.Base(target)
	if _, err := os.Stat(filepath.Join(link, "partition")); err == nil {
		name = filepath.Base(filepath.Dir(target))
	}
	return name
}

// identify fills the disk's identity from sysfs.
func identify(k kernelfs.FS, disk string, fp *Fingerprint) {
	fp.Vendor, _ = readAttr(k, "block", disk, "device", "vendor")
	fp.Model, _ = readAttr(k, "block", disk, "device", "model")
	var ok bool
	if fp.Serial, ok = readAttr(k, "block", disk, "device", "serial"); !ok {
		fp.Serial, _ = readAttr(k, "block", disk, "serial") // virtio-blk
	}
	if fp.Firmware, ok = readAttr(k, "block", disk, "device", "firmware_rev"); !ok {
		fp.Firmware, _ = readAttr(k, "block", disk, "device", "rev")
	}
}

// describe prints a disk with its identity: "vda (Virtio disk, firmware
// 1.0)".
func describe(k kernelfs.FS, disk string) string {
	if disk == "" {
		return ""
	}
	var fp Fingerprint
	identify(k, disk, &fp)
	var parts []string
	if m := strings.TrimSpace(fp.Vendor + " " + fp.Model); m != "" {
		parts = append(parts, m)
	}
	if fp.Serial != "" {
		parts = append(parts, "serial "+fp.Serial)
	}
	if fp.Firmware != "" {
		parts = append(parts, "firmware "+fp.Firmware)
	}
	if len(parts) == 0 {
		return disk
	}
	return disk + " (" + strings.Join(parts, ", ") + ")"
}

// readAttr reads a sysfs attribute, trimmed; ok is false when it is
// absent or empty.
func readAttr(k kernelfs.FS, elem ...string) (string, bool) {
	s, err := kernelfs.ReadString(k.SysPath(elem...))
	return s, err == nil && s != ""
}
