package baselines

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// Clones merge as fio's group_reporting: counts add, histograms merge
// (percentiles from the merged histogram, never averaged), throughput is
// over the longest runtime, seconds add index by index.
func TestFromResultMergesClones(t *testing.T) {
	a := synthJob(t, "mix", 0, 12, 3000, true, 1)
	b := synthJob(t, "mix", 1, 12, 3000, true, 1)
	b.Runtime += 5 * time.Millisecond
	got, err := FromResult(&workload.Result{Jobs: []*workload.JobResult{a, b}}, Fingerprint{Kind: "loop", Kernel: "6.18"})
	require.NoError(t, err)

	require.Equal(t, 2, got.Clones)
	require.Equal(t, b.Runtime, got.Runtime)
	require.Equal(t, "io_uring", got.Fingerprint.Engine)
	require.Equal(t, "stortest-"+workload.Version, got.Fingerprint.Version)
	require.Equal(t, time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), got.Created, "whole seconds, UTC")
	require.Equal(t, a.Job.Normalized(), got.Job)
	require.Len(t, got.Dirs, 2)
	for i, d := range got.Dirs {
		wd := workload.Dir(i)
		require.Equal(t, wd.String(), d.Name)
		require.Equal(t, a.Dirs[wd].IOs+b.Dirs[wd].IOs, d.IOs)
		require.Equal(t, a.Dirs[wd].Bytes+b.Dirs[wd].Bytes, d.Bytes)
		require.InDelta(t, float64(d.IOs)/b.Runtime.Seconds(), d.IOPS, 1e-9)
		merged := a.Dirs[wd].Clat.Clone()
		require.NoError(t, merged.Merge(b.Dirs[wd].Clat))
		want := Stat{N: merged.Count(), Min: merged.Min(), Max: merged.Max(), Mean: merged.Mean(), Stddev: merged.Stddev(),
			P50: merged.Percentile(50), P90: merged.Percentile(90), P99: merged.Percentile(99), P999: merged.Percentile(99.9), P9999: merged.Percentile(99.99),
			Hist: &Hist{Groups: latency.LongGroups, Bins: merged.Bins()}}
		if diff := cmp.Diff(&want, d.Clat); diff != "" {
			t.Errorf("%s clat (-want +got):\n%s", d.Name, diff)
		}
		require.Equal(t, 12, d.IOPSSamples.N, "whole seconds only")
	}
	require.Len(t, got.Seconds, 13)
	for i, s := range got.Seconds {
		sa, sb := a.Seconds[i], b.Seconds[i]
		require.Equal(t, sa.IOs[0]+sb.IOs[0], s.Dirs[0].IOs)
		h := latency.New(latency.MustLayout(latency.LongGroups))
		sa.Clat[0].AddTo(h)
		sb.Clat[0].AddTo(h)
		require.Equal(t, h.Percentile(99), s.Dirs[0].ClatP99, "second %d", i)
		require.Equal(t, h.Percentile(99.9), s.Dirs[0].ClatP999, "second %d", i)
		var sum, n float64
		for _, bin := range h.Bins() {
			sum += float64(bin.Value) * float64(bin.Count)
			n += float64(bin.Count)
		}
		require.Equal(t, uint64(math.Round(sum/n)), s.Dirs[0].ClatMean, "second %d: mean of the merged bins", i)
		require.Nil(t, s.Dirs[2], "no trim")
	}
}

func TestFromResultErrors(t *testing.T) {
	failed := synthJob(t, "x", 0, 2, 100, false, 2)
	failed.Err = errors.New("EIO")
	canceled := synthJob(t, "x", 0, 2, 100, false, 2)
	canceled.Canceled = true
	idle := &workload.JobResult{Name: "idle", Runtime: time.Second}
	for _, tc := range []struct {
		name    string
		res     *workload.Result
		partial bool
		want    string
	}{
		{"nil", nil, false, "empty result"},
		{"no-jobs", &workload.Result{}, false, "empty result"},
		{"two-jobs", &workload.Result{Jobs: []*workload.JobResult{synthJob(t, "a", 0, 2, 100, false, 1), synthJob(t, "b", 0, 2, 100, false, 1)}}, false, `jobs "a" and "b"`},
		{"failed", &workload.Result{Jobs: []*workload.JobResult{failed}}, true, "failed: EIO"},
		{"canceled", &workload.Result{Jobs: []*workload.JobResult{canceled}}, true, "cancelled"},
		{"no-io", &workload.Result{Jobs: []*workload.JobResult{idle}}, false, "no I/O"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromResult(tc.res, Fingerprint{})
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, tc.partial, errors.Is(err, ErrPartial))
		})
	}
}

func TestPerSecond(t *testing.T) {
	b := &Baseline{Seconds: []Second{
		{T: time.Second, Dur: time.Second, Dirs: [3]*SecondDir{{IOs: 100, Bytes: 400, ClatP50: 7, ClatP99: 9, ClatP999: 11, ClatMean: 8}}},
		{T: 2 * time.Second, Dur: time.Second}, // a stall: no I/O at all
		{T: 3 * time.Second, Dur: time.Second, Dirs: [3]*SecondDir{{IOs: 50, Bytes: 200}}},
		{T: 4 * time.Second, Dur: time.Second, Dirs: [3]*SecondDir{{ClatMean: 5}}}, // no I/O: no latency
		{T: 5 * time.Second, Dur: time.Second, Dirs: [3]*SecondDir{{IOs: 70, Bytes: 280, ClatMean: 6}}},
		{T: 5500 * time.Millisecond, Dur: 500 * time.Millisecond, Dirs: [3]*SecondDir{{IOs: 1, Bytes: 4, ClatP99: 99, ClatMean: 99}}},
	}}
	for _, tc := range []struct {
		name string
		dir  string
		m    SecondMetric
		want []float64
	}{
		{"iops-counts-stalls", "read", SecondIOPS, []float64{100, 0, 50, 0, 70}},
		{"bw", "read", SecondBW, []float64{400, 0, 200, 0, 280}},
		{"p99-skips-unknown", "read", SecondClatP99, []float64{9}},
		{"p99.9", "read", SecondClatP999, []float64{11}},
		{"mean-skips-unknown-and-idle", "read", SecondClatMean, []float64{8, 6}},
		{"no-writes", "write", SecondIOPS, nil},
		{"no-write-means", "write", SecondClatMean, nil},
		{"bad-dir", "sideways", SecondIOPS, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, b.PerSecond(tc.dir, tc.m)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A real run of the null engine becomes a baseline that survives the file
// format unchanged.
func TestFromRealRun(t *testing.T) {
	testenv.SkipShort(t, "runs a 1.2 s workload")
	job := workload.Job{Name: "null-randread", Engine: "null", RW: workload.RandRead, BlockSize: 4096,
		Size: 1 << 20, Runtime: 1200 * time.Millisecond, TimeBased: true}
	_, b := realRun(t, job, workload.Options{}, Fingerprint{Kernel: "test"})
	require.Equal(t, "null", b.Fingerprint.Engine)
	require.NotEmpty(t, b.Seconds)
	require.Greater(t, b.Dirs[0].IOs, uint64(1000))
	require.NotNil(t, b.Dirs[0].Clat.Hist)
	data, err := Marshal(b)
	require.NoError(t, err)
	back, err := Decode(bytesReader(data), "run.json")
	require.NoError(t, err)
	if diff := cmp.Diff(b, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// A last tick at the instant of the one before (the runner closes the
// interval when the job ends) is folded into it: seconds strictly advance
// and nothing is lost.
func TestFromResultFoldsEmptySeconds(t *testing.T) {
	jr := synthJob(t, "x", 0, 3, 500, false, 30)
	last := jr.Seconds[len(jr.Seconds)-1]
	extra := workload.Second{T: last.T, Dur: 0}
	extra.IOs[0], extra.Bytes[0] = 2, 8192
	h := latency.New(last.Clat[0].Layout())
	h.AddBin(100, 2)
	extra.Clat[0] = latency.NewSparse(h)
	jr.Seconds = append(jr.Seconds, extra)
	jr.Dirs[0].IOs += 2
	b, err := FromJobResult(jr, Fingerprint{})
	require.NoError(t, err)
	require.Len(t, b.Seconds, 4)
	require.Equal(t, last.IOs[0]+2, b.Seconds[3].Dirs[0].IOs)
	var sum uint64
	for _, s := range b.Seconds {
		sum += s.Dirs[0].IOs
	}
	require.Equal(t, b.Dirs[0].IOs, sum)
	data, err := Marshal(b)
	require.NoError(t, err)
	_, err = Decode(bytesReader(data), "x.json")
	require.NoError(t, err)
}

// A whole second without I/O (a throttled run's last interval: no
// completions, no bins) is a stall for throughput but has no latency: the
// per-second latency series skip it rather than read a 0 or NaN.
func TestPerSecondLatencySkipsIdleSeconds(t *testing.T) {
	jr := synthJob(t, "x", 0, 10, 500, false, 31)
	last := jr.Seconds[len(jr.Seconds)-1]
	jr.Seconds = append(jr.Seconds, workload.Second{T: last.T + time.Second, Dur: time.Second})
	jr.Runtime += time.Second
	b, err := FromJobResult(jr, Fingerprint{})
	require.NoError(t, err)
	require.Nil(t, b.Seconds[len(b.Seconds)-1].Dirs[0], "no read I/O in the last second")
	iops := b.PerSecond("read", SecondIOPS)
	require.Len(t, iops, 11)
	require.Zero(t, iops[10], "the idle second counts for throughput")
	for _, m := range []SecondMetric{SecondClatMean, SecondClatP50, SecondClatP99, SecondClatP999} {
		xs := b.PerSecond("read", m)
		require.Len(t, xs, 10, "%v: the 10 whole seconds with I/O", m)
		for _, x := range xs {
			require.False(t, x <= 0 || math.IsNaN(x), "%v: %v", m, xs)
		}
	}
}

// Slices come from the runner's, merged across clones, and sum to the
// totals; PerSlice gives their throughput; they round-trip.
func TestSlices(t *testing.T) {
	mk := func(clone int) *workload.JobResult {
		jr := synthJob(t, "x", clone, 3, 500, false, 7)
		for i := range 30 {
			sl := workload.Slice{T: time.Duration(i+1) * workload.SliceInterval, Dur: workload.SliceInterval}
			sl.IOs[0], sl.Bytes[0] = 50, 50*4096
			if i == 12 {
				sl.IOs[0], sl.Bytes[0] = 0, 0 // a stall
			}
			jr.Slices = append(jr.Slices, sl)
		}
		return jr
	}
	b, err := FromResult(&workload.Result{Jobs: []*workload.JobResult{mk(0), mk(1)}}, Fingerprint{})
	require.NoError(t, err)
	require.Len(t, b.Slices, 30)
	require.Equal(t, workload.SliceInterval, b.SliceInterval)
	iops := b.PerSlice("read", SecondIOPS)
	require.Len(t, iops, 30)
	require.InDelta(t, 1000, iops[0], 1e-9, "two clones of 50 I/Os in 100 ms")
	require.Zero(t, iops[12], "a stall counts")
	require.Nil(t, b.PerSlice("write", SecondIOPS))
	require.Nil(t, b.PerSlice("read", SecondClatP99))
	data, err := Marshal(b)
	require.NoError(t, err)
	require.Contains(t, string(data), "\n    \"read_ios\": [100,100,")
	got, err := Decode(bytesReader(data), "x.json")
	require.NoError(t, err)
	if diff := cmp.Diff(b.Slices, got.Slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
}

// A write job's verify pass reads after its writes: the read-back time
// is not a write stall, nor the write time a read stall. A second
// without any I/O is a stall wherever it falls.
func TestPerSecondActiveSpan(t *testing.T) {
	w := func(n uint64) *SecondDir { return &SecondDir{IOs: n, Bytes: n} }
	var secs []Second
	for i, d := range []([3]*SecondDir){{nil, w(10)}, {nil, w(10)}, {}, {nil, w(10)}, {w(5), nil}, {w(5), nil}, {}} {
		secs = append(secs, Second{T: time.Duration(i+1) * time.Second, Dur: time.Second, Dirs: d})
	}
	b := &Baseline{Seconds: secs}
	require.Equal(t, []float64{10, 10, 0, 10}, b.PerSecond("write", SecondIOPS))
	require.Equal(t, []float64{5, 5, 0}, b.PerSecond("read", SecondIOPS), "the final idle second is a stall")
	require.Nil(t, b.PerSecond("trim", SecondIOPS))
}

// A baseline of several runs keeps each run's figures; a run of another
// job or workload is refused; the file round-trips.
func TestAddRun(t *testing.T) {
	a := synthBaseline(t, 12, 500, false, 1)
	b := synthBaseline(t, 12, 450, false, 2)
	require.Len(t, a.RunSummaries(), 1)
	require.NoError(t, a.AddRun(b))
	runs := a.RunSummaries()
	require.Len(t, runs, 2)
	require.Equal(t, a.Dir("read").IOPS, runs[0].Dirs[0].IOPS)
	require.Equal(t, b.Dir("read").IOPS, runs[1].Dirs[0].IOPS)
	require.Equal(t, b.Dir("read").Clat.P99, runs[1].Dirs[0].ClatP99)
	require.NoError(t, a.AddRun(b))
	require.Len(t, a.Runs, 3)

	other := synthBaseline(t, 12, 500, false, 3)
	other.Name = "other"
	require.ErrorIs(t, a.AddRun(other), ErrOtherJob)
	deeper := synthBaseline(t, 12, 500, false, 3)
	deeper.Job.IODepth = 64
	require.ErrorContains(t, a.AddRun(deeper), "the workload differs: iodepth")

	a.Tolerances = "*.iops=5%"
	data, err := Marshal(a)
	require.NoError(t, err)
	got, err := Decode(bytesReader(data), "x.json")
	require.NoError(t, err)
	if diff := cmp.Diff(a.Runs, got.Runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	require.Equal(t, "*.iops=5%", got.Tolerances)
}

// A real sequential write with verify writes, then reads its blocks back:
// the write throughput series end with the writes and the read series
// start with the reads, so the read-back is not zero-write samples,
// which would dilute a real write drop (and the writes not zero-read
// ones). A millisecond added to every I/O makes each phase about a
// second long.
func TestThroughputSeriesOfWriteVerify(t *testing.T) {
	testenv.SkipShort(t, "runs a 2.5 s workload")
	job := workload.Job{Name: "write-verify", Engine: "psync", RW: workload.Write, BlockSize: 4096,
		Size: 4 << 20, Verify: workload.VerifyCRC32C}
	res, b := realRun(t, job, workload.Options{Faults: &engines.Faults{Latency: time.Millisecond}}, Fingerprint{})
	require.Equal(t, uint64(1024), res.Jobs[0].Verify.Checked)

	whole := func(from, to int) (n int) {
		for _, s := range b.Slices[from:to] {
			if s.Dur >= SliceInterval*99/100 {
				n++
			}
		}
		return n
	}
	first, last := -1, -1 // the first slice with reads, the last with writes
	for i, s := range b.Slices {
		if s.Dirs[0] != nil && first < 0 {
			first = i
		}
		if s.Dirs[1] != nil {
			last = i
		}
	}
	require.GreaterOrEqual(t, whole(last+1, len(b.Slices)), 5, "whole slices of read-back after the last write")
	require.GreaterOrEqual(t, whole(0, first), 5, "whole slices of writes before the first read")

	writes := b.PerSlice("write", SecondIOPS)
	require.Equal(t, whole(0, last+1), len(writes), "the write series ends with the writes")
	for i, v := range writes {
		require.Positive(t, v, "slice %d of the writes: %v", i, writes)
	}
	reads := b.PerSlice("read", SecondIOPS)
	require.Equal(t, whole(first, len(b.Slices)), len(reads), "the read series starts with the reads")
	for i, v := range reads {
		require.Positive(t, v, "slice %d of the read-back: %v", i, reads)
	}
	for _, d := range []string{"read", "write"} {
		secs := b.PerSecond(d, SecondIOPS)
		for _, v := range secs {
			require.Positive(t, v, "%s: whole seconds in the span: %v", d, secs)
		}
		require.Equal(t, len(secs), b.Dir(d).IOPSSamples.N, "%s: moments of the span", d)
	}
}

// AddRun on a copy of a baseline leaves the original's runs alone.
func TestAddRunToACopy(t *testing.T) {
	a := synthBaseline(t, 3, 500, false, 1)
	require.NoError(t, a.AddRun(synthBaseline(t, 3, 450, false, 2)))
	require.NoError(t, a.AddRun(synthBaseline(t, 3, 440, false, 3))) // spare capacity now, likely
	c1, c2 := *a, *a
	require.NoError(t, c1.AddRun(synthBaseline(t, 3, 400, false, 4)))
	require.NoError(t, c2.AddRun(synthBaseline(t, 3, 600, false, 5)))
	require.Len(t, a.Runs, 3)
	require.Less(t, c1.Runs[3].Dirs[0].IOPS, c2.Runs[3].Dirs[0].IOPS, "each copy keeps its own fourth run")
}

// Slices of no length, or that do not advance, fold into the slice before
// them (an empty first one into the next): slices strictly advance, tile
// the time line and keep every completion.
func TestFromResultFoldsEmptySlices(t *testing.T) {
	jr := withSlices(synthJob(t, "x", 0, 2, 500, false, 32))
	var want uint64
	for _, s := range jr.Slices {
		want += s.IOs[0]
	}
	n := len(jr.Slices)
	first := workload.Slice{} // T and Dur 0
	first.IOs[0], first.Bytes[0] = 3, 3*4096
	again := jr.Slices[5] // ends with slice 5, again
	again.Dur = 0
	last := jr.Slices[n-1]
	last.Dur = 0
	jr.Slices = append([]workload.Slice{first}, jr.Slices...)
	jr.Slices = slices.Insert(jr.Slices, 7, again)
	jr.Slices = append(jr.Slices, last)
	want += 3 + again.IOs[0] + last.IOs[0]
	jr.Dirs[0].IOs += 3 + again.IOs[0] + last.IOs[0]

	b, err := FromJobResult(jr, Fingerprint{})
	require.NoError(t, err)
	require.Len(t, b.Slices, n)
	var got uint64
	var end time.Duration
	for i, s := range b.Slices {
		got += s.Dirs[0].IOs
		require.Equal(t, end+s.Dur, s.T, "slice %d tiles", i)
		require.Positive(t, s.Dur, "slice %d", i)
		end = s.T
	}
	require.Equal(t, want, got)
	require.Equal(t, jr.Slices[1].IOs[0]+3, b.Slices[0].Dirs[0].IOs, "the empty first slice's completions")
	_, err = Marshal(b)
	require.NoError(t, err)
}

// What a run's shared device moved is kept at the top of the file and in
// each run of a baseline of several, and loads back.
func TestSharedRoundTrip(t *testing.T) {
	a := synthBaseline(t, 12, 500, false, 1)
	b := synthBaseline(t, 12, 500, false, 2)
	b.Shared = "vda moved 20MiB/s besides the run's I/O"
	require.NoError(t, a.AddRun(b))
	require.Equal(t, []string{"", b.Shared}, []string{a.Runs[0].Shared, a.Runs[1].Shared})
	a.Shared = "loop3 moved 2MiB/s besides the run's I/O"
	data, err := Marshal(a)
	require.NoError(t, err)
	require.Contains(t, string(data), `"shared":"vda moved 20MiB/s besides the run's I/O"`)
	got, err := Decode(bytesReader(data), "x.json")
	require.NoError(t, err)
	require.Equal(t, a.Shared, got.Shared)
	var sum strings.Builder
	require.NoError(t, got.WriteSummary(&sum))
	require.Contains(t, sum.String(), "\n  shared device: loop3 moved 2MiB/s besides the run's I/O\n")
	if diff := cmp.Diff(a.Runs, got.Runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	// Schema 2 cannot hold it.
	old := *a
	old.Runs, old.Slices, old.Tolerances, old.Fingerprint.Size, old.Schema = nil, nil, "", 0, 2
	_, err = Marshal(&old)
	require.ErrorContains(t, err, "it has shared, which schema 2 cannot hold")
}
