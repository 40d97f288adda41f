package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// TestBufAgainstFio writes the same job with fio 3.33 and with stortest
// and compares what a deduplicating, compressing device would see: the
// share of duplicate 4 KiB blocks and the DEFLATE-compressed size.
func TestBufAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	testenv.SkipShort(t, "writes 32 MiB files with fio and stortest")
	for _, tc := range []struct {
		name string
		opts []string
	}{
		{"default", nil},
		{"dedupe0", []string{"dedupe_percentage=0", "refill_buffers=1"}},
		{"dedupe50", []string{"dedupe_percentage=50"}},
		{"dedupe90", []string{"dedupe_percentage=90"}},
		{"workingset50", []string{"dedupe_percentage=50", "dedupe_mode=working_set", "dedupe_working_set_percentage=20"}},
		{"compress0", []string{"buffer_compress_percentage=0", "refill_buffers=1"}},
		{"compress50", []string{"buffer_compress_percentage=50"}},
		{"compress90", []string{"buffer_compress_percentage=90"}},
		{"compress50chunk4k", []string{"buffer_compress_percentage=50", "buffer_compress_chunk=4k"}},
		{"dedupe50compress50", []string{"dedupe_percentage=50", "buffer_compress_percentage=50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "[j]\nrw=write\nbs=4k\nioengine=psync\nsize=32m\n" + strings.Join(tc.opts, "\n") + "\n"
			jobFile := filepath.Join(dir, "j.fio")
			require.NoError(t, os.WriteFile(jobFile, []byte(src), 0o644))
			fioFile, ourFile := filepath.Join(dir, "fio.dat"), filepath.Join(dir, "st.dat")
			out, err := exec.Command(fio, "--filename="+fioFile, "--output-format=terse", jobFile).CombinedOutput()
			require.NoError(t, err, "%s", out)

			jobs, err := parseFile(strings.NewReader(src), "j.fio")
			require.NoError(t, err)
			jobs[0].Filename = ourFile
			res, err := RunJobs(t.Context(), jobs, workload.Options{})
			require.NoError(t, err)
			require.NoError(t, res.Jobs[0].Err)

			theirs, err := os.ReadFile(fioFile)
			require.NoError(t, err)
			ours, err := os.ReadFile(ourFile)
			require.NoError(t, err)
			fd, od := dupFraction(theirs), dupFraction(ours)
			fc, oc := flateRatio(t, theirs), flateRatio(t, ours)
			t.Logf("duplicates fio %.4f stortest %.4f; compressed fio %.4f stortest %.4f", fd, od, fc, oc)
			assert.InDelta(t, fd, od, 0.03, "share of duplicate blocks")
			assert.InDelta(t, fc, oc, 0.03, "compressed size / size")
		})
	}
}

// TestBufRunDedupeGlobal runs testdata/jobs/dedupe.fio (fio's
// examples/dedupe-global.fio at 16 MiB): each file alone repeats about a
// third of its blocks, the two together half, and blocks compress to
// about half, as fio 3.33's files of the example do (0.34, 0.50, 0.51).
func TestBufRunDedupeGlobal(t *testing.T) {
	f, err := os.Open("../testdata/jobs/dedupe.fio")
	require.NoError(t, err)
	defer f.Close()
	jobs, err := parseFile(f, "dedupe.fio")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	res, err := RunJobs(t.Context(), jobs, workload.Options{})
	require.NoError(t, err)
	for _, j := range res.Jobs {
		require.NoError(t, j.Err)
	}
	a, err := os.ReadFile("a.0.0")
	require.NoError(t, err)
	b, err := os.ReadFile("b.0.0")
	require.NoError(t, err)
	assert.InDelta(t, 0.34, dupFraction(a), 0.04, "a alone")
	assert.InDelta(t, 0.34, dupFraction(b), 0.04, "b alone")
	assert.InDelta(t, 0.50, dupFraction(append(a, b...)), 0.04, "a and b")
	assert.InDelta(t, 0.51, flateRatio(t, a), 0.03, "compressed a")
}

// A plain write job writes pseudo-random data, as fio's does, not the
// zeros of fresh buffers.
func TestBufRunDefault(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	res, err := Run(t.Context(), workload.Job{Name: "w", RW: workload.Write, BlockSize: 4096, Size: 1 << 20, Filename: file, Engine: "psync", IODepth: 1}, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, res.Jobs[0].Err)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Zero(t, dupFraction(data), "scrambled: no block repeats")
	assert.Greater(t, flateRatio(t, data[:4096]), 0.9, "a block is random")
}

// TestUringRegistersBuffers: an io_uring job registers its buffers with
// its ring unless it says fixedbufs=0, as the ring's fdinfo shows while
// the job runs, and its result and JSON say so.
func TestUringRegistersBuffers(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  bool
		want int
	}{{"unset", false, 8}, {"fixedbufs=0", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o644))
			job := workload.Job{Name: "r", Filename: path, Engine: "io_uring", RW: workload.RandRead, BlockSize: 4096,
				IODepth: 8, TimeBased: true, Runtime: 500 * time.Millisecond, NoFixedBufs: tc.off}
			done := make(chan struct{})
			seen := make(chan []int)
			go func() {
				var bufs []int // UserBufs of each ring seen
				for {
					bufs = append(bufs, ringBuffers()...)
					select {
					case <-done:
						seen <- bufs
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			r := runJob(t, job, workload.Options{})
			close(done)
			bufs := <-seen
			require.NotEmpty(t, bufs, "no io_uring ring seen in /proc/self/fdinfo while the job ran")
			for _, n := range bufs {
				assert.Equal(t, tc.want, n, "registered buffers")
			}
			assert.Equal(t, tc.want > 0, r.FixedBufs, "JobResult.FixedBufs")
			var out bytes.Buffer
			require.NoError(t, fioout.WriteFioJSON(&out, &workload.Result{Jobs: []*workload.JobResult{r}}, fioout.FormatJSON, time.Now()))
			assert.Equal(t, tc.want > 0, at(jsonDoc(t, out.Bytes()), "jobs", "0", "stortest", "fixed_buffers"), "the JSON's stortest.fixed_buffers")
		})
	}
}

// ringBuffers returns the registered buffer count (UserBufs) of each
// io_uring ring this process has open, from its fdinfo.
func ringBuffers() []int {
	fds, _ := os.ReadDir("/proc/self/fdinfo")
	var out []int
	for _, fd := range fds {
		b, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		for l := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(l, "UserBufs:"); ok {
				var n int
				if _, err := fmt.Sscan(v, &n); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}
