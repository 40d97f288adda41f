package runner

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileIOs is what a write_iolog says of a job of several files: the
// file of each read or write in order, and the bytes each file moved per
// direction.
type fileIOs struct {
	Order []string
	Bytes map[string][2]int64 // file: read, write
}

func parseFileIOs(t *testing.T, text string) fileIOs {
	t.Helper()
	r := fileIOs{Bytes: map[string][2]int64{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || (f[2] != "read" && f[2] != "write") {
			continue
		}
		n, err := strconv.ParseInt(f[4], 10, 64)
		require.NoError(t, err, "%q", sc.Text())
		b := r.Bytes[f[1]]
		if f[2] == "read" {
			b[0] += n
		} else {
			b[1] += n
		}
		r.Bytes[f[1]] = b
		r.Order = append(r.Order, f[1])
	}
	return r
}

// compareFiles runs the job file under fio 3.33 and stortest and checks
// that they make the same files (names and sizes), move the same I/O
// counts and bytes per job and direction, and, from both tools'
// write_iolog (each job's write_iolog=<name>.iolog), that each file
// moved the same bytes; with order, the files were served in the same
// order. It returns fio's logs.
func compareFiles(t *testing.T, text string, order bool) map[string]fileIOs {
	t.Helper()
	fio, ours := runBoth(t, "files.fio", text, nil)
	require.NotEmpty(t, fio.Jobs)
	assert.Equal(t, fio.Jobs, ours.Jobs, "I/O counts and bytes per job")
	assert.Equal(t, fio.Files, ours.Files, "files made (name: size)")
	require.Equal(t, sortedKeys(fio.IOLogs), sortedKeys(ours.IOLogs), "write_iolog files")
	logs := map[string]fileIOs{}
	for name, text := range fio.IOLogs {
		f, o := parseFileIOs(t, text), parseFileIOs(t, ours.IOLogs[name])
		require.NotEmpty(t, f.Order, "fio's %s logs no I/O", name)
		assert.Equal(t, f.Bytes, o.Bytes, "%s: bytes per file (read, write)", name)
		if order {
			assert.Equal(t, f.Order, o.Order, "%s: the file of each I/O in order", name)
		}
		logs[name] = f
	}
	return logs
}

// nrfiles with the engines that move data, sequential, round robin
// (fio's default service): fio's per-file names, size split over the
// files (the whole blocks left over go to the first ones), each file
// walked from its start, one I/O each in turn.
func TestNrFilesSequentialRoundRobinMatchesFio(t *testing.T) {
	logs := compareFiles(t, `[global]
ioengine=psync
bs=4k
[w]
rw=write
size=1m
nrfiles=3
write_iolog=w.iolog
[r]
rw=read
size=200k
nrfiles=3
write_iolog=r.iolog
`, true)
	// 200k over 3 files: 68266 bytes each, 16 whole blocks.
	assert.Equal(t, [2]int64{64 << 10, 0}, logs["r.iolog"].Bytes["r.0.0"])
	assert.Equal(t, [2]int64{64 << 10, 0}, logs["r.iolog"].Bytes["r.0.2"])
}

// file_service_type=random (and random:N) picks the files from fio's
// own generator: with io_size below the files' size the bytes each file
// moved depend on every draw, and they match fio's, as does the order.
// Without the random map no file runs out: the job moves the files'
// sizes as they are (3 times 43690 bytes: 32 blocks, not 3 times 10).
func TestNrFilesRandomServiceMatchesFio(t *testing.T) {
	logs := compareFiles(t, `[global]
ioengine=psync
bs=4k
size=512k
nrfiles=5
[rr]
rw=randread
file_service_type=random
io_size=300k
write_iolog=rr.iolog
[rw]
rw=write
file_service_type=random:3
write_iolog=rw.iolog
[seq]
rw=randwrite
file_service_type=sequential
write_iolog=seq.iolog
[nomap]
rw=randread
norandommap
size=128k
nrfiles=3
file_service_type=random
write_iolog=nomap.iolog
`, true)
	// Not one file each in turn.
	o := logs["rr.iolog"].Order
	assert.NotEqual(t, o[0:5], []string{"rr.0.0", "rr.0.1", "rr.0.2", "rr.0.3", "rr.0.4"})
}

// roundrobin:N, filesize (each file's size; size is their sum) and a
// mixed sequential job, whose files each keep a read and a write
// position; libaio at depth 8 serves the files in the same order.
func TestNrFilesRoundRobinNFileSizeMatchesFio(t *testing.T) {
	compareFiles(t, `[global]
bs=4k
[rr4]
ioengine=psync
rw=read
filesize=64k
nrfiles=4
file_service_type=roundrobin:4
write_iolog=rr4.iolog
[mixed]
ioengine=psync
rw=rw
size=256k
nrfiles=4
write_iolog=mixed.iolog
[aio]
ioengine=libaio
iodepth=8
rw=randwrite
size=256k
nrfiles=4
write_iolog=aio.iolog
`, true)
}

// The non-uniform services draw from fio's zipf, pareto and gauss
// generators, file 0 hottest (no hash), and start a file over rather
// than count it done.
func TestNrFilesNonUniformServiceMatchesFio(t *testing.T) {
	compareFiles(t, `[global]
ioengine=psync
bs=4k
size=256k
nrfiles=8
rw=randread
io_size=400k
[zipf]
file_service_type=zipf:1.2
write_iolog=zipf.iolog
[pareto]
file_service_type=pareto:0.3
write_iolog=pareto.iolog
[gauss]
file_service_type=gauss:20
write_iolog=gauss.iolog
[normal]
file_service_type=normal
write_iolog=normal.iolog
`, true)
}

// numjobs clones each get their files; filename_format without
// $filenum repeats a name: fio keeps each repeat as a file of its own, a
// region of size/nrfiles at the start of the one file, served in turn.
func TestNrFilesClonesAndRepeatedNamesMatchFio(t *testing.T) {
	compareFiles(t, `[global]
ioengine=psync
bs=4k
numjobs=2
[a]
rw=write
size=128k
nrfiles=2
write_iolog=a.iolog
[b]
filename_format=file$jobnum
rw=write
size=128k
nrfiles=4
write_iolog=b.iolog
`, false)
}

// unlink_each_loop removes the job's files before each loop after the
// first and the loop writes a new, empty file: a loop that writes the
// second half leaves the first half a hole, as fio's does; the
// one-byte-file benchmark of mountpoint-s3 (create_on_open,
// fsync_on_close, unlink, ten loops) moves fio's ten writes and leaves
// nothing.
func TestUnlinkEachLoopMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "unlink.fio", `[global]
ioengine=psync
[half]
rw=write
bs=4k
offset=32k
size=32k
filesize=64k
loops=2
unlink_each_loop=1
fsync_on_close=1
[mpoint]
bs=1B
size=1B
rw=write
ioengine=sync
fallocate=none
create_on_open=1
fsync_on_close=1
unlink=1
unlink_each_loop=1
loops=10
[aio]
ioengine=libaio
iodepth=4
rw=randwrite
bs=4k
size=64k
nrfiles=2
loops=3
unlink_each_loop=1
`, nil)
	assert.Equal(t, fio.Jobs, ours.Jobs, "I/O counts and bytes")
	assert.Equal(t, fio.Files, ours.Files, "files left")
	assert.Equal(t, fio.Alloc, ours.Alloc, "bytes held per file")
	assert.Equal(t, int64(32<<10), fio.Alloc["half.0.0"], "fio: the last loop's half, the first a hole")
	assert.Equal(t, uint64(10), ours.Jobs[1].IOs[1], "mountpoint-s3's ten one-byte writes")
}

// openfiles below nrfiles orders the files as fio 3.33 serves them: a
// file not open is picked only once an open one is done (fio's pick of
// it fails with EBUSY and is made again).
func TestNrFilesOpenFilesMatchesFio(t *testing.T) {
	logs := compareFiles(t, `[global]
ioengine=psync
bs=4k
size=256k
nrfiles=4
[rand]
rw=randread
file_service_type=random
openfiles=2
write_iolog=rand.iolog
[rr]
rw=write
openfiles=1
write_iolog=rr.iolog
[gcsfuse]
ioengine=libaio
iodepth=8
rw=read
bs=16k
filesize=64k
nrfiles=2
openfiles=1
file_service_type=random
filename_format=$jobname.$jobnum/$filenum
write_iolog=gcsfuse.iolog
`, true)
	// One file at a time: rr.0.0's 16 writes, then rr.0.1's.
	o := logs["rr.iolog"].Order
	assert.Equal(t, []string{"rr.0.0", "rr.0.0", "rr.0.1"}, []string{o[0], o[15], o[16]})
}

// filesize=A-B gives each file a size drawn from fio's own generator
// (its file_size_state, seeded per job as fio seeds it, or from
// randseed), a multiple of the block size: the files fio and stortest
// make have the same sizes, and the jobs move them.
func TestNrFilesFileSizeRangeMatchesFio(t *testing.T) {
	logs := compareFiles(t, `[global]
ioengine=psync
bs=4k
nrfiles=5
[a]
rw=write
filesize=16k-256k
write_iolog=a.iolog
[b]
rw=randwrite
filesize=8k:1m
randseed=77
write_iolog=b.iolog
[c]
rw=write
filesize=16k-256k
size=200k
write_iolog=c.iolog
`, true)
	sizes := map[int64]bool{}
	for _, b := range logs["a.iolog"].Bytes {
		sizes[b[1]] = true
	}
	assert.Greater(t, len(sizes), 1, "fio drew one size for every file")
}
