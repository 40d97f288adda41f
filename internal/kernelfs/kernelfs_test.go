package kernelfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDevNumbers(t *testing.T) {
	for _, tc := range []struct {
		dev          uint64
		major, minor uint32
	}{
		{0xfe00, 254, 0},
		{0x0701, 7, 1},
		{0x10300, 259, 0}, // NVMe's block major needs more than 8 bits
		{(259&0xfff)<<8 | (259&^0xfff)<<32 | (300 & 0xff) | (300&^0xff)<<12, 259, 300},
	} {
		t.Run(fmt.Sprintf("%#x", tc.dev), func(t *testing.T) {
			ma, mi := DevNumbers(tc.dev)
			if ma != tc.major || mi != tc.minor {
				t.Errorf("DevNumbers = %d:%d, want %d:%d", ma, mi, tc.major, tc.minor)
			}
		})
	}
}

// A fixture-rooted FS reads the fixture, never the running kernel; the
// zero FS reads the kernel's.
func TestRoots(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"proc/sys/kernel", "sys/dev/block/7:1", "dev"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, s string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/sys/kernel/osrelease", "6.1.0-fixture\n")
	write("sys/dev/block/7:1/size", " 2048\n")
	write("sys/dev/block/7:1/ro", "maybe\n")
	f, err := New(filepath.Join(root, "proc"), filepath.Join(root, "sys"), filepath.Join(root, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ReadString(f.ProcPath("sys", "kernel", "osrelease")); err != nil || s != "6.1.0-fixture" {
		t.Errorf("osrelease = %q, %v", s, err)
	}
	if n, err := ReadInt(f.DevBlockPath(0x0701, "size")); err != nil || n != 2048 {
		t.Errorf("size = %d, %v", n, err)
	}
	if _, err := ReadInt(f.DevBlockPath(0x0701, "ro")); err == nil || !strings.Contains(err.Error(), "ro") || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("ReadInt of a word: %v, want an error naming the file and the text", err)
	}
	if got, want := f.DevPath("loop0"), filepath.Join(root, "dev", "loop0"); got != want {
		t.Errorf("DevPath = %q, want %q", got, want)
	}
	var live FS
	if live.ProcPath("swaps") != "/proc/swaps" || live.SysPath("block") != "/sys/block" || live.DevPath("loop0") != "/dev/loop0" {
		t.Errorf("the zero FS is not the running kernel's: %q %q %q", live.ProcPath("swaps"), live.SysPath("block"), live.DevPath("loop0"))
	}
	if got := f.WithDev("").DevPath("x"); got != "/dev/x" {
		t.Errorf("WithDev(\"\") = %q, want /dev/x", got)
	}
	if _, err := New(filepath.Join(root, "proc", "sys", "kernel", "osrelease"), "", ""); err == nil {
		t.Error("New accepted a file as the proc root")
	}
}
