package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/internal/testenv"
)

// loopDisk attaches a loop device over a new sparse file of size bytes,
// whose first bytes are head, and detaches it in t.Cleanup (registered
// first, so it runs after the unmounts and swapoffs of the test).
func loopDisk(t *testing.T, size int64, head []byte) *engines.Loop {
	t.Helper()
	return testenv.AttachLoop(t, size, head, func(backing string) (*engines.Loop, error) {
		return engines.AttachLoop(backing, engines.LoopOptions{})
	})
}

// runTool runs a command, stopping the test with its output when it fails.
func runTool(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// mountExt4 makes an ext4 file system on dev (its inode tables and
// journal written now, so that nothing writes them in the background
// later) and mounts it on a temp dir, unmounted in t.Cleanup.
func mountExt4(t *testing.T, dev string) string {
	t.Helper()
	runTool(t, testenv.RequireTool(t, "mkfs.ext4"), "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev)
	dir := t.TempDir()
	if err := unix.Mount(dev, dir, "ext4", 0, ""); err != nil {
		t.Fatalf("mount %s on %s: %v", dev, dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	unix.Sync()
	return dir
}

// readHead reads the first n bytes of dev with O_DIRECT: what the
// device holds, not what the page cache does.
func readHead(t *testing.T, dev string, n int) []byte {
	t.Helper()
	f, err := engines.OpenFile(dev, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := engines.AllocBuffers(1, n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	buf := b.Buf(0)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(buf)
}

// stortestRun runs `stortest run args...` in-process and returns its exit
// status, stdout and stderr.
func stortestRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runMain(append([]string{"run", "--progress=off"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// ioBytes reads each job's read and write io_bytes from fio's JSON.
func ioBytes(t *testing.T, out string) (read, write []int64) {
	t.Helper()
	var doc struct {
		Jobs []struct {
			Read, Write struct {
				IOBytes int64 `json:"io_bytes"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output: %v\n%s", err, out)
	}
	for _, j := range doc.Jobs {
		read, write = append(read, j.Read.IOBytes), append(write, j.Write.IOBytes)
	}
	return read, write
}

// The command line: a write job on a block device with a mounted
// ext4 is refused before any I/O, as fio refuses it, naming the job, the
// device, the mount and the override; the device is untouched and the
// file system clean. Reads still run, and allow_mounted_write=1 lets the
// write through.
func TestRunRefusesMountedDevice(t *testing.T) {
	loop := loopDisk(t, 64<<20, nil)
	dev := loop.Path()
	dir := mountExt4(t, dev)
	before := readHead(t, dev, 1<<20)
	name := filepath.Base(dev)

	job := []string{"--name=w", "--rw=write", "--bs=4k", "--ioengine=psync", "--direct=1", "--filename=" + dev, "--size=1m", "--runtime=1"}
	code, stdout, stderr := stortestRun(job...)
	want := fmt.Sprintf("stortest run: job w: refusing to write %s: %s is mounted on %s (ext4); unmount it first, or set allow_mounted_write=1 to write it anyway\n", dev, name, dir)
	if code != 1 || stderr != want || stdout != "" {
		t.Errorf("write job: exit %d, stderr %q, stdout %q; want exit 1 and %q", code, stderr, stdout, want)
	}

	// Every way a job writes or trims the device is refused, and a run
	// with one such job does no I/O at all: its read job does not run
	// either.
	iolog := filepath.Join(t.TempDir(), "replay.log")
	if err := os.WriteFile(iolog, []byte("fio version 2 iolog\n"+dev+" add\n"+dev+" open\n"+dev+" write 0 4096\n"+dev+" close\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(t.TempDir(), "two.fio")
	if err := os.WriteFile(jobFile, []byte("[global]\nfilename="+dev+"\nsize=1m\nioengine=psync\n[r]\nrw=read\n[w]\nrw=randwrite\nnumjobs=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"randrw", []string{"--name=mix", "--rw=randrw", "--filename=" + dev, "--size=1m"}, "job mix: refusing to write " + dev},
		{"trim", []string{"--name=t", "--rw=randtrim", "--filename=" + dev, "--size=1m"}, "job t: refusing to write " + dev},
		{"trimwrite", []string{"--name=tw", "--rw=trimwrite", "--filename=" + dev, "--size=1m"}, "job tw: refusing"},
		{"verify", []string{"--name=v", "--rw=write", "--verify=crc32c", "--filename=" + dev, "--size=1m"}, "job v: refusing"},
		{"directory", []string{"--name=d", "--rw=write", "--directory=/dev", "--filename=" + name, "--size=1m"}, "job d: refusing to write " + dev},
		{"allow_mounted_write=0", []string{"--name=z", "--rw=write", "--allow_mounted_write=0", "--filename=" + dev, "--size=1m"}, "job z: refusing"},
		{"read_iolog", []string{"--name=replay", "--read_iolog=" + iolog}, "job replay: refusing to write " + dev},
		{"job file, a read job before", []string{"--output-format=json", jobFile}, "job w: refusing to write " + dev},
	} {
		code, stdout, stderr := stortestRun(tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "set allow_mounted_write=1") || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 1 and %q", tc.name, code, stderr, stdout, tc.want)
		}
	}

	// Reads of a mounted device are allowed, as in fio.
	code, stdout, stderr = stortestRun("--output-format=json", "--name=r", "--rw=read", "--bs=4k", "--ioengine=psync", "--direct=1", "--filename="+dev, "--size=1m")
	if read, _ := ioBytes(t, stdout); code != 0 || len(read) != 1 || read[0] != 1<<20 {
		t.Errorf("read job: exit %d, read %v bytes, stderr %q", code, read, stderr)
	}

	if after := readHead(t, dev, 1<<20); !bytes.Equal(before, after) {
		t.Errorf("the first MiB of %s changed", dev)
	}
	if err := unix.Unmount(dir, 0); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testenv.RequireTool(t, "e2fsck"), "-n", "-f", dev).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -n -f %s: %v\n%s", dev, err, out)
	}
}

// allow_mounted_write=1 writes a mounted device, as fio's does (on a
// device of its own: the file system is wrecked).
func TestRunAllowMountedWrite(t *testing.T) {
	dev := loopDisk(t, 64<<20, nil).Path()
	mountExt4(t, dev)
	before := readHead(t, dev, 1<<20)
	code, stdout, stderr := stortestRun("--output-format=json", "--name=w", "--rw=write", "--bs=4k", "--ioengine=psync", "--direct=1",
		"--filename="+dev, "--size=1m", "--allow_mounted_write=1")
	if _, write := ioBytes(t, stdout); code != 0 || len(write) != 1 || write[0] != 1<<20 {
		t.Fatalf("exit %d, wrote %v bytes, stderr %q", code, write, stderr)
	}
	if bytes.Equal(before, readHead(t, dev, 1<<20)) {
		t.Errorf("%s: the first MiB is unchanged after a 1 MiB write", dev)
	}
}

// mbr is a DOS partition table with two partitions of 16 MiB from 1 MiB.
func mbr() []byte {
	b := make([]byte, 512)
	for i, start := range []uint32{2048, 2048 + 32768} {
		e := b[446+16*i:]
		e[4] = 0x83
		copy(e[8:], []byte{byte(start), byte(start >> 8), byte(start >> 16), byte(start >> 24)})
		copy(e[12:], []byte{0, 0x80, 0, 0}) // 32768 sectors
	}
	b[510], b[511] = 0x55, 0xaa
	return b
}

// addPartition tells the kernel about partition pno of disk (BLKPG, as
// partx -a does; the kernel's own scan of a loop device is not relied
// on), waits for its node and removes it in t.Cleanup.
func addPartition(t *testing.T, disk string, pno int32, start, length int64) string {
	t.Helper()
	f, err := os.OpenFile(disk, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	blkpg := func(op int32) error {
		p := unix.BlkpgPartition{Start: start, Length: length, Pno: pno}
		a := unix.BlkpgIoctlArg{Op: op, Datalen: int32(unsafe.Sizeof(p)), Data: (*byte)(unsafe.Pointer(&p))}
		const ioctlBLKPG = 0x1269
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), ioctlBLKPG, uintptr(unsafe.Pointer(&a)))
		if errno != 0 {
			return errno
		}
		return nil
	}
	if err := blkpg(unix.BLKPG_ADD_PARTITION); err != nil {
		t.Skipf("BLKPG_ADD_PARTITION on %s: %v", disk, err)
	}
	t.Cleanup(func() {
		if err := blkpg(unix.BLKPG_DEL_PARTITION); err != nil && !errors.Is(err, unix.ENXIO) {
			t.Errorf("BLKPG_DEL_PARTITION %s %d: %v", disk, pno, err)
		}
	})
	part := fmt.Sprintf("%sp%d", disk, pno)
	for range 100 {
		if _, err := os.Stat(part); err == nil {
			return part
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Skipf("no device node %s after adding the partition (no devtmpfs?)", part)
	return ""
}

// A disk with a mounted partition is refused, though fio (which looks
// for a mount of the file itself) would write it; its other partition,
// in no use, is written.
func TestRunRefusesDiskWithMountedPartition(t *testing.T) {
	disk := loopDisk(t, 48<<20, mbr()).Path()
	p1 := addPartition(t, disk, 1, 1<<20, 16<<20)
	p2 := addPartition(t, disk, 2, 17<<20, 16<<20)
	dir := mountExt4(t, p1)
	code, stdout, stderr := stortestRun("--name=whole", "--rw=write", "--filename="+disk, "--offset=40m", "--size=1m")
	want := fmt.Sprintf("job whole: refusing to write %s: %s is mounted on %s (ext4); unmount it first, or set allow_mounted_write=1", disk, filepath.Base(p1), dir)
	if code != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("the disk: exit %d, stderr %q, stdout %q; want %q", code, stderr, stdout, want)
	}
	code, stdout, stderr = stortestRun("--name=p1", "--rw=write", "--filename="+p1, "--size=1m")
	if code != 1 || !strings.Contains(stderr, "job p1: refusing to write "+p1) {
		t.Errorf("the mounted partition: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = stortestRun("--output-format=json", "--name=p2", "--rw=write", "--filename="+p2, "--size=1m")
	if _, write := ioBytes(t, stdout); code != 0 || len(write) != 1 || write[0] != 1<<20 {
		t.Errorf("the other partition: exit %d, wrote %v, stderr %q", code, write, stderr)
	}
}

// A device used as swap is refused for writes (the kernel would fail each
// write with ETXTBSY, after the job started); reads run.
func TestRunRefusesSwapDevice(t *testing.T) {
	dev := loopDisk(t, 16<<20, nil).Path()
	runTool(t, testenv.RequireTool(t, "mkswap"), dev)
	if out, err := exec.Command(testenv.RequireTool(t, "swapon"), dev).CombinedOutput(); err != nil {
		t.Skipf("swapon %s: %v: %s", dev, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("swapoff", dev).CombinedOutput(); err != nil {
			t.Errorf("swapoff %s: %v: %s", dev, err, out)
		}
	})
	code, stdout, stderr := stortestRun("--name=s", "--rw=randwrite", "--filename="+dev, "--size=1m")
	want := fmt.Sprintf("job s: refusing to write %s: %s is in use as swap; swapoff it first, or set allow_mounted_write=1 to write it anyway", dev, filepath.Base(dev))
	if code != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want %q", code, stderr, stdout, want)
	}
	code, _, stderr = stortestRun("--name=r", "--rw=randread", "--filename="+dev, "--size=1m")
	if code != 0 {
		t.Errorf("read: exit %d, stderr %q", code, stderr)
	}
}

// A device in no use is written whatever it holds, as fio writes it: an
// ext4 file system that is not mounted is not a reason to refuse (the
// test API, stricter, wants such a device listed).
func TestRunWritesUnmountedFileSystem(t *testing.T) {
	dev := loopDisk(t, 32<<20, nil).Path()
	runTool(t, testenv.RequireTool(t, "mkfs.ext4"), "-q", "-F", dev)
	code, stdout, stderr := stortestRun("--output-format=json", "--name=w", "--rw=write", "--filename="+dev, "--size=1m")
	if _, write := ioBytes(t, stdout); code != 0 || len(write) != 1 || write[0] != 1<<20 {
		t.Errorf("exit %d, wrote %v bytes, stderr %q", code, write, stderr)
	}
}
