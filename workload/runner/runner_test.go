package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
	"stortest.dev/workload/iogen"
)

// loopTarget is a direct-I/O loop device over a temp file, detached and
// removed when the test ends.
func loopTarget(t *testing.T, size int64) *Scratch {
	t.Helper()
	testenv.RequireDevices(t, "loop-control")
	s, err := NewScratch(ScratchOptions{Dir: t.TempDir(), Size: size, Loop: true, DirectIO: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func fileTarget(t *testing.T, size int64) *Scratch {
	t.Helper()
	s, err := NewScratch(ScratchOptions{Dir: t.TempDir(), Size: size})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func runJob(t *testing.T, job workload.Job, opts workload.Options) *workload.JobResult {
	t.Helper()
	res, err := Run(context.Background(), job, opts)
	require.NoError(t, err)
	require.Len(t, res.Jobs, max(job.NumJobs, 1))
	return res.Jobs[0]
}

// Every engine and rw mode does real I/O on a loop device with verify on:
// every written block reads back intact, latencies are recorded where fio
// records them, and nothing fails.
func TestRunEveryEngineAndMode(t *testing.T) {
	target := loopTarget(t, 16<<20)
	modes := []workload.RW{workload.Read, workload.Write, workload.RandRead, workload.RandWrite, workload.ReadWrite, workload.RandRW}
	for _, engine := range workload.Engines {
		if slicesContains(noDataEngines, engine) || workload.IsNetEngine(engine) {
			continue // nodata_test.go, net_test.go
		}
		for _, rw := range modes {
			t.Run(engine+"/"+rw.String(), func(t *testing.T) {
				job := workload.Job{Name: "t", Filename: target.Path, Engine: engine, RW: rw, BlockSize: 4096,
					Size: 4 << 20, Direct: engine != "mmap"}
				if rw.Writes() {
					// A job that only reads checks what is there, as
					// fio's does: the blocks of the jobs before it.
					job.Verify = workload.VerifyCRC32C
				}
				if engine == "libaio" || engine == "io_uring" || engine == "null" || engine == "posixaio" {
					job.IODepth = 8
				}
				r := runJob(t, job, workload.Options{})
				require.NoError(t, r.Err)
				// fio's null engine is synchronous only at depth 1.
				async := engine == "libaio" || engine == "io_uring" || engine == "posixaio" || (engine == "null" && job.IODepth > 1)
				for d := range workload.NumDirs {
					s := r.Dirs[d]
					// Verify reads count as reads, as in fio.
					want := (d == workload.DirRead && (rw.Reads() || engine != "null")) || (d == workload.DirWrite && rw.Writes())
					if !want {
						assert.Zero(t, s.IOs, "%s I/Os", d)
						continue
					}
					assert.Positive(t, s.IOs, "%s I/Os", d)
					assert.Equal(t, s.IOs, s.Clat.Count(), "%s clat samples", d)
					assert.Equal(t, s.IOs, s.Lat.Count(), "%s lat samples", d)
					assert.GreaterOrEqual(t, s.Lat.Mean(), s.Clat.Mean(), "%s lat >= clat", d)
					if async {
						assert.Equal(t, s.IOs, s.Slat.Count(), "%s slat samples (async engine)", d)
					} else {
						assert.Zero(t, s.Slat.Count(), "%s slat (fio reports none for sync engines)", d)
					}
					if engine != "null" {
						assert.Equal(t, s.IOs*4096, s.Bytes, "%s bytes", d)
					}
				}
				assert.Zero(t, r.TotalErrors())
				if rw.Writes() && engine != "null" {
					// Every block written is read back and checked.
					assert.Equal(t, r.Dirs[workload.DirWrite].IOs, r.Verify.Checked, "blocks verified")
					assert.Zero(t, r.Verify.Mismatches, "verify: %v", r.Verify.First)
				}
			})
		}
	}
}

// A bit flipped in the backing file between the write and the read-back is
// reported with its offset.
func TestVerifyReportsCorruption(t *testing.T) {
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			target := loopTarget(t, 8<<20)
			const victim = 37 * 4096
			job := workload.Job{Name: "corrupt", Filename: target.Path, Engine: engine, RW: workload.RandWrite, BlockSize: 4096,
				Size: 2 << 20, Direct: true, Verify: workload.VerifyCRC32C, IODepth: 4}
			r := runJob(t, job, workload.Options{BeforeVerify: func(*workload.JobResult) {
				f, err := os.OpenFile(target.File, os.O_RDWR, 0)
				require.NoError(t, err)
				defer f.Close()
				b := []byte{0}
				_, err = f.ReadAt(b, victim+1000)
				require.NoError(t, err)
				b[0] ^= 0x10
				_, err = f.WriteAt(b, victim+1000)
				require.NoError(t, err)
				require.NoError(t, f.Sync())
			}})
			require.Equal(t, uint64(1), r.Verify.Mismatches, "mismatches: %v", r.Verify.First)
			require.Len(t, r.Verify.First, 1)
			var ve *iogen.VerifyError
			require.True(t, errors.As(r.Verify.First[0], &ve), "%T", r.Verify.First[0])
			assert.Contains(t, r.Verify.First[0].Error(), "151552") // the victim block's offset
			sum := summary(t, r)
			assert.Contains(t, sum, "1 mismatches")
		})
	}
}

func TestRunTimeBasedCancelAndRamp(t *testing.T) {
	target := fileTarget(t, 8<<20)
	job := workload.Job{Name: "tb", Filename: target.Path, Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: 1500 * time.Millisecond, TimeBased: true, RampTime: 500 * time.Millisecond}
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	assert.InDelta(t, 1.5, r.Runtime.Seconds(), 0.1, "measured runtime excludes the ramp")
	assert.GreaterOrEqual(t, len(r.Seconds), 1)
	var sum uint64
	for _, s := range r.Seconds {
		sum += s.IOs[workload.DirRead]
	}
	assert.Equal(t, r.Dirs[workload.DirRead].IOs, sum, "per-second samples add up to the total")

	// Cancelling keeps partial results.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	job.Runtime, job.RampTime = time.Hour, 0
	start := time.Now()
	res, err := Run(ctx, job, workload.Options{})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	r = res.Jobs[0]
	assert.True(t, r.Canceled)
	assert.Positive(t, r.Dirs[workload.DirRead].IOs)
	assert.InDelta(t, 0.3, r.Runtime.Seconds(), 0.2)
}

func TestRunRateAndFsyncAndClones(t *testing.T) {
	target := fileTarget(t, 8<<20)
	job := workload.Job{Name: "rated", Filename: target.Path, Engine: "psync", RW: workload.RandRead, BlockSize: 4096,
		Runtime: time.Second, TimeBased: true, RateIOPS: [3]int{400, 0, 0}, NumJobs: 2}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	require.Len(t, res.Jobs, 2)
	for _, r := range res.Jobs {
		assert.InDelta(t, 400, r.IOPS(workload.DirRead), 40, "clone %d IOPS under rate_iops=400", r.Clone)
	}
	assert.Equal(t, 1, res.Jobs[1].Clone)

	job = workload.Job{Name: "fsync", Filename: target.Path, Engine: "psync", RW: workload.Write, BlockSize: 4096,
		Size: 1 << 20, FsyncEvery: 16}
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	assert.Equal(t, uint64(256), r.Dirs[workload.DirWrite].IOs)
	assert.Equal(t, uint64(256/16-1), r.Sync.IOs, "an fsync before every 16 writes after the first 16")
	assert.Equal(t, r.Sync.IOs, r.Sync.Lat.Count())
}

// Per-I/O failures are counted per errno and explained with their offset;
// by default the first one ends the job, with ContinueOnError it goes on.
func TestRunErrorsAreCountedAndExplained(t *testing.T) {
	testenv.RequireDevices(t, "loop-control")
	target := fileTarget(t, 4<<20)
	// A read-only loop device makes every write fail with EPERM.
	l, err := engines.AttachLoop(target.File, engines.LoopOptions{ReadOnly: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, l.Detach()) })
	job := workload.Job{Name: "ro", Filename: l.Path(), Engine: "psync", RW: workload.Write, BlockSize: 4096, Size: 1 << 20}
	r := runJob(t, job, workload.Options{})
	require.Error(t, r.Err, "the first failed write ends the job")
	assert.Equal(t, uint64(1), r.Dirs[workload.DirWrite].Errors)
	assert.Equal(t, uint64(1), r.ErrnoCounts[int(unix.EPERM)])
	require.Len(t, r.FirstErrors, 1)
	assert.Contains(t, r.FirstErrors[0].Error(), "write of 4096 bytes at offset 0")

	r = runJob(t, job, workload.Options{ContinueOnError: true})
	require.NoError(t, r.Err)
	assert.Equal(t, uint64(256), r.Dirs[workload.DirWrite].Errors, "every write fails and is counted")
	assert.Equal(t, uint64(256), r.ErrnoCounts[int(unix.EPERM)])
	assert.Len(t, r.FirstErrors, workload.MaxRecordedErrors)
	sum := summary(t, r)
	assert.Contains(t, sum, "err= 1")

	// Misaligned O_DIRECT block sizes are refused before any I/O, with the reason.
	lt := loopTarget(t, 4<<20)
	_, err = Run(context.Background(), workload.Job{Name: "misaligned", Filename: lt.Path, Engine: "psync",
		RW: workload.Read, BlockSize: 1000, Size: 1 << 20, Direct: true}, workload.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "logical block size")
}

// The steady loop allocates nothing per I/O: two runs that differ by
// 400,000 I/Os differ by a handful of allocations (per-second samples).
// Each loop shape: the lean loop with a synchronous engine (the null
// engine at depth 1) and an asynchronous one (depth 4), and the full
// loop (a max_latency no I/O reaches).
func TestRunAllocationsPerIO(t *testing.T) {
	target := fileTarget(t, 64<<20)
	hour := [workload.NumDirs]time.Duration{time.Hour, time.Hour, time.Hour}
	for _, c := range []struct {
		name  string
		depth int
		full  bool
	}{{"lean sync", 1, false}, {"lean async", 4, false}, {"full", 4, true}} {
		t.Run(c.name, func(t *testing.T) {
			base := workload.Job{Name: "null", Filename: target.Path, Engine: "null", RW: workload.RandRead, BlockSize: 4096,
				IODepth: c.depth}
			if c.full {
				base.MaxLatency = hour
			}
			require.Equal(t, !c.full, loopShape(t, base, workload.Options{}))
			allocs := func(size int64, loops int) float64 {
				job := base
				job.Size, job.Loops = size, loops
				return testing.AllocsPerRun(1, func() {
					_, err := Run(context.Background(), job, workload.Options{})
					require.NoError(t, err)
				})
			}
			small, big := allocs(1<<20, 1), allocs(64<<20, 1) // 256 and 16384 I/Os
			many := allocs(64<<20, 25)
			ios := float64(25*16384 - 256)
			perIO := (many - small) / ios
			t.Logf("allocations: %v for 256 I/Os, %v for 16384, %v for 409600: %.6f per I/O", small, big, many, perIO)
			assert.Less(t, perIO, 0.001)
		})
	}
}

// json+ output is read back by the percentile tools: ours, and fio's
// fio_jsonplus_clat2csv --validate.
func TestFioJSONPlusOutput(t *testing.T) {
	target := fileTarget(t, 8<<20)
	job := workload.Job{Name: "jp", Filename: target.Path, Engine: "psync", RW: workload.RandRW, BlockSize: 4096,
		Size: 4 << 20, LatPercentiles: true}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSONPlus, time.Unix(1700000000, 0)))
	out, err := latency.ReadFio(bytes.NewReader(buf.Bytes()), "ours")
	require.NoError(t, err)
	require.Len(t, out.Jobs, 1)
	for _, d := range []workload.Dir{workload.DirRead, workload.DirWrite} {
		for _, stat := range []string{"clat_ns", "lat_ns"} {
			s := out.Jobs[0].Direction(d.String()).Stat(stat)
			require.NotNil(t, s)
			h, err := s.Histogram(latency.FioLayout)
			require.NoError(t, err, "%s %s", d, stat)
			assert.Equal(t, res.Jobs[0].Dirs[d].IOs, h.Count())
			for _, pv := range s.Percentile {
				assert.Equal(t, pv.Value, h.Percentile(pv.P), "%s %s p%v", d, stat, pv.P)
			}
		}
	}
	requireClat2csvValid(t, buf.Bytes(), 1)
}

// requireClat2csvValid runs fio's fio_jsonplus_clat2csv on a json+
// output (from FIO_SRC/tools when set, else Debian's fio package), then
// its --validate, which checks the CSV against the bins and percentiles
// of each of the jobs; it stops the test (FailNow) on a failure and
// skips it without the tool (outside CI).
func requireClat2csvValid(t *testing.T, out []byte, jobs int) {
	t.Helper()
	dir := t.TempDir()
	clat2csv := fioTool(t, dir, "fio_jsonplus_clat2csv")
	if clat2csv == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("fio_jsonplus_clat2csv (Debian's fio package) is missing in CI")
		}
		t.Skip("fio_jsonplus_clat2csv not installed (apt-get install fio)")
	}
	src := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(src, out, 0o644))
	for _, args := range [][]string{{src, filepath.Join(dir, "c.csv")}, {src, filepath.Join(dir, "c.csv"), "--validate"}} {
		cmd := exec.Command("/usr/bin/python3", append([]string{clat2csv}, args...)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		if len(args) == 3 {
			assert.Equal(t, jobs, strings.Count(string(b), "validated"), "%s", b)
		}
	}
}

func TestMain(m *testing.M) {
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2))
	os.Exit(m.Run())
}

// Slices sample throughput every SliceInterval: they sum to the totals,
// as the seconds do, and tile the measured time.
func TestRunSlices(t *testing.T) {
	job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 30,
		Runtime: 1550 * time.Millisecond, TimeBased: true, RateIOPS: [3]int{3000, 1000}}
	r := runJob(t, job, workload.Options{})
	require.GreaterOrEqual(t, len(r.Slices), 15)
	require.LessOrEqual(t, len(r.Slices), 17)
	var ios, bytes [workload.NumDirs]uint64
	var prev time.Duration
	for i, s := range r.Slices {
		assert.Greater(t, s.Dur, time.Duration(0), "slice %d", i)
		assert.Equal(t, s.T-prev, s.Dur, "slice %d", i)
		prev = s.T
		for d := range workload.NumDirs {
			ios[d] += s.IOs[d]
			bytes[d] += s.Bytes[d]
		}
	}
	for d := range workload.NumDirs {
		assert.Equal(t, r.Dirs[d].IOs, ios[d], "%s ios", workload.Dir(d))
		assert.Equal(t, r.Dirs[d].Bytes, bytes[d], "%s bytes", workload.Dir(d))
	}
	assert.InDelta(t, r.Runtime.Seconds(), r.Slices[len(r.Slices)-1].T.Seconds(), 0.01)
	// A whole slice at 3000 read IOPS holds about 300 reads.
	assert.InDelta(t, 300, float64(r.Slices[5].IOs[workload.DirRead]), 60)
}

// Seconds and slices close on the same clock reads: every second ends
// where a slice ends and holds exactly the completions of the slices in
// it, with a ramp before the measured part and a verify pass after the
// writes (whose reads count as reads).
func TestRunSlicesAgreeWithSeconds(t *testing.T) {
	target := fileTarget(t, 16<<20)
	job := workload.Job{Name: "agree", Filename: target.Path, Engine: "psync", RW: workload.Write, BlockSize: 4096,
		Size: 16 << 20, RampTime: 200 * time.Millisecond, Verify: workload.VerifyCRC32C, RateIOPS: [3]int{0, 2000, 0}}
	r := runJob(t, job, workload.Options{})
	require.NoError(t, r.Err)
	require.Equal(t, uint64(4096), r.Verify.Checked)
	require.GreaterOrEqual(t, len(r.Seconds), 2)
	t.Logf("%d seconds, %d slices over %v", len(r.Seconds), len(r.Slices), r.Runtime)
	var total [workload.NumDirs]uint64
	for _, s := range r.Slices {
		for d := range workload.NumDirs {
			total[d] += s.IOs[d]
		}
	}
	for d := range workload.NumDirs {
		assert.Equal(t, r.Dirs[d].IOs, total[d], "%s: slices hold every completion", workload.Dir(d))
	}
	k := 0 // the next slice
	var prev time.Duration
	for i, sec := range r.Seconds {
		if sec.T <= prev {
			continue // a final tick at the instant of the one before
		}
		var in [workload.NumDirs]uint64
		var end time.Duration
		for ; k < len(r.Slices) && r.Slices[k].T <= sec.T; k++ {
			end = r.Slices[k].T
			for d := range workload.NumDirs {
				in[d] += r.Slices[k].IOs[d]
			}
		}
		assert.Equal(t, sec.T, end, "second %d ends where a slice ends", i)
		assert.Equal(t, sec.IOs, in, "second %d holds its slices' completions", i)
		prev = sec.T
	}
	assert.Equal(t, len(r.Slices), k, "no slice after the last second")
}

// Closing a slice allocates nothing: the room for a job's slices is
// reserved from its runtime when the worker is made.
func TestSliceAllocatesNothing(t *testing.T) {
	layout := latency.MustLayout(latency.LongGroups)
	job := workload.Job{Name: "alloc", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 30,
		Runtime: 30 * time.Second, TimeBased: true}
	w, err := newWorker(job.Normalized(), 0, 1, layout, workload.Options{})
	require.NoError(t, err)
	defer w.close()
	require.GreaterOrEqual(t, cap(w.res.Slices), 302, "every slice of 30 s and the last partial one")
	w.nextSlice = int64(workload.SliceInterval)
	now := int64(0)
	allocs := testing.AllocsPerRun(200, func() {
		w.res.Dirs[workload.DirRead].IOs += 100
		w.res.Dirs[workload.DirRead].Bytes += 100 * 4096
		now += int64(workload.SliceInterval)
		w.slice(now)
	})
	assert.Zero(t, allocs)
	require.Len(t, w.res.Slices, 201)
	assert.Equal(t, uint64(100), w.res.Slices[200].IOs[workload.DirRead])
	assert.Equal(t, 201*workload.SliceInterval, w.res.Slices[200].T)

	// A last slice at the instant of the one before folds into it.
	w.res.Dirs[workload.DirRead].IOs += 3
	w.slice(now)
	require.Len(t, w.res.Slices, 201)
	assert.Equal(t, uint64(103), w.res.Slices[200].IOs[workload.DirRead])

	assert.Equal(t, maxSliceRoom, sliceRoom(24*time.Hour), "a long run reserves 10 minutes and grows")
	assert.Zero(t, sliceRoom(0), "a job ended by its size reserves nothing")
}
