package target

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stortest.dev/iostat"
)

// fixture is a proc and a sys tree with the files the guard reads,
// built per test.
type fixture struct {
	Guard
	proc, sys string
	t         *testing.T
}

func newFixture(t *testing.T) fixture {
	root := t.TempDir()
	f := fixture{proc: filepath.Join(root, "proc"), sys: filepath.Join(root, "sys"), t: t}
	f.write(filepath.Join(f.proc, "self", "mountinfo"), "")
	f.write(filepath.Join(f.proc, "swaps"), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
	if err := os.MkdirAll(f.sys, 0o755); err != nil {
		t.Fatal(err)
	}
	fs, err := iostat.NewFS(f.proc, f.sys)
	if err != nil {
		t.Fatal(err)
	}
	f.Guard = NewGuard(fs)
	return f
}

func (f fixture) write(path, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// disk adds <sys>/class/block/<name> with its dev file and partitions
// (name -> MAJ:MIN), laid out as sysfs does: partition directories
// inside the disk's, each with a "partition" file.
func (f fixture) disk(name, majmin string, parts map[string]string) {
	dir := filepath.Join(f.sys, "class", "block", name)
	f.write(filepath.Join(dir, "dev"), majmin+"\n")
	if err := os.MkdirAll(filepath.Join(dir, "holders"), 0o755); err != nil {
		f.t.Fatal(err)
	}
	for p, mm := range parts {
		f.write(filepath.Join(dir, p, "dev"), mm+"\n")
		f.write(filepath.Join(dir, p, "partition"), "1\n")
		if err := os.MkdirAll(filepath.Join(f.sys, "class", "block", p, "holders"), 0o755); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f fixture) holder(dev, holder string) {
	f.write(filepath.Join(f.sys, "class", "block", dev, "holders", holder), "")
}

// Lines of a real /proc/self/mountinfo, for the fixtures.
const (
	mountRoot  = "29 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	mountProc  = "30 29 0:25 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
	mountSdb1  = "41 29 8:17 / /mnt/data rw,relatime shared:30 - xfs /dev/sdb1 rw,attr2,inode64\n"
	mountBtrfs = "42 29 0:45 /@home /home\\040dir rw,relatime shared:31 - btrfs /dev/sdb2 rw,space_cache=v2\n"
	mountWhole = "43 29 8:16 / /srv rw,relatime shared:32 - ext4 /dev/sdb rw\n"
)

// strict is the test API's rule: the device must be listed.
func strict(list string) Rules { return Rules{ListVar: "STORTEST_ALLOW_DESTRUCTIVE", List: list} }

func TestCheckDev(t *testing.T) {
	sdb := blockDev{path: "/dev/sdb", name: "sdb", majmin: "8:16"}
	fio, fioAllow := Rules{}, Rules{AllowMountedWrite: true}
	sdc1 := strings.NewReplacer("8:17", "8:33", "sdb1", "sdc1").Replace(mountSdb1)
	for _, tc := range []struct {
		name       string
		mounts     string
		swaps      string
		holders    [][2]string // device, holder
		rules      Rules
		sig        string
		want       string // the error, or a part of it; "" allows the write
		wantUnsafe bool
		wantInUse  bool
	}{
		// The test API's rule: listed, and not in use.
		{name: "listed and unused", mounts: mountRoot + mountProc, rules: strict("/dev/sdb")},
		{name: "listed among others, with spaces", mounts: mountRoot, rules: strict(" /dev/sda , /dev/sdb ,")},
		{name: "not listed", mounts: mountRoot, rules: strict("/dev/sda"),
			want:       "refusing to write /dev/sdb: a write workload destroys its data; list it in STORTEST_ALLOW_DESTRUCTIVE (comma-separated paths) to allow it",
			wantUnsafe: true},
		{name: "not listed, says what it holds", mounts: mountRoot, rules: strict(""), sig: "an ext2/3/4 file system",
			want: "a write workload destroys its data, and it holds an ext2/3/4 file system; list it in STORTEST_ALLOW_DESTRUCTIVE", wantUnsafe: true},
		{name: "a partition is mounted", mounts: mountRoot + mountSdb1, rules: strict("/dev/sdb"),
			want:       "refusing to write /dev/sdb: sdb1 is mounted on /mnt/data (xfs); unmount it first; STORTEST_ALLOW_DESTRUCTIVE does not override this, the job's AllowMountedWrite does",
			wantUnsafe: true, wantInUse: true},
		{name: "the disk is mounted", mounts: mountWhole, rules: strict("/dev/sdb"), want: "sdb is mounted on /srv (ext4)", wantUnsafe: true, wantInUse: true},
		{name: "btrfs mounted from a partition, by source", mounts: mountRoot + mountBtrfs, rules: strict("/dev/sdb"),
			want: "sdb2 is mounted on /home dir (btrfs)", wantUnsafe: true, wantInUse: true},
		{name: "another disk mounted", mounts: mountRoot + sdc1, rules: strict("/dev/sdb")},
		{name: "held by device mapper", mounts: mountRoot, holders: [][2]string{{"sdb2", "dm-0"}, {"sdb2", "dm-1"}}, rules: strict("/dev/sdb"),
			want:       "sdb2 is held by dm-0, dm-1: device mapper, LVM, md or bcache is using it; release it first; STORTEST_ALLOW_DESTRUCTIVE does not override this",
			wantUnsafe: true, wantInUse: true},
		{name: "swap partition", mounts: mountRoot, swaps: "/dev/sdb3                               partition\t8388604\t\t0\t\t-2\n",
			rules: strict("/dev/sdb"), want: "sdb3 is in use as swap; swapoff it first", wantUnsafe: true, wantInUse: true},
		{name: "swap file", mounts: mountRoot, swaps: "/swap\\040file                            file\t\t1048572\t\t0\t\t-3\n",
			rules: strict("/dev/sdb")},
		{name: "in use, AllowMountedWrite, listed", mounts: mountRoot + mountSdb1, rules: Rules{AllowMountedWrite: true, ListVar: "STORTEST_ALLOW_DESTRUCTIVE", List: "/dev/sdb"}},
		{name: "in use, AllowMountedWrite, not listed", mounts: mountRoot + mountSdb1, rules: Rules{AllowMountedWrite: true, ListVar: "STORTEST_ALLOW_DESTRUCTIVE"},
			want: "a write workload destroys its data; list it in STORTEST_ALLOW_DESTRUCTIVE", wantUnsafe: true},
		{name: "malformed mountinfo", mounts: "garbage\n", rules: strict("/dev/sdb"), want: "mountinfo:1: 1 fields, want at least 5"},

		// fio's rule (the command line): refused in use unless
		// allow_mounted_write=1; otherwise written whatever it holds.
		{name: "fio: unused, not listed, holds a file system", mounts: mountRoot + sdc1, rules: fio, sig: "an ext2/3/4 file system"},
		{name: "fio: the disk is mounted", mounts: mountWhole, rules: fio,
			want:       "refusing to write /dev/sdb: sdb is mounted on /srv (ext4); unmount it first, or set allow_mounted_write=1 to write it anyway",
			wantUnsafe: true, wantInUse: true},
		{name: "fio: a partition is mounted", mounts: mountRoot + mountSdb1, rules: fio,
			want: "sdb1 is mounted on /mnt/data (xfs); unmount it first, or set allow_mounted_write=1", wantUnsafe: true, wantInUse: true},
		{name: "fio: held", mounts: mountRoot, holders: [][2]string{{"sdb", "md0"}}, rules: fio,
			want: "sdb is held by md0: device mapper, LVM, md or bcache is using it; release it first, or set allow_mounted_write=1", wantUnsafe: true, wantInUse: true},
		{name: "fio: swap", mounts: mountRoot, swaps: "/dev/sdb                                partition\t8388604\t\t0\t\t-2\n", rules: fio,
			want: "sdb is in use as swap; swapoff it first, or set allow_mounted_write=1", wantUnsafe: true, wantInUse: true},
		{name: "fio: allow_mounted_write=1, mounted", mounts: mountWhole, rules: fioAllow},
		{name: "fio: allow_mounted_write=1, held and swap", mounts: mountRoot, holders: [][2]string{{"sdb1", "dm-3"}},
			swaps: "/dev/sdb3                               partition\t8388604\t\t0\t\t-2\n", rules: fioAllow},
		{name: "fio: allow_mounted_write=1 reads the kernel's files all the same", mounts: "x\n", rules: fioAllow, want: "mountinfo:1: 1 fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.disk("sdb", "8:16", map[string]string{"sdb1": "8:17", "sdb2": "8:18", "sdb3": "8:19"})
			f.disk("sdc", "8:32", map[string]string{"sdc1": "8:33"})
			f.write(filepath.Join(f.proc, "self", "mountinfo"), tc.mounts)
			if tc.swaps != "" {
				f.write(filepath.Join(f.proc, "swaps"), "Filename\tType\tSize\tUsed\tPriority\n"+tc.swaps)
			}
			for _, h := range tc.holders {
				f.holder(h[0], h[1])
			}
			err := f.checkDev(sdb, tc.rules, tc.sig)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if errors.Is(err, ErrUnsafe) != tc.wantUnsafe {
				t.Errorf("errors.Is(err, ErrUnsafe) = %v", !tc.wantUnsafe)
			}
			var ue *UnsafeError
			if errors.As(err, &ue) && ue.InUse != tc.wantInUse {
				t.Errorf("InUse = %v", ue.InUse)
			}
		})
	}
}

// TestCheckDevMissingMountinfo: when the mount table cannot be read the
// write is refused, never allowed by default.
func TestCheckDevMissingMountinfo(t *testing.T) {
	f := newFixture(t)
	f.disk("sdb", "8:16", nil)
	if err := os.Remove(filepath.Join(f.proc, "self", "mountinfo")); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rules{strict("/dev/sdb"), {}, {AllowMountedWrite: true}} {
		err := f.checkDev(blockDev{path: "/dev/sdb", name: "sdb", majmin: "8:16"}, r, "")
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%+v: err = %v, want the missing mountinfo", r, err)
		}
	}
}

func TestAllowedResolvesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sdz")
	link := filepath.Join(dir, "by-id-ata-disk")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, allow string
		want        bool
	}{
		{target, link, true},
		{link, target, true},
		{target + "/", target, true},
		{target, target + "1", false},
		{target, "", false},
		{target, ",,", false},
	} {
		if got := allowed(tc.path, tc.allow); got != tc.want {
			t.Errorf("allowed(%q, %q) = %v, want %v", tc.path, tc.allow, got, tc.want)
		}
	}
}

func TestSignature(t *testing.T) {
	at := func(off int, magic string) []byte {
		b := make([]byte, signatureBytes)
		copy(b[off:], magic)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"zeros", make([]byte, signatureBytes), ""},
		{"short device", []byte{1, 2, 3}, ""},
		{"ext4", at(1080, "\x53\xef"), "an ext2/3/4 file system"},
		{"xfs", at(0, "XFSB"), "an xfs file system"},
		{"btrfs", at(65600, "_BHRfS_M"), "a btrfs file system"},
		{"swap", at(4086, "SWAPSPACE2"), "a swap area"},
		{"LUKS", at(0, "LUKS\xba\xbe"), "a LUKS volume"},
		{"LVM", at(536, "LVM2 001"), "an LVM physical volume"},
		{"GPT", append(at(510, "\x55\xaa")[:512], "EFI PART"...), "a GPT partition table"},
		{"MBR", at(510, "\x55\xaa"), "an MBR partition table or boot sector"},
		{"NTFS", at(3, "NTFS    "), "an NTFS file system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := signature(bytes.NewReader(tc.data)); got != tc.want {
				t.Errorf("signature = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/mnt/a\040b`:   "/mnt/a b",
		`/a\011b\134c`:  "/a\tb\\c",
		`/plain`:        "/plain",
		`/trailing\04`:  `/trailing\04`,
		`/bad\09x`:      `/bad\09x`,
		`\040`:          " ",
		`/x\`:           `/x\`,
		`/overflow\777`: `/overflow\777`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckWriteLoop checks a real loop device through /proc and /sys: a
// device stortest did not make is refused until it is listed.
func TestCheckWriteLoop(t *testing.T) {
	dev := attachLoop(t, 4<<20)
	err := Live().CheckWrite(dev.Path(), strict(""))
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "list it in STORTEST_ALLOW_DESTRUCTIVE") {
		t.Fatalf("unlisted loop device: %v", err)
	}
	if err := Live().CheckWrite(dev.Path(), strict("/dev/null,"+dev.Path())); err != nil {
		t.Fatalf("listed loop device: %v", err)
	}
	if err := Live().CheckWrite(dev.Path(), Rules{}); err != nil {
		t.Fatalf("fio's rule, an unused loop device: %v", err)
	}
	if use, err := Live().InUse(dev.Path()); use != "" || err != nil {
		t.Errorf("InUse = %q, %v", use, err)
	}
	if !IsBlockDevice(dev.Path()) || IsBlockDevice(dev.Backing()) || IsBlockDevice("/dev/null") {
		t.Errorf("IsBlockDevice is wrong about %s, %s or /dev/null", dev.Path(), dev.Backing())
	}
	if err := Live().CheckWrite(dev.Backing(), strict(dev.Backing())); err == nil || !strings.Contains(err.Error(), "not a block device") {
		t.Errorf("a regular file: %v", err)
	}
	// The disk holding / is mounted: refused even when listed.
	root, err := Live().mounted([]blockDev{{name: "none", majmin: rootMajMin(t)}})
	if err != nil || !strings.Contains(root, "is mounted on /") {
		t.Errorf("the root file system's device is not seen as mounted: %q, %v", root, err)
	}
}

// rootMajMin returns the MAJ:MIN of the file system mounted on /.
func rootMajMin(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == "/" {
			return f[2]
		}
	}
	t.Fatal("no mount on /")
	return ""
}

// TestCheckWriteRootDisk: the device of the root file system is refused
// even when listed, read through the live /proc and /sys.
func TestCheckWriteRootDisk(t *testing.T) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	src := ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == "/" {
			for i, x := range f {
				if x == "-" && i+2 < len(f) {
					src = f[i+2]
				}
			}
		}
	}
	if fi, err := os.Stat(src); err != nil || fi.Mode()&os.ModeDevice == 0 || fi.Mode()&os.ModeCharDevice != 0 {
		t.Skipf("/ is not mounted from a block device node (%q)", src)
	}
	err = Live().CheckWrite(src, strict(src))
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "is mounted on /") {
		t.Errorf("checkWrite(%s) = %v, want a refusal naming the mount", src, err)
	}
}
