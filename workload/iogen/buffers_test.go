package iogen

import (
	"bytes"
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/fio"
	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

func TestParseBufferPattern(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []byte
	}{
		{"", nil},
		{"0xdeadface", []byte{0xde, 0xad, 0xfa, 0xce}},
		{`"abcd"`, []byte("abcd")},
		{"-12", []byte{0xf4, 0xff, 0xff, 0xff}},
		{"0", []byte{0}},
		{"255", []byte{0xff}},
		{"256", []byte{0, 1}},
		{"0xff0x14", []byte{0xff, 0x14}},
		{`0xdeadface"abcd"-12`, []byte{0xde, 0xad, 0xfa, 0xce, 'a', 'b', 'c', 'd', 0xf4, 0xff, 0xff, 0xff}},
		{`12"x"0x01`, []byte{12, 'x', 1}},
	} {
		got, err := fio.ParseBufferPattern(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, tc := range []struct{ in, want string }{
		{"2147483648", "32-bit"},
		{"'file'", "from a file"},
		{"0x", "without hexadecimal"},
		{"-", "32-bit"},
		{"%o", "%o"},
	} {
		_, err := fio.ParseBufferPattern(tc.in)
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want, tc.in)
		}
	}
	// verify_pattern keeps refusing decimals.
	_, err := fio.ParseVerifyPattern("12")
	assert.Error(t, err)
}

// bufJob is a sequential 4 KiB write job of size bytes with the given
// buffer options in job-file syntax.
func bufJob(t *testing.T, size string, opts ...string) workload.Job {
	t.Helper()
	src := "[j]\nrw=write\nbs=4k\nioengine=null\nsize=" + size + "\n" + strings.Join(opts, "\n") + "\n"
	jobs, err := parseFile(strings.NewReader(src), "buf.fio")
	require.NoError(t, err, src)
	require.Len(t, jobs, 1)
	j := jobs[0].Normalized()
	require.NoError(t, validate.Job(&j))
	return j
}

// writeBlocks fills n 4 KiB writes as the runner does and returns them
// concatenated.
func writeBlocks(f *BufFill, n int) []byte {
	out := make([]byte, n*4096)
	buf := make([]byte, 4096)
	f.InitBuf(buf)
	for i := range n {
		f.FillWrite(buf, int64(i)*4096, int64(i)*1000+7)
		copy(out[i*4096:], buf)
	}
	return out
}

// The share of duplicate blocks follows dedupe_percentage in both modes.
func TestBufDedupe(t *testing.T) {
	for _, mode := range []string{"repeat", "working_set"} {
		for _, pct := range []int{0, 50, 90} {
			j := bufJob(t, "40m", "dedupe_percentage="+strconv.Itoa(pct), "dedupe_mode="+mode, "dedupe_working_set_percentage=10")
			got := dupFraction(writeBlocks(NewBufFill(&j, 1, 1), 10240))
			assert.InDelta(t, float64(pct)/100, got, 0.02, "%s %d%%", mode, pct)
		}
	}
}

// dedupe_percentage=100 writes one block over and over, as fio does.
func TestBufDedupeAll(t *testing.T) {
	j := bufJob(t, "4m", "dedupe_percentage=100")
	assert.InDelta(t, 255.0/256, dupFraction(writeBlocks(NewBufFill(&j, 1, 1), 256)), 1e-9)
}

// The working set is the job's first unique blocks: every duplicate
// repeats one of them.
func TestBufDedupeWorkingSet(t *testing.T) {
	j := bufJob(t, "4m", "dedupe_percentage=50", "dedupe_mode=working_set", "dedupe_working_set_percentage=10")
	data := writeBlocks(NewBufFill(&j, 1, 1), 1024)
	set := 1024 / 10 // blocks
	first := map[[32]byte]bool{}
	uniq := 0
	for i := 0; i < len(data) && uniq < set; i += 4096 {
		h := sha256.Sum256(data[i : i+4096])
		if !first[h] {
			first[h] = true
			uniq++
		}
	}
	seen := map[[32]byte]bool{}
	for i := 0; i < len(data); i += 4096 {
		h := sha256.Sum256(data[i : i+4096])
		if seen[h] {
			assert.True(t, first[h], "block %d repeats a block outside the working set", i/4096)
		}
		seen[h] = true
	}
}

// With dedupe_global, two jobs' duplicates draw on each other's unique
// blocks, so the two files together dedupe better than each alone.
func TestBufDedupeGlobal(t *testing.T) {
	j := bufJob(t, "40m", "dedupe_percentage=50", "dedupe_mode=working_set", "dedupe_working_set_percentage=50", "dedupe_global=1")
	a := writeBlocks(NewBufFill(&j, 1, 2), 10240)
	b := writeBlocks(NewBufFill(&j, 2, 2), 10240)
	da, db, both := dupFraction(a), dupFraction(b), dupFraction(append(a, b...))
	// fio 3.33 on examples/dedupe-global.fio: 0.34 each, 0.50 together.
	assert.InDelta(t, 0.34, da, 0.03)
	assert.InDelta(t, 0.34, db, 0.03)
	assert.InDelta(t, 0.50, both, 0.03)

	j.DedupeGlobal = false
	a = writeBlocks(NewBufFill(&j, 1, 2), 10240)
	b = writeBlocks(NewBufFill(&j, 2, 2), 10240)
	assert.InDelta(t, 0.50, dupFraction(a), 0.03)
	assert.InDelta(t, 0.50, dupFraction(append(a, b...)), 0.03, "without dedupe_global the jobs share nothing")
}

// The compressed size follows buffer_compress_percentage, and the data
// does not dedupe.
func TestBufCompress(t *testing.T) {
	for _, pct := range []int{0, 50, 90} {
		// 0 is fio's default, which reuses one buffer: refill it.
		j := bufJob(t, "4m", "buffer_compress_percentage="+strconv.Itoa(pct), "refill_buffers=1")
		data := writeBlocks(NewBufFill(&j, 1, 1), 1024)
		assert.InDelta(t, float64(100-pct)/100, flateRatio(t, data), 0.03, "%d%%", pct)
		assert.Zero(t, dupFraction(data), "%d%%", pct)
	}
	j := bufJob(t, "4m", "buffer_compress_percentage=100")
	assert.True(t, bytes.Equal(make([]byte, 1<<20), writeBlocks(NewBufFill(&j, 1, 1), 256)), "100%: zeros")
	// A chunk of the whole block: one random run, then zeros.
	j = bufJob(t, "4m", "buffer_compress_percentage=75", "buffer_compress_chunk=0")
	blk := writeBlocks(NewBufFill(&j, 1, 1), 1)
	assert.Equal(t, make([]byte, 3072), blk[1024:])
	assert.NotEqual(t, make([]byte, 1024), blk[:1024])
}

func TestBufContents(t *testing.T) {
	// Default: random data, scrambled per write so no block repeats.
	j := bufJob(t, "4m")
	f := NewBufFill(&j, 1, 1)
	require.True(t, f.scramble)
	require.False(t, f.refill)
	data := writeBlocks(f, 256)
	assert.Zero(t, dupFraction(data))
	assert.Greater(t, flateRatio(t, data[:4096]), 0.9, "random data")

	// scramble_buffers=0: the same buffer every write.
	j = bufJob(t, "4m", "scramble_buffers=0")
	assert.InDelta(t, 255.0/256, dupFraction(writeBlocks(NewBufFill(&j, 1, 1), 256)), 1e-9)

	// refill_buffers: fresh random data every write.
	j = bufJob(t, "4m", "refill_buffers=1", "scramble_buffers=0")
	data = writeBlocks(NewBufFill(&j, 1, 1), 256)
	assert.Zero(t, dupFraction(data))
	assert.Greater(t, flateRatio(t, data), 0.99)

	j = bufJob(t, "4m", "zero_buffers=1")
	assert.True(t, bytes.Equal(make([]byte, 64<<10), writeBlocks(NewBufFill(&j, 1, 1), 16)), "zeros")

	j = bufJob(t, "4m", `buffer_pattern=0xab"cd"`)
	blk1 := bytes.Repeat([]byte("\xabcd"), 4096/3+1)[:4096] // each buffer starts the pattern
	assert.True(t, bytes.Equal(bytes.Repeat(blk1, 16), writeBlocks(NewBufFill(&j, 1, 1), 16)), "pattern")

	// The pattern fills the compressible part.
	j = bufJob(t, "4m", "buffer_pattern=0x5a", "buffer_compress_percentage=50")
	blk := writeBlocks(NewBufFill(&j, 1, 1), 1)
	assert.Equal(t, bytes.Repeat([]byte{0x5a}, 256), blk[256:512])
}

func TestBufOptionsValidate(t *testing.T) {
	for _, tc := range []struct{ opts, want string }{
		{"verify=crc32c\ndedupe_percentage=50", "dedupe_percentage"},
		{"verify=crc32c\nbuffer_compress_percentage=50", "buffer_compress_percentage"},
		{"dedupe_percentage=60\ndedupe_mode=working_set\ndedupe_working_set_percentage=50", "exceed 100%"},
		{"dedupe_mode=mirror", "unknown dedupe_mode"},
		{"buffer_compress_percentage=101", "buffer_compress_percentage"},
		{"buffer_pattern='f'", "from a file"},
	} {
		src := "[j]\nrw=write\nbs=4k\nsize=1m\n" + tc.opts + "\n"
		jobs, err := parseFile(strings.NewReader(src), "b.fio")
		if err == nil {
			n := jobs[0].Normalized()
			err = validate.Job(&n)
		}
		if assert.Error(t, err, tc.opts) {
			assert.Contains(t, err.Error(), tc.want, tc.opts)
		}
	}
	// working_set needs an explicit size, as in fio.
	j := workload.Job{Name: "j", RW: workload.Write, Buffers: workload.Buffers{DedupePercentage: 10, DedupeWorkingSet: true}}
	n := j.Normalized()
	assert.ErrorContains(t, validate.Job(&n), "needs size")
	// With verify, fio lets verify's data win over these; so does stortest.
	j = bufJob(t, "1m", "verify=crc32c", "buffer_pattern=0x01", "zero_buffers=1", "refill_buffers=1", "buffer_compress_percentage=100")
	assert.Equal(t, "0x01", j.BufferPattern)
}

func TestBufOptionsRoundTrip(t *testing.T) {
	j := bufJob(t, "8m", `buffer_pattern=0xdead"x"-12`, "zero_buffers=1", "refill_buffers=1", "scramble_buffers=0",
		"buffer_compress_percentage=30", "buffer_compress_chunk=0", "dedupe_percentage=20",
		"dedupe_mode=working_set", "dedupe_working_set_percentage=40", "dedupe_global=1")
	assert.Equal(t, workload.Buffers{BufferPattern: `0xdead"x"-12`, ZeroBuffers: true, RefillBuffers: true, NoScramble: true,
		BufferCompress: 30, CompressChunk: -1, DedupePercentage: 20, DedupeWorkingSet: true,
		DedupeWorkingSetPercent: 40, DedupeGlobal: true}, j.Buffers)
	roundTrip(t, j)
}

// Filling a write's buffer allocates nothing, in every mode.
func TestBufFillAllocs(t *testing.T) {
	for _, opts := range [][]string{
		nil,
		{"refill_buffers=1"},
		{"buffer_compress_percentage=50"},
		{"dedupe_percentage=50", "dedupe_mode=working_set", "dedupe_global=1"},
		{"buffer_pattern=0x01", "rw=randrw"},
	} {
		j := bufJob(t, "8m", opts...)
		f := NewBufFill(&j, 1, 2)
		buf := make([]byte, 4096)
		var off int64
		allocs := testing.AllocsPerRun(200, func() {
			off += 4096
			f.FillWrite(buf, off, off)
		})
		assert.Zero(t, allocs, "%v", opts)
	}
}

func FuzzParseBufferPattern(f *testing.F) {
	for _, s := range []string{"", `0xdeadface"abcd"-12`, "0xff0x14", "-2147483648", "2147483648", "'file'", `"x`, "+", strings.Repeat("255", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := fio.ParseBufferPattern(s)
		if err != nil {
			return
		}
		if len(p) > fio.MaxPattern || (s != "" && len(p) == 0) {
			t.Fatalf("ParseBufferPattern(%q) = %d bytes", s, len(p))
		}
	})
}

// BenchmarkBufFill is the cost of a 4 KiB write's data per mode.
func BenchmarkBufFill(b *testing.B) {
	for _, tc := range []struct{ name, opts string }{
		{"scramble", ""},
		{"refill", "refill_buffers=1"},
		{"compress50", "buffer_compress_percentage=50"},
		{"dedupe50", "dedupe_percentage=50"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			jobs, err := parseFile(strings.NewReader("[j]\nrw=write\nbs=4k\nsize=1g\n"+tc.opts+"\n"), "b.fio")
			if err != nil {
				b.Fatal(err)
			}
			j := jobs[0].Normalized()
			f := NewBufFill(&j, 1, 1)
			buf := make([]byte, 4096)
			f.InitBuf(buf)
			b.SetBytes(4096)
			for i := 0; b.Loop(); i++ {
				f.FillWrite(buf, int64(i)<<12, int64(i))
			}
		})
	}
}
