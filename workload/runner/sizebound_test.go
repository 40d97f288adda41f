package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// A size-bound job whose size is not a multiple of the block size moves
// the I/Os fio 3.33 moves: filesize sizes the region (offsets are drawn
// in all of it) and size bounds the bytes issued, the I/O that reaches it
// being the last; a sequential job's last block may start inside the
// region and end past it where the file goes on (a larger file, a
// filesize, the null engine with filesize alone), a random one draws only
// the region's whole blocks; loops and io_size multiply the bytes. fio is
// the reference each time; want is its count, as measured with fio 3.33.
func TestSizeBoundRoundingMatchesFio(t *testing.T) {
	cases := []struct {
		name, opts string
		want       uint64 // fio 3.33's I/Os (every direction)
	}{
		{"size-read", "size=10000\nrw=read", 2},
		{"size-randread", "size=10000\nrw=randread", 2},
		{"size-write", "size=10000\nrw=write", 2},
		{"size-norandommap", "size=10000\nrw=randread\nnorandommap=1", 3},
		{"filesize-read", "filesize=20480\nsize=10000\nrw=read", 3},
		{"filesize-randread", "filesize=20480\nsize=10000\nrw=randread", 3},
		{"filesize-write", "filesize=20480\nsize=10000\nrw=write", 3},
		{"filesize-randwrite", "filesize=20480\nsize=10000\nrw=randwrite", 3},
		{"filesize-rw", "filesize=20480\nsize=10000\nrw=rw", 3},
		{"filesize-randrw", "filesize=20480\nsize=10000\nrw=randrw", 3},
		{"filesize-loops", "filesize=20480\nsize=10000\nrw=read\nloops=2", 5},
		{"filesize-randloops", "filesize=20480\nsize=10000\nrw=randread\nloops=2", 5},
		{"filesize-io_size", "filesize=20480\nsize=10000\nio_size=30000\nrw=read", 8},
		{"filesize-offset", "filesize=20480\nsize=12288\noffset=4096\nrw=read", 3},
		{"filesize-offset-nosize", "filesize=20480\noffset=4096\nrw=read", 4},
		{"filesize-below-size", "filesize=6026\nsize=10000\nrw=read", 1},
		{"filesize-verify", "filesize=20480\nsize=10000\nrw=write\nverify=crc32c", 6},
		{"larger-file-read", "filename=pre\nsize=10000\nrw=read", 3},
		{"larger-file-randread", "filename=pre\nsize=10000\nrw=randread", 2},
		{"size-rw", "size=30000\nrw=rw", 8},
		{"null-filesize", "ioengine=null\nfilesize=6026\nrw=read", 2},
		{"null-filesize-randread", "ioengine=null\nfilesize=6026\nrw=randread", 1},
		{"null-size", "ioengine=null\nsize=6026\nrw=read", 1},
		{"null-size-offset", "ioengine=null\nsize=8192\noffset=4096\nrw=read", 2},
	}
	var b strings.Builder
	b.WriteString("[global]\nbs=4k\n")
	for _, c := range cases {
		fmt.Fprintf(&b, "[%s]\n%s\n", c.name, c.opts)
	}
	// pre: a file larger than the job's size, laid out before the run.
	fio, ours := runBoth(t, "round.fio", b.String(), map[string]string{"pre": strings.Repeat("\x00", 20480)})
	require.Len(t, fio.Jobs, len(cases))
	require.Len(t, ours.Jobs, len(cases))
	for i, c := range cases {
		f, o := fio.Jobs[i], ours.Jobs[i]
		require.Equal(t, c.name, f.Name)
		require.Equal(t, c.name, o.Name)
		var n uint64
		for d := range workload.NumDirs {
			n += f.IOs[d]
		}
		assert.Equal(t, c.want, n, "%s: fio 3.33's count", c.name)
		assert.Equal(t, f.IOs, o.IOs, "%s: I/Os by direction (fio, stortest)", c.name)
		assert.Equal(t, f.Bytes, o.Bytes, "%s: bytes by direction (fio, stortest)", c.name)
	}
}
