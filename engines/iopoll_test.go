package engines

import (
	"os"
	"path/filepath"
	"testing"

	"stortest.dev/internal/kernelfs"
)

// ioPollOff reads <sys>/dev/block/MAJ:MIN/queue/io_poll of a fixture
// tree: a disk's own, a partition's disk's, and nothing (unknown).
func TestIOPollOffFixture(t *testing.T) {
	sys := t.TempDir()
	put := func(rel, s string) {
		p := filepath.Join(sys, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("devices/vda/queue/io_poll", "0\n")
	put("devices/nvme0n1/queue/io_poll", "1\n")
	for _, d := range []string{"devices/nvme0n1/nvme0n1p1", "devices/vda/vda1"} {
		if err := os.MkdirAll(filepath.Join(sys, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(sys, "dev/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"254:0": "../../devices/vda", "259:0": "../../devices/nvme0n1", "259:1": "../../devices/nvme0n1/nvme0n1p1", "254:1": "../../devices/vda/vda1"} {
		if err := os.Symlink(target, filepath.Join(sys, "dev/block", link)); err != nil {
			t.Fatal(err)
		}
	}
	k := kernelfs.At("", sys, "")
	for _, tc := range []struct {
		name string
		dev  uint64
		off  bool
		file string
	}{
		{"virtio", 0xfe00, true, "dev/block/254:0/queue/io_poll"},
		{"nvme", 0x10300, false, "dev/block/259:0/queue/io_poll"},
		{"nvme-partition", 0x10301, false, "dev/block/259:1/../queue/io_poll"},
		{"virtio-partition", 0xfe01, true, "dev/block/254:1/../queue/io_poll"},
		{"unknown", 0x0701, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, off := ioPollOff(k, tc.dev)
			want := ""
			if tc.file != "" {
				want = sys + "/" + tc.file // not Join: ".." must stay
			}
			if off != tc.off || p != want {
				t.Errorf("ioPollOff = %q, %v; want %q, %v", p, off, want, tc.off)
			}
		})
	}
}
