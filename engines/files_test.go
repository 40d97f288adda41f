package engines

import (
	"bytes"
	"os"
	"testing"
)

// TestUnitFileAddressesMore: a unit's File picks Config.File (0) or
// Config.More[k-1], for every engine that takes several files, with and
// without io_uring's registered files; a write lands in its own file at
// its offset and a read reads it back from there.
func TestUnitFileAddressesMore(t *testing.T) {
	const bs, nfiles, blocks = 4096, 3, 4
	cases := []struct {
		name string
		cfg  func(*Config)
	}{
		{"sync", nil}, {"psync", nil}, {"pvsync2", nil}, {"libaio", nil}, {"io_uring", nil},
		{"io_uring", func(c *Config) { c.RegisterFiles = true }}, {"posixaio", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fs []*os.File
			for range nfiles {
				fs = append(fs, openT(t, tempFile(t, bs*blocks), false))
			}
			bufs := allocBuffers(t, nfiles*blocks, bs)
			cfg := Config{File: fs[0], More: fs[1:], Depth: 4, Buffers: bufs.All()}
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			e := newEngine(t, c.name, cfg)
			var units []*Unit
			for k := range nfiles * blocks {
				f, b := k%nfiles, k/nfiles
				u := &Unit{Op: OpWrite, File: int32(f), Offset: int64(b * bs), Buf: bufs.Buf(k)[:bs], BufIndex: k}
				fill(u.Buf, u.Offset, f)
				units = append(units, u)
			}
			if _, err := drive(e, units); err != nil {
				t.Fatal(err)
			}
			for _, u := range units {
				if u.Res != bs {
					t.Fatalf("write file %d offset %d: res %d", u.File, u.Offset, u.Res)
				}
			}
			want := make([]byte, bs)
			for f, file := range fs {
				got, err := os.ReadFile(file.Name())
				if err != nil {
					t.Fatal(err)
				}
				for b := range blocks {
					fill(want, int64(b*bs), f)
					if !bytes.Equal(got[b*bs:(b+1)*bs], want) {
						t.Fatalf("file %d block %d does not hold the write addressed to it", f, b)
					}
				}
			}
			// Read back through the engine: file 2's block 1.
			u := &Unit{Op: OpRead, File: 2, Offset: bs, Buf: bufs.Buf(0)[:bs], BufIndex: 0}
			if _, err := drive(e, []*Unit{u}); err != nil || u.Res != bs {
				t.Fatalf("read: res %d, %v", u.Res, err)
			}
			fill(want, bs, 2)
			if !bytes.Equal(u.Buf, want) {
				t.Fatal("read of file 2 returned other bytes")
			}
			s := &Unit{Op: OpFsync, File: 1}
			if _, err := drive(e, []*Unit{s}); err != nil || s.Res != 0 {
				t.Fatalf("fsync of file 1: res %d, %v", s.Res, err)
			}
		})
	}
}
