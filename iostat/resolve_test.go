package iostat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

// sysTree builds a sysfs-like tree: device directories under devices/,
// with the links /sys/block, /sys/class/block and /sys/dev/block have.
type sysTree struct {
	t    *testing.T
	root string
}

func newSysTree(t *testing.T) sysTree {
	root := t.TempDir()
	for _, d := range []string{"block", "class/block", "dev/block"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return sysTree{t, root}
}

func (s sysTree) write(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s sysTree) link(rel, target string) {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		s.t.Fatal(err)
	}
}

// disk adds a whole device at devices/<bus>/block/<name>.
func (s sysTree) disk(bus, name string, major, minor uint32) {
	dir := filepath.Join("devices", bus, "block", name)
	s.write(filepath.Join(dir, "dev"), fmt.Sprintf("%d:%d\n", major, minor))
	s.write(filepath.Join(dir, "stat"), "1 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n")
	rel, _ := filepath.Rel(filepath.Join(s.root, "block"), filepath.Join(s.root, dir))
	s.link(filepath.Join("block", name), rel)
	s.link(filepath.Join("class", "block", name), filepath.Join("..", rel))
	s.link(filepath.Join("dev", "block", fmt.Sprintf("%d:%d", major, minor)), filepath.Join("..", rel))
}

// part adds a partition of a disk added before.
func (s sysTree) part(bus, disk, name string, major, minor uint32) {
	dir := filepath.Join("devices", bus, "block", disk, name)
	s.write(filepath.Join(dir, "dev"), fmt.Sprintf("%d:%d\n", major, minor))
	s.write(filepath.Join(dir, "stat"), "2 0 16 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n")
	s.write(filepath.Join(dir, "partition"), "1\n")
	rel, _ := filepath.Rel(filepath.Join(s.root, "block"), filepath.Join(s.root, dir))
	s.link(filepath.Join("class", "block", name), filepath.Join("..", rel))
	s.link(filepath.Join("dev", "block", fmt.Sprintf("%d:%d", major, minor)), filepath.Join("..", rel))
}

// slave makes under a slave of over (dm, md).
func (s sysTree) slave(over, under string) {
	target, err := filepath.EvalSymlinks(filepath.Join(s.root, "class", "block", under))
	if err != nil {
		s.t.Fatal(err)
	}
	overDir, err := filepath.EvalSymlinks(filepath.Join(s.root, "block", over))
	if err != nil {
		s.t.Fatal(err)
	}
	s.link(filepath.Join("devices", "virtual", "block", filepath.Base(overDir), "slaves", filepath.Base(target)), target)
}

func (s sysTree) fs() FS {
	s.t.Helper()
	f, err := NewFS(s.t.TempDir(), s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	return f
}

// realDevOf is the st_dev of a path on this machine.
func realDevOf(t *testing.T, p string) (uint32, uint32) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return DevNumbers(st.Dev)
}

func TestResolveDevice(t *testing.T) {
	s := newSysTree(t)
	s.disk("pci0", "sda", 8, 0)
	s.part("pci0", "sda", "sda1", 8, 1)
	s.disk("pci0", "sdb", 8, 16)
	s.disk("pci0", "sdc", 8, 32)
	s.disk("pci1", "cciss!c0d0", 104, 0)
	s.part("pci1", "cciss!c0d0", "cciss!c0d0p1", 104, 1)
	s.disk("virtual", "md0", 9, 0)
	s.slave("md0", "sdb")
	s.slave("md0", "sdc")
	s.disk("virtual", "dm-0", 253, 0)
	s.slave("dm-0", "sda1")
	s.slave("dm-0", "md0")
	s.disk("virtual", "dm-1", 253, 1) // dm over dm over a partition
	s.slave("dm-1", "dm-0")
	// A loop device whose backing file is a real file on this machine:
	// its st_dev is mapped through the fixture's dev/block.
	backing := filepath.Join(t.TempDir(), "backing.img")
	if err := os.WriteFile(backing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	maj, minr := realDevOf(t, backing)
	s.disk("pci2", "hostdisk", maj, minr)
	s.disk("virtual", "loop0", 7, 0)
	s.write("devices/virtual/block/loop0/loop/backing_file", backing+"\n")
	s.disk("virtual", "loop1", 7, 1) // a loop over a loop's... file deleted
	s.write("devices/virtual/block/loop1/loop/backing_file", backing+" (deleted)\n")
	f := s.fs()

	tests := []struct {
		name string
		want Resolution
	}{
		{"sda", Resolution{"sda", []string{"sda"}}},
		{"sda1", Resolution{"sda1", []string{"sda"}}},
		{"cciss!c0d0p1", Resolution{"cciss/c0d0p1", []string{"cciss/c0d0"}}},
		{"md0", Resolution{"md0", []string{"sdb", "sdc"}}},
		{"dm-0", Resolution{"dm-0", []string{"sda", "sdb", "sdc"}}},
		{"dm-1", Resolution{"dm-1", []string{"sda", "sdb", "sdc"}}},
		{"loop0", Resolution{"loop0", []string{"hostdisk"}}},
		{"loop1", Resolution{"loop1", []string{"hostdisk"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.ResolveDevice(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		if _, err := f.ResolveDevice("sdz"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("got %v, want ErrNoDevice", err)
		}
	})
	t.Run("parent", func(t *testing.T) {
		if p, err := f.Parent("sda1"); err != nil || p != "sda" {
			t.Errorf("Parent(sda1) = %q, %v", p, err)
		}
		if _, err := f.Parent("sda"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("Parent(sda): %v, want ErrNoDevice", err)
		}
	})
	t.Run("partition stat", func(t *testing.T) {
		ds, err := f.DeviceStat("sda1")
		if err != nil || ds.ReadIOs != 2 || ds.Major != 8 || ds.Minor != 1 {
			t.Errorf("DeviceStat(sda1) = %+v, %v", ds, err)
		}
		st, err := f.PartitionStat("sda", "sda1")
		if err != nil || st.ReadSectors != 16 {
			t.Errorf("PartitionStat = %+v, %v", st, err)
		}
		if ds, err := f.DeviceStat("cciss/c0d0"); err != nil || ds.Name != "cciss/c0d0" || ds.Major != 104 {
			t.Errorf("DeviceStat(cciss/c0d0) = %+v, %v", ds, err)
		}
	})
	t.Run("cycle", func(t *testing.T) {
		s.slave("md0", "dm-1") // md0 -> dm-1 -> dm-0 -> md0
		if _, err := f.ResolveDevice("dm-0"); err != nil {
			t.Errorf("a cycle: %v", err)
		}
	})
}

func TestResolvePaths(t *testing.T) {
	testenv.RequireRoot(t) // mknod
	s := newSysTree(t)
	s.disk("pci0", "sda", 8, 0)
	s.part("pci0", "sda", "sda1", 8, 1)
	f := s.fs()
	dir := t.TempDir()
	node := filepath.Join(dir, "sda1")
	if err := syscall.Mknod(node, syscall.S_IFBLK|0o600, int(8<<8|1)); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "by-label")
	if err := os.Symlink(node, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{node, link} {
		got, err := f.Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Resolution{"sda1", []string{"sda"}}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
	// A node for a device the tree does not have.
	other := filepath.Join(dir, "sdz")
	if err := syscall.Mknod(other, syscall.S_IFBLK|0o600, int(65<<8|0)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Resolve(other); !errors.Is(err, ErrNoDevice) {
		t.Errorf("unknown node: %v, want ErrNoDevice", err)
	}
}

func TestResolveRealFile(t *testing.T) {
	f := DefaultFS()
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	maj, minr := realDevOf(t, p)
	want, err := f.DeviceByNumber(maj, minr)
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("the temp directory is on %d:%d, not a block device", maj, minr)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Device != want || len(got.Disks) == 0 {
		t.Errorf("Resolve(%s) = %+v, want device %s with disks", p, got, want)
	}
	for _, d := range got.Disks {
		if _, err := f.BlockStat(d); err != nil {
			t.Errorf("disk %s has no stat: %v", d, err)
		}
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		if _, err := f.Resolve("/dev/shm"); !errors.Is(err, ErrNoDevice) {
			t.Errorf("tmpfs: %v, want ErrNoDevice", err)
		}
	}
}

func TestDevNumbers(t *testing.T) {
	tests := []struct {
		dev      uint64
		maj, min uint32
	}{
		{0xfe00, 254, 0},
		{0x0801, 8, 1},
		{0x10300, 259, 0},
		{0x12310345, 259, 0x12345},
		{0x100000023456, 0x1234, 0x56},
	}
	for _, tc := range tests {
		maj, minr := DevNumbers(tc.dev)
		if maj != tc.maj || minr != tc.min {
			t.Errorf("DevNumbers(%#x) = %d:%d, want %d:%d", tc.dev, maj, minr, tc.maj, tc.min)
		}
	}
}
