package baselines

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/internal/kernelfs"
	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// sysFixture builds a sysfs and procfs tree: files maps paths relative to
// the root to contents, links maps symlink paths to targets (relative, as
// sysfs has them) whose directories are created.
type sysFixture struct {
	root string
}

func newSysFixture(t *testing.T) *sysFixture {
	t.Helper()
	f := &sysFixture{root: t.TempDir()}
	f.file(t, "proc/sys/kernel/osrelease", "6.18.44-test\n")
	return f
}

func (f *sysFixture) file(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(f.root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// device links sys/dev/block/MAJ:MIN to devpath under sys/devices, as
// the kernel does, and marks partitions.
func (f *sysFixture) device(t *testing.T, dev uint64, devpath string, partition bool) {
	t.Helper()
	major, minor := kernelfs.DevNumbers(dev)
	target := filepath.Join(f.root, "sys", "devices", devpath)
	require.NoError(t, os.MkdirAll(target, 0o755))
	if partition {
		f.file(t, filepath.Join("sys", "devices", devpath, "partition"), "2\n")
	}
	link := filepath.Join(f.root, "sys", "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("..", "..", "devices", devpath), link))
}

func (f *sysFixture) opts(engine string) ProbeOptions {
	return ProbeOptions{SysRoot: filepath.Join(f.root, "sys"), ProcRoot: filepath.Join(f.root, "proc"), Engine: engine}
}

// fileDev returns the device number of the file system holding path.
func fileDev(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return uint64(fi.Sys().(*syscall.Stat_t).Dev)
}

// blockNode finds a block device node whose number differs from avoid.
func blockNode(t *testing.T, avoid uint64) (string, uint64) {
	t.Helper()
	entries, _ := os.ReadDir("/dev")
	for _, e := range entries {
		p := filepath.Join("/dev", e.Name())
		fi, err := os.Stat(p)
		if err != nil || fi.Mode()&fs.ModeDevice == 0 || fi.Mode()&fs.ModeCharDevice != 0 {
			continue
		}
		if rdev := uint64(fi.Sys().(*syscall.Stat_t).Rdev); rdev != avoid {
			return p, rdev
		}
	}
	t.Skip("no block device node in /dev to stand for a device")
	return "", 0
}

// nodeSize is what BLKGETSIZE64 says of a real device node, 0 when it
// cannot be opened. The nodes of blockNode are real and the sysfs around
// them made up, so a node with a size (an attached loop device) has its
// own, and one without sysfs's.
func nodeSize(node string) uint64 {
	f, err := os.Open(node)
	if err != nil {
		return 0
	}
	defer f.Close()
	n, err := engines.Size(f)
	if err != nil {
		return 0
	}
	return uint64(n)
}

func TestProbe(t *testing.T) {
	version := "stortest-" + workload.Version
	for _, tc := range []struct {
		name      string
		inFile    bool // the target is a file in the directory, not the directory
		partition bool
		devpath   string
		files     map[string]string
		engine    string
		want      Fingerprint
	}{
		{"file-on-nvme-partition", true, true, "pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2", map[string]string{
			"sys/block/nvme0n1/device/model":        "Samsung SSD 980 PRO 1TB                 \n",
			"sys/block/nvme0n1/device/serial":       "S5GXNF0R123456\n",
			"sys/block/nvme0n1/device/firmware_rev": "5B2QGXA7\n",
		}, "io_uring", Fingerprint{Kind: "file", Device: "nvme0n1", Model: "Samsung SSD 980 PRO 1TB", Serial: "S5GXNF0R123456",
			Firmware: "5B2QGXA7", Kernel: "6.18.44-test", Engine: "io_uring", Version: version}},
		{"file-on-scsi-disk", false, false, "pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda", map[string]string{
			"sys/block/sda/device/vendor": "ATA     \n",
			"sys/block/sda/device/model":  "WDC WD40EFRX-68N\n",
			"sys/block/sda/device/rev":    "0A82\n",
		}, "psync", Fingerprint{Kind: "file", Device: "sda", Vendor: "ATA", Model: "WDC WD40EFRX-68N", Firmware: "0A82",
			Kernel: "6.18.44-test", Engine: "psync", Version: version}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newSysFixture(t)
			target := t.TempDir()
			if tc.inFile {
				target = filepath.Join(target, "scratch")
				require.NoError(t, os.WriteFile(target, nil, 0o644))
			}
			fx.device(t, fileDev(t, target), tc.devpath, tc.partition)
			for name, content := range tc.files {
				fx.file(t, name, content)
			}
			got, err := Probe(target, fx.opts(tc.engine))
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("virtio-serial", func(t *testing.T) {
		fx := newSysFixture(t)
		target := t.TempDir()
		fx.device(t, fileDev(t, target), "pci0000:00/0000:00:02.0/virtio1/block/vda", false)
		fx.file(t, "sys/block/vda/device/vendor", "0x1af4\n")
		fx.file(t, "sys/block/vda/serial", "ci-disk-7\n")
		got, err := Probe(target, fx.opts(""))
		require.NoError(t, err)
		require.Equal(t, "vda", got.Device)
		require.Equal(t, "0x1af4", got.Vendor)
		require.Equal(t, "ci-disk-7", got.Serial)
		require.Empty(t, got.Model)
	})
	t.Run("unresolvable-device", func(t *testing.T) {
		fx := newSysFixture(t)
		got, err := Probe(t.TempDir(), fx.opts("sync"))
		require.NoError(t, err)
		require.Equal(t, Fingerprint{Kind: "file", Kernel: "6.18.44-test", Engine: "sync", Version: version}, got)
	})
	t.Run("block-device", func(t *testing.T) {
		fx := newSysFixture(t)
		node, rdev := blockNode(t, 0)
		fx.device(t, rdev, "pci0000:00/0000:00:05.0/host1/target1:0:0/1:0:0:0/block/sdb", false)
		fx.file(t, "sys/block/sdb/device/model", "Test Disk\n")
		fx.file(t, "sys/block/sdb/device/firmware_rev", "1.2\n")
		fx.file(t, "sys/devices/pci0000:00/0000:00:05.0/host1/target1:0:0/1:0:0:0/block/sdb/size", "7814037168\n")
		got, err := Probe(node, fx.opts("libaio"))
		require.NoError(t, err)
		require.Equal(t, "block", got.Kind)
		require.Equal(t, "sdb", got.Device)
		require.Equal(t, "1.2", got.Firmware)
		want := uint64(7814037168 * 512) // sectors of 512 bytes, whatever the block size
		if n := nodeSize(node); n > 0 {
			want = n
		}
		require.Equal(t, want, got.Size)
	})
	t.Run("loop-device", func(t *testing.T) {
		fx := newSysFixture(t)
		backing := filepath.Join(t.TempDir(), "disk.img")
		require.NoError(t, os.WriteFile(backing, nil, 0o644))
		bdev := fileDev(t, backing)
		node, rdev := blockNode(t, bdev)
		fx.device(t, rdev, "virtual/block/loop3", false)
		fx.file(t, "sys/block/loop3/loop/backing_file", backing+"\n")
		fx.device(t, bdev, "pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", false)
		fx.file(t, "sys/block/nvme0n1/device/model", "Fast NVMe\n")
		fx.file(t, "sys/block/nvme0n1/device/serial", "SN1\n")
		fx.file(t, "sys/block/nvme0n1/device/firmware_rev", "2.0\n")
		got, err := Probe(node, fx.opts("io_uring"))
		require.NoError(t, err)
		want := Fingerprint{Kind: "loop", Device: "loop3", Model: "loop", Backing: backing,
			BackingDevice: "nvme0n1 (Fast NVMe, serial SN1, firmware 2.0)", Kernel: "6.18.44-test", Engine: "io_uring", Version: version,
			Size: nodeSize(node)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("missing-target", func(t *testing.T) {
		_, err := Probe(filepath.Join(t.TempDir(), "nope"), newSysFixture(t).opts(""))
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.ErrorContains(t, err, "baselines: fingerprint")
	})
	t.Run("hostname", func(t *testing.T) {
		o := newSysFixture(t).opts("")
		o.Hostname = true
		got, err := Probe(t.TempDir(), o)
		require.NoError(t, err)
		h, _ := os.Hostname()
		require.Equal(t, h, got.Hostname)
	})
}

// The live system: whatever it is, Probe reads it without error.
func TestProbeLive(t *testing.T) {
	fp, err := Probe(t.TempDir(), ProbeOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, fp.Kernel)
	t.Logf("%+v", fp)
}

func TestFingerprintDiff(t *testing.T) {
	base := Fingerprint{Kind: "block", Device: "nvme0n1", Model: "M", Serial: "S1", Firmware: "1.2", Kernel: "6.1", Engine: "io_uring", Version: "stortest-0.1.0", Hostname: "ci-1"}
	for _, tc := range []struct {
		name string
		cur  func(f *Fingerprint)
		want []string
	}{
		{"same", func(*Fingerprint) {}, nil},
		{"firmware", func(f *Fingerprint) { f.Firmware = "1.3" }, []string{"firmware 1.2 -> 1.3"}},
		{"kernel-and-engine", func(f *Fingerprint) { f.Kernel, f.Engine = "6.6", "libaio" }, []string{"kernel 6.1 -> 6.6", "engine io_uring -> libaio"}},
		{"serial-gone", func(f *Fingerprint) { f.Serial = "" }, []string{"serial S1 -> (none)"}},
		{"hostname-differs", func(f *Fingerprint) { f.Hostname = "ci-2" }, []string{"hostname ci-1 -> ci-2"}},
		{"hostname-absent", func(f *Fingerprint) { f.Hostname = "" }, nil},
		{"loop-backing", func(f *Fingerprint) {
			f.Kind, f.Model, f.BackingDevice = "loop", "loop", "vda (firmware 2)"
		}, []string{"kind block -> loop", "model M -> loop", "backing device (none) -> vda (firmware 2)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base
			tc.cur(&cur)
			var got []string
			for _, c := range base.Diff(cur) {
				got = append(got, c.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffJobs(t *testing.T) {
	base := workload.Job{Name: "j", Filename: "/dev/loop3", Engine: "io_uring", RW: workload.RandRead, IODepth: 32, Runtime: time.Minute}
	for _, tc := range []struct {
		name string
		cur  func(j *workload.Job)
		want []string
	}{
		{"same", func(*workload.Job) {}, nil},
		{"target-and-name-ignored", func(j *workload.Job) { j.Filename, j.Name, j.Description = "/dev/loop9", "k", "x" }, nil},
		{"defaults-are-equal", func(j *workload.Job) { j.BlockSize = 4096 }, nil},
		{"iodepth", func(j *workload.Job) { j.IODepth = 16 }, []string{"iodepth 32 -> 16"}},
		{"runtime", func(j *workload.Job) { j.Runtime = 30 * time.Second }, []string{"runtime 1m0s -> 30s"}},
		{"rw-and-direct", func(j *workload.Job) { j.RW, j.Direct = workload.RandWrite, true }, []string{"rw randread -> randwrite", "direct (none) -> true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base
			tc.cur(&cur)
			var got []string
			for _, c := range DiffJobs(base, cur) {
				got = append(got, c.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A file's size is its length; a directory has none.
func TestProbeFileSize(t *testing.T) {
	fx := newSysFixture(t)
	target := filepath.Join(t.TempDir(), "scratch")
	require.NoError(t, os.WriteFile(target, make([]byte, 12345), 0o644))
	got, err := Probe(target, fx.opts("psync"))
	require.NoError(t, err)
	require.Equal(t, uint64(12345), got.Size)
}

// A block device's size is what the kernel says of it (BLKGETSIZE64): a
// loop device is as large as its backing file.
func TestProbeBlockDeviceSize(t *testing.T) {
	testenv.RequireDevices(t, "loop-control")
	s, err := runner.NewScratch(runner.ScratchOptions{Dir: t.TempDir(), Size: 3 << 20, Loop: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	got, err := Probe(s.Path, ProbeOptions{Engine: "psync"})
	require.NoError(t, err)
	require.Equal(t, "loop", got.Kind)
	require.Equal(t, uint64(3<<20), got.Size)
	file, err := Probe(s.File, ProbeOptions{})
	require.NoError(t, err)
	require.Equal(t, uint64(3<<20), file.Size, "the backing file's length")
}

// A different device is a mismatch; the same device changed is not.
func TestDeviceMismatch(t *testing.T) {
	base := Fingerprint{Kind: "block", Device: "nvme0n1", Model: "M", Serial: "S1", Firmware: "1.2", Kernel: "6.1", Size: 1 << 40}
	for _, tc := range []struct {
		name string
		edit func(*Fingerprint)
		want []string
	}{
		{"same", func(*Fingerprint) {}, nil},
		{"firmware-and-kernel", func(f *Fingerprint) { f.Firmware, f.Kernel = "1.3", "6.2" }, nil},
		{"renamed", func(f *Fingerprint) { f.Device = "nvme1n1" }, nil},
		{"serial", func(f *Fingerprint) { f.Serial = "S2" }, []string{"serial S1 -> S2"}},
		{"model-and-size", func(f *Fingerprint) { f.Model, f.Size = "N", 1<<39 },
			[]string{"model M -> N", "size 1099511627776 (1TiB) -> 549755813888 (512GiB)"}},
		{"unknown-size", func(f *Fingerprint) { f.Size = 0 }, nil},
		{"imported", func(f *Fingerprint) { *f = Fingerprint{Version: "fio-3.33"} }, nil},
		{"loop-backing", func(f *Fingerprint) { f.Backing = "/b" }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base
			tc.edit(&cur)
			var got []string
			for _, c := range base.DeviceMismatch(cur) {
				got = append(got, c.String())
			}
			require.Equal(t, tc.want, got)
		})
	}
	a := Fingerprint{Kind: "loop", Model: "loop", Backing: "/dev/shm/a"}
	b := a
	b.Backing = "/dev/shm/b"
	require.Equal(t, []Change{{Field: "backing file", Old: "/dev/shm/a", New: "/dev/shm/b"}}, a.DeviceMismatch(b))
}
