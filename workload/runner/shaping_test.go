package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"stortest.dev/fio"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
	"stortest.dev/workload/iogen"
	"stortest.dev/workload/validate"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onePass returns the offsets, in blocks of 4 KiB, of the I/Os of the
// job's first pass (at most 1000).
func onePass(t *testing.T, src string) []int64 {
	t.Helper()
	jobs, err := parseFile(strings.NewReader(src), "job.fio")
	require.NoError(t, err)
	p, err := iogen.NewPattern(&jobs[0], jobs[0].Size, 1)
	require.NoError(t, err)
	var offs []int64
	for p.Passes() < 1 && len(offs) < 1000 {
		io := p.Next()
		offs = append(offs, io.Offset/4096)
	}
	return offs
}

// TestOffsetModifierAsFio: the offsets fio 3.33 issues for rw=...:N on a
// 64 KiB file with bs=4k, from its write_iolog (psync), and t/jobs/t0007's
// count.
func TestOffsetModifierAsFio(t *testing.T) {
	for _, tc := range []struct {
		rw   string
		want []int64
	}{
		{"read:-8k", []int64{0, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
		{"read:-12k", []int64{0, 13, 11, 9, 7, 5, 3, 1, 13, 11, 9, 7, 5, 3, 1, 13}},
		{"read:-4k", []int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"read:8k", []int64{0, 3, 6, 9, 12, 15}},
		{"read:12k", []int64{0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12}},
		{"read:20k", []int64{0, 6, 12, 0, 6, 12, 0, 6, 12, 0, 6, 12, 0, 6, 12, 0}},
		{"write:8k", []int64{0, 3, 6, 9, 12, 15}},
	} {
		t.Run(tc.rw, func(t *testing.T) {
			assert.Equal(t, tc.want, onePass(t, "[a]\nsize=64k\nbs=4k\nrw="+tc.rw+"\n"))
		})
	}
	// t/jobs/t0007-37cf9e3c.fio: fio reads 87040 KiB, 85 I/Os of 1 MiB
	// 1.5 MiB apart; the 86th would not fit.
	got := onePass(t, "[foo]\nsize=128mb\nrw=read:512k\nbs=1m\nnorandommap\n")
	require.Len(t, got, 85)
	assert.Equal(t, int64(84*384), got[84])
}

// TestRandomOffsetModifier: rw=randread:4 draws a random offset every 4th
// I/O; the others follow (rw_sequencer=sequential) or repeat it
// (identical). A pass is the region's size moved.
func TestRandomOffsetModifier(t *testing.T) {
	seq := onePass(t, "[a]\nsize=1m\nbs=4k\nrw=randread:4\n")
	require.Len(t, seq, 256)
	runs := 0
	for i := 1; i < len(seq); i++ {
		if i%4 != 0 && seq[i] == seq[i-1]+1 {
			runs++
		}
	}
	assert.GreaterOrEqual(t, runs, 180, "most non-random I/Os follow the one before: %v", seq[:16])
	same := onePass(t, "[a]\nsize=1m\nbs=4k\nrw=randread:4\nrw_sequencer=identical\n")
	for i := 1; i < len(same); i++ {
		if i%4 != 0 {
			require.Equal(t, same[i-1], same[i], "I/O %d repeats the offset: %v", i, same[:16])
		}
	}
}

func TestRWModifierParse(t *testing.T) {
	for _, tc := range []struct{ in, rw string }{
		{"[a]\nrw=read:-8k\n", "rw=read:-8k"},
		{"[a]\nrw=write:4096\n", "rw=write:4k"},
		{"[a]\nrw=randread:8\n", "rw=randread:8"},
		{"[a]\nrw=randread:8\nrw_sequencer=identical\nblockalign=4k\n", "rw=randread:8"},
	} {
		jobs, err := parseFile(strings.NewReader(tc.in), "job.fio")
		require.NoError(t, err, tc.in)
		s := fiojob.Format(jobs[0])
		assert.Contains(t, s, tc.rw+"\n")
		back, err := parseFile(strings.NewReader(s), "back.fio")
		require.NoError(t, err, s)
		assert.Equal(t, jobs[0], back[0], "String reads back the same job")
	}
	for _, tc := range []struct{ in, err string }{
		{"[a]\nrw=randread:-8\n", "a random pattern's modifier is a count"},
		{"[a]\nrw=read:x\n", "bad offset modifier"},
		{"[a]\nrw=trimwrite:4k\n", "offset modifier is not supported with trimwrite"},
		{"[a]\nrw_sequencer=backwards\n", "unknown rw_sequencer"},
		{"[a]\ndirect=1\nblockalign=100\n", "not a multiple of 512"},
		{"[a]\nblockalign=4k,8k\n", "per-direction"},
		{"[a]\nblockalign=0\n", "min value out of range: 0 (1 min)"}, // fio 3.33 refuses it; it ran before
	} {
		_, err := parseFile(strings.NewReader(tc.in), "job.fio")
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.err, tc.in)
	}
}

// TestBlockAlign: examples/jesd219.fio's bssplit from 512 bytes with
// blockalign=4k puts every random I/O on a 4 KiB boundary.
func TestBlockAlign(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[a]\nsize=1m\nrw=randrw\nbssplit=512/50:8k/50\nblockalign=4k\n"), "job.fio")
	require.NoError(t, err)
	p, err := iogen.NewPattern(&jobs[0], 1<<20, 1)
	require.NoError(t, err)
	var small int
	for range 2000 {
		io := p.Next()
		require.Zero(t, io.Offset%4096, "offset %d", io.Offset)
		if io.Len == 512 {
			small++
		}
	}
	assert.Greater(t, small, 800, "512-byte I/Os are still drawn")
}

// TestDirectionBlockSizes: bs=r,w,t gives a job that issues one direction
// that direction's size; trimwrite takes the trim size for both (fio
// 3.33, t/jobs/t0023.fio's bs_no_rm job); bsrange takes what fio reads of
// a malformed size, with a notice.
func TestDirectionBlockSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"[a]\nbs=4k,64k\n", 4 << 10},
		{"[a]\nrw=randwrite\nbs=4k,64k\n", 64 << 10},
		{"[a]\nbs=4k,64k\nrw=write\n", 64 << 10},
		{"[a]\nrw=trimwrite\nbs=4k,4k,8k\n", 8 << 10},
		{"[a]\nrw=randtrim\nbs=4k,,16k\n", 16 << 10},
		{"[a]\nrw=randrw\nbs=8k,8k,4k\n", 8 << 10},
		{"[a]\nrw=randwrite\nbs=8k,\n", 8 << 10},
		{"[a]\nrw=randrw\nbs=4k,64k\n", 4 << 10}, // and WriteBlocks: see TestWriteBlocks
	} {
		jobs, err := parseFile(strings.NewReader(tc.in), "job.fio")
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, jobs[0].BlockSize, tc.in)
	}
	jobs, err := parseFile(strings.NewReader("[bssplit]\nrw=randtrimwrite\nbsrange=512/25:1k:25:2k:25:4k/25\n"), "job.fio")
	require.NoError(t, err)
	assert.Equal(t, workload.BlockSizeRange{Min: 512, Max: 1024}, jobs[0].BlockSizeRange)
	assert.Equal(t, []string{`bsrange=512/25:1k:25:2k:25:4k/25: "512/25" read as 512, as fio reads it ("/25" ignored)`,
		`bsrange=512/25:1k:25:2k:25:4k/25: "1k:25:2k:25:4k/25" read as 1k, as fio reads it (":25:2k:25:4k/25" ignored)`}, validate.Warnings(&jobs[0]))
	for _, bad := range []string{"[a]\nbs=,4k\n", "[a]\nbs=4k,8k,16k,32k\n", "[a]\nbs=4k,0\nrw=write\n", "[a]\nbsrange=x-4k\n", "[a]\nbsrange=1.5k-4k\n",
		"[a]\nrw=randrw\nbssplit=4k/50:8k/40,64k/100\n"} {
		_, err := parseFile(strings.NewReader(bad), "job.fio")
		assert.Error(t, err, bad)
	}
}

// TestGtodReduce: examples/null.fio's gtod_reduce=1 reports what fio 3.33
// does: the I/O and its rate, no latency (N=0) and no bw or iops samples.
func TestGtodReduce(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[global]\nbs=4k\ngtod_reduce=1\n[null]\nioengine=null\nsize=64m\nrw=randread\nnorandommap\n"), "null.fio")
	require.NoError(t, err)
	res, err := Run(context.Background(), jobs[0], workload.Options{})
	require.NoError(t, err)
	r := res.Jobs[0]
	assert.Equal(t, uint64(64<<20), r.Dirs[workload.DirRead].Bytes)
	for _, h := range []*latency.Histogram{r.Dirs[workload.DirRead].Clat, r.Dirs[workload.DirRead].Lat, r.Dirs[workload.DirRead].Slat} {
		assert.Zero(t, h.Count())
	}
	var out bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&out, res, fioout.FormatJSON, time.Unix(0, 0)))
	var doc struct {
		Jobs []struct {
			Read map[string]any `json:"read"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	rd := doc.Jobs[0].Read
	assert.EqualValues(t, 64<<20, rd["io_bytes"])
	assert.Positive(t, rd["iops"])
	assert.EqualValues(t, 0, rd["bw_samples"])
	assert.EqualValues(t, 0, rd["iops_samples"])
	assert.EqualValues(t, 0, rd["clat_ns"].(map[string]any)["N"])
	assert.Contains(t, fiojob.Format(jobs[0]), "disable_clat=1\n")
}

// TestRateMin: from 2 s after the start, the first completion sets the
// baseline and each completion a rate_cycle later compares what moved
// with rate_min (fio 3.33 with ratemin=100g fails at 3.0 s with a 1 s
// cycle, at 2.2 s with 200 ms); a job below it ends with EIO and fio's
// message; a minimum above the rate is refused, as fio refuses it.
func TestRateMin(t *testing.T) {
	j := workload.Job{Name: "m", RW: workload.RandRW, RateFloor: workload.RateFloor{RateMin: [3]int64{1000, 0, 0}, RateIOPSMin: [3]int64{0, 5, 0}}}
	m := newMinRate(&j, 0)
	require.NotNil(t, m)
	var dirs [workload.NumDirs]workload.DirStats
	sec := int64(time.Second)
	require.Equal(t, 2*sec, m.next, "nothing is judged in the first 2 s")
	dirs[workload.DirRead].Bytes, dirs[workload.DirWrite].IOs = 10, 1
	require.NoError(t, m.check(&j, &dirs, 2*sec+5), "the first check sets the baseline")
	assert.Equal(t, 3*sec+5, m.next)
	dirs[workload.DirRead].Bytes += 2000
	dirs[workload.DirWrite].IOs += 10
	require.NoError(t, m.check(&j, &dirs, 4*sec+5), "1000 B/s and 5 IOPS over 2 s")
	dirs[workload.DirRead].Bytes += 999
	err := m.check(&j, &dirs, 5*sec+5)
	require.ErrorIs(t, err, syscall.EIO)
	assert.Contains(t, err.Error(), "rate_min=1000B/s not met, got 999B/s")
	dirs[workload.DirRead].Bytes += 1000
	dirs[workload.DirWrite].IOs += 4
	assert.ErrorContains(t, m.check(&j, &dirs, 6*sec+5), "rate_iops_min=5 not met, got 4 IOPS")
	// A read-only job is not judged on its writes.
	j.RW = workload.RandRead
	dirs[workload.DirRead].Bytes += 1000
	assert.NoError(t, m.check(&j, &dirs, 7*sec+5))

	// A run: 3 s of null reads held to 100 IOPS with rate_iops_min=200
	// can only be refused; with a cycle of 200 ms and rate_min under the
	// rate it runs its 3 s.
	_, err = parseFile(strings.NewReader("[a]\nrate_iops=100\nrate_iops_min=200\n"), "job.fio")
	assert.ErrorContains(t, err, "the minimum rate exceeds the rate, read")
	jobs, err := parseFile(strings.NewReader("[a]\nioengine=null\nsize=1g\nrate=400k\nratemin=100k\nratecycle=200\nruntime=3\ntime_based\n"), "job.fio")
	require.NoError(t, err)
	r := runJob(t, jobs[0], workload.Options{})
	require.NoError(t, r.Err)
	assert.InDelta(t, 1200<<10, float64(r.Dirs[workload.DirRead].Bytes), 100<<10)
	// The same job held to a rate below its minimum by the device: a
	// null engine cannot be slowed, so the floor is set above what 4 KiB
	// null reads at 400 KiB/s can reach.
	jobs[0].Rate = [3]int64{}
	jobs[0].RateIOPS = [3]int{100, 0, 0}
	jobs[0].RateMin = [3]int64{1 << 20, 0, 0}
	jobs[0].Runtime = 20 * time.Second
	r = runJob(t, jobs[0], workload.Options{})
	require.ErrorIs(t, r.Err, syscall.EIO)
	assert.ErrorContains(t, r.Err, "rate_min=1048576B/s not met")
	// A cycle after the baseline at 2 s: 2.2 s, with room for a loaded
	// machine's scheduling delays, and far short of the 20 s runtime.
	assert.GreaterOrEqual(t, r.Runtime, 2200*time.Millisecond)
	assert.Less(t, r.Runtime, 8*time.Second)
}

// TestLogPrio: with log_prio the priority column is the ioprio value in
// hex, as fio 3.33 writes it ("0, 109444, 0, 4096, 0x6000" for
// prioclass=3); the job's own class applies to the I/O cmdprio leaves
// alone. The job's thread gets the class and has its own back after.
func TestLogPrio(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "p")
	jobs, err := parseFile(strings.NewReader("[p]\nioengine=null\nrw=randread\nsize=64k\nprioclass=3\nprio=2\nlog_prio=1\nwrite_lat_log="+prefix+"\n"), "job.fio")
	require.NoError(t, err)
	assert.Contains(t, fiojob.Format(jobs[0]), "prioclass=3\nprio=2\n")
	assert.Contains(t, fiojob.Format(jobs[0]), "log_prio=1\n")
	_, err = Run(context.Background(), jobs[0], workload.Options{})
	require.NoError(t, err)
	b, err := os.ReadFile(fio.LogFileName(prefix, "clat", 1, false))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 16)
	for _, l := range lines {
		require.True(t, strings.HasSuffix(l, ", 4096, 0x6002"), l)
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	get := func() uintptr {
		p, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, 1, 0, 0)
		require.Zero(t, e)
		return p
	}
	before := get()
	restore, err := setThreadIOPrio(workload.IOPrio(3, 0))
	require.NoError(t, err)
	assert.Equal(t, uintptr(0x6000), get())
	restore()
	assert.Equal(t, before, get())

	for _, bad := range []string{"[a]\nprioclass=4\n", "[a]\nprio=8\n", "[a]\nprioclass=0\n"} {
		_, err := parseFile(strings.NewReader(bad), "job.fio")
		assert.Error(t, err, bad)
	}
}

// TestFillDevice: examples/surface-scan.fio's write phase on a file in a
// 4 MiB tmpfs writes until the file system is full and ends without an
// error; its read phase reads back what it wrote. On a device the region
// is the device.
func TestFillDevice(t *testing.T) {
	testenv.RequireDevices(t, "loop-control") // root, for the mount
	dir := t.TempDir()
	require.NoError(t, unix.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"))
	t.Cleanup(func() { assert.NoError(t, unix.Unmount(dir, 0)) })
	file := filepath.Join(dir, "datafile.tmp")
	jobs, err := parseFile(strings.NewReader("[global]\nthread\nbs=64k\nioengine=sync\nverify=meta\nverify_pattern=0xaa555aa5\n"+
		"[write-phase]\nfilename="+file+"\nrw=write\nfill_device=1\ndo_verify=0\n"+
		"[verify-phase]\nstonewall\nfilename="+file+"\nrw=read\ndo_verify=1\n"), "surface-scan.fio")
	require.NoError(t, err)
	assert.Contains(t, fiojob.Format(jobs[0]), "fill_device=1\n")
	// Both phases in one run, as the job file runs them: the read phase
	// takes its size from the file the write phase fills, so it is set up
	// when the stonewall releases it.
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	w, r := res.Jobs[0], res.Jobs[1]
	require.NoError(t, w.Err)
	assert.Zero(t, w.TotalErrors())
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, int64(w.Dirs[workload.DirWrite].Bytes), st.Size())
	assert.InDelta(t, 4<<20, st.Size(), 128<<10, "the file fills the 4 MiB file system")
	require.NoError(t, r.Err)
	assert.Equal(t, w.Dirs[workload.DirWrite].Bytes, r.Dirs[workload.DirRead].Bytes)
	assert.Equal(t, st.Size()/(64<<10), int64(r.Verify.Checked), "every block read back and checked")
	assert.Zero(t, r.Verify.Mismatches)

	// Without stonewall the read job needs the file at the start.
	require.NoError(t, os.Remove(file))
	jobs[1].Stonewall = false
	_, err = RunJobs(context.Background(), jobs, workload.Options{})
	assert.ErrorContains(t, err, "size is needed when the file size is unknown")

	// On a device: the whole device, however large.
	target := loopTarget(t, 2<<20)
	job := workload.Job{Name: "f", Filename: target.Path, RW: workload.Write, BlockSize: 64 << 10, Direct: true, FillDevice: true}
	d := runJob(t, job, workload.Options{})
	require.NoError(t, d.Err)
	assert.Equal(t, uint64(2<<20), d.Dirs[workload.DirWrite].Bytes)
}

// TestThinkTimeAndNumberIOs: number_ios ends a job early; thinktime stalls
// after every thinktime_blocks I/Os, so 20 I/Os with a 10 ms think after
// each take at least 190 ms, and with thinktime_blocks=5 at least 30 ms.
func TestThinkTimeAndNumberIOs(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[a]\nioengine=null\nsize=1g\nnumber_ios=20\nthinktime=10ms\nthinktime_spin=1ms\n"+
		"[b]\nioengine=null\nsize=1g\nnumber_ios=20\nthinktime=10000\nthinktime_blocks=5\n"), "job.fio")
	require.NoError(t, err)
	assert.Contains(t, fiojob.Format(jobs[0]), "thinktime=10ms\nthinktime_spin=1ms\nnumber_ios=20\n")
	for i, want := range []time.Duration{190 * time.Millisecond, 30 * time.Millisecond} {
		r := runJob(t, jobs[i], workload.Options{})
		require.NoError(t, r.Err)
		assert.Equal(t, uint64(20), r.Dirs[workload.DirRead].IOs, jobs[i].Name)
		assert.GreaterOrEqual(t, r.Runtime, want, jobs[i].Name)
	}
	_, err = parseFile(strings.NewReader("[a]\nthinktime=1ms\nthinktime_spin=2ms\n"), "job.fio")
	assert.ErrorContains(t, err, "longer than thinktime")
}

// TestExitAll: examples/exitwhat.fio's rules. A job with exitall ends the
// others of its group when it finishes (the default), every running job
// with exit_what=stonewall, and every job with exit_what=all; a job in
// another group runs on.
func TestExitAll(t *testing.T) {
	const long = "ioengine=null\nsize=1g\ntime_based\nruntime=30\nrate_iops=1000\n"
	for _, tc := range []struct {
		name, file string
		stopped    []bool // per job: ended well before its 30 s
	}{
		{"group", "[global]\nexitall\n[short]\nioengine=null\nsize=1m\n[same]\n" + long + "[other]\nnew_group\n" + long + "runtime=2\n",
			[]bool{true, true, false}},
		{"stonewall", "[short]\nexitall\nexit_what=stonewall\nioengine=null\nsize=1m\nthinktime=1ms\n[running]\nnew_group\n" + long +
			"[next]\nstonewall\n" + long + "runtime=1\n", []bool{true, true, false}},
		{"all", "[short]\nexitall\nexit_what=all\nioengine=null\nsize=1m\n[a]\nnew_group\n" + long + "[b]\nnew_group\n" + long,
			[]bool{true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := parseFile(strings.NewReader(tc.file), "exitwhat.fio")
			require.NoError(t, err)
			res, err := RunJobs(context.Background(), jobs, workload.Options{})
			require.NoError(t, err)
			for i, r := range res.Jobs {
				require.NoError(t, r.Err, r.Name)
				if tc.stopped[i] {
					assert.Less(t, r.Runtime, 10*time.Second, "%s stopped by exitall", r.Name)
				} else {
					assert.GreaterOrEqual(t, r.Runtime, 900*time.Millisecond, "%s ran its runtime", r.Name)
				}
			}
		})
	}
}

// TestStridedZones: the offsets fio 3.33 issues with zonemode=strided on
// a 1 MiB file with size=256k and bs=4k (its write_iolog, psync): 4
// blocks per zone, zones zonerange+zoneskip apart across the whole file,
// wrapping at its end; a random job draws within the zone.
func TestStridedZones(t *testing.T) {
	blocks := func(src string) []int64 {
		jobs, err := parseFile(strings.NewReader(src), "job.fio")
		require.NoError(t, err)
		p, err := iogen.NewPattern(&jobs[0], 1<<20, 1)
		require.NoError(t, err)
		var offs []int64
		for p.Passes() < 1 {
			offs = append(offs, p.Next().Offset/4096)
		}
		return offs
	}
	seq := func(starts ...int64) []int64 {
		var out []int64
		for _, s := range starts {
			out = append(out, s, s+1, s+2, s+3)
		}
		return out
	}
	everySixteen := seq(0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240)
	assert.Equal(t, everySixteen, blocks("[a]\nsize=256k\nbs=4k\nzonemode=strided\nzonesize=16k\nzoneskip=48k\n"))
	assert.Equal(t, everySixteen, blocks("[a]\nsize=256k\nbs=4k\nzonemode=strided\nzonesize=16k\nzonerange=64k\n"))
	assert.Equal(t, seq(0, 24, 48, 72, 96, 120, 144, 168, 192, 216, 240, 0, 24, 48, 72, 96),
		blocks("[a]\nsize=256k\nbs=4k\nzonemode=strided\nzonesize=16k\nzonerange=64k\nzoneskip=32k\n"))
	rnd := blocks("[a]\nsize=256k\nbs=4k\nrw=randread\nnorandommap\nzonemode=strided\nzonesize=16k\nzonerange=64k\n")
	require.Len(t, rnd, 64)
	for i, b := range rnd {
		zone := int64(i / 4)
		assert.True(t, b >= zone*16 && b < zone*16+16, "I/O %d at block %d is in zone %d", i, b, zone)
	}
	// examples/disk-zone-profile.fio on a device smaller than its zone.
	small := blocks("[a]\nbs=64k\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n")
	assert.Len(t, small, 16)
	_, err := parseFile(strings.NewReader("[a]\nzonemode=zbd\n"), "job.fio")
	assert.ErrorContains(t, err, "zonemode=zbd (zoned block devices) is not supported by stortest")
	_, err = parseFile(strings.NewReader("[a]\nzonemode=strided\n"), "job.fio")
	assert.ErrorContains(t, err, "needs zonesize")
}

// TestWriteBlocks: a job that reads and writes with block sizes per
// direction (examples/cmdprio-bssplit.fio's bssplit=64k/40:1024k/60,1024k/100)
// draws each direction's sizes from its own; the job prints and reads back
// the same; alignment and buffers take both into account.
func TestWriteBlocks(t *testing.T) {
	jobs, err := parseFile(strings.NewReader("[a]\nrw=randrw\nsize=64m\nnorandommap\nbssplit=64k/40:1024k/60,1024k/100\n"+
		"[b]\nrw=rw\nsize=1m\nbs=4k,16k\n[c]\nrw=randrw\nsize=1m\nbsrange=4k-8k,16k-32k\n"), "job.fio")
	require.NoError(t, err)
	a := jobs[0]
	require.NotNil(t, a.WriteBlocks)
	assert.Equal(t, []workload.BlockSizeSplit{{Size: 1 << 20, Percent: 100}}, a.WriteBlocks.BlockSizeSplit)
	assert.Equal(t, int64(64<<10), a.MinBlockSize())
	assert.Equal(t, int64(1<<20), a.MaxBlockSize())
	for i, want := range []string{"bssplit=64k/40:1m/60,1m/100\n", "bs=4k,16k\n", "bsrange=4k-8k,16k-32k\n"} {
		s := fiojob.Format(jobs[i])
		assert.Contains(t, s, want)
		back, err := parseFile(strings.NewReader(s), "back.fio")
		require.NoError(t, err, s)
		assert.Equal(t, jobs[i], back[0])
	}
	p, err := iogen.NewPattern(&a, 64<<20, 1)
	require.NoError(t, err)
	var reads, bigReads int
	for range 4000 {
		io := p.Next()
		end := io.Offset+io.Len == 64<<20 // cut short by the region's end
		switch {
		case io.Dir == workload.DirWrite:
			require.True(t, io.Len == 1<<20 || end, "every write is 1m: %d", io.Len)
		case io.Len == 1<<20 || (end && io.Len > 64<<10):
			bigReads++
			reads++
		default:
			require.Equal(t, int64(64<<10), io.Len)
			reads++
		}
	}
	assert.InDelta(t, 0.6, float64(bigReads)/float64(reads), 0.05, "reads: 60%% of 1m")
	b := jobs[1]
	t.Chdir(t.TempDir()) // b's file is fio's default name, b.0.0, made here
	r := runJob(t, b, workload.Options{})
	require.NoError(t, r.Err)
	assert.Equal(t, r.Dirs[workload.DirRead].Bytes/4096, r.Dirs[workload.DirRead].IOs, "4k reads")
	assert.Equal(t, r.Dirs[workload.DirWrite].Bytes/16384, r.Dirs[workload.DirWrite].IOs, "16k writes")
	bad := b
	bad.RW = workload.Read
	assert.ErrorContains(t, validate.Job(&bad), "for jobs that read and write")
	bad = b
	bad.WriteBlocks = &workload.BlockSpec{BlockSizeRange: workload.BlockSizeRange{Min: 4096, Max: 8192}}
	assert.ErrorContains(t, validate.Job(&bad), "give both in one option")
}

// bs=A-B (and A:B) is fio 3.33's bs=A,B: reads of A, writes and trims
// of B, not a range of sizes.
func TestBlockSizeDashMatchesFio(t *testing.T) {
	fio, ours := runBoth(t, "bs.fio", `[global]
ioengine=psync
[w]
rw=write
bs=4k-512k
size=1m
[r]
rw=read
bs=8k-4k
size=64k
[c]
rw=randwrite
bs=16k:64k
size=1m
`, nil)
	want := []ranJob{
		{Name: "w", IOs: [workload.NumDirs]uint64{0, 2, 0}, Bytes: [workload.NumDirs]uint64{0, 1 << 20, 0}},
		{Name: "r", IOs: [workload.NumDirs]uint64{8, 0, 0}, Bytes: [workload.NumDirs]uint64{64 << 10, 0, 0}},
		{Name: "c", IOs: [workload.NumDirs]uint64{0, 16, 0}, Bytes: [workload.NumDirs]uint64{0, 1 << 20, 0}},
	}
	checkRanJobs(t, fio, ours, want)
}
