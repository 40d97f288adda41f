package workload

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
)

// resultFromFio rebuilds each job of a recorded fio json+ output as a
// JobResult: the clat histograms from the bins, total_ios per direction.
// It stops the test (FailNow) on an error.
func resultFromFio(t *testing.T, doc map[string]any, jobs []Job) *Result {
	t.Helper()
	res := &Result{}
	for i := range at(doc, "jobs").([]any) {
		fj := at(doc, "jobs", strconv.Itoa(i))
		k := 0 // the job file's section this fio job is a clone of
		for n := i; n >= jobs[k].NumJobs; k++ {
			n -= jobs[k].NumJobs
		}
		jr := NewJobResult(jobs[k], 0, latency.FioLayout)
		for d := range NumDirs {
			dir := at(fj, d.String())
			jr.Dirs[d].IOs = uint64(at(dir, "total_ios").(float64))
			bins, _ := at(dir, "clat_ns", "bins").(map[string]any)
			for key, c := range bins {
				v, err := strconv.ParseUint(key, 10, 64)
				require.NoError(t, err)
				jr.Dirs[d].Clat.AddBin(v, uint64(c.(float64)))
			}
		}
		res.Jobs = append(res.Jobs, jr)
	}
	return res
}

// latency_ns, latency_us and latency_ms are fio's shares of completion
// latency (clat, not lat: fio's lat of the same run reaches into µs)
// against fio 3.33's own figures for the same clat values. The recorded
// null-engine run has all its bins away from the range edges, so the
// bucket values stand in exactly for the values.
func TestFioLatencyRangesMatchFio(t *testing.T) {
	fio := fioRecorded(t, "global-null.json")
	jobs := readFioJob(t, "global-null.fio", "")
	ours := ourFioJSON(t, resultFromFio(t, fio, jobs), FormatJSON)
	require.Len(t, at(ours, "jobs"), 3)
	for i := range 3 {
		job := strconv.Itoa(i)
		for _, k := range []string{"latency_ns", "latency_us", "latency_ms"} {
			require.NotNil(t, at(fio, "jobs", job, k))
			assert.Equal(t, at(fio, "jobs", job, k), at(ours, "jobs", job, k), "job %d %s", i, k)
		}
	}
}

// Exact values decide, not buckets: 745 and 751 ns share a histogram
// bucket but not a range; 1999 ns is 1 µs ("2" of latency_us); shares
// divide by the I/Os of all directions, with fio's floor of 0.01.
func TestFioLatencyRangesExact(t *testing.T) {
	jr := NewJobResult(Job{Name: "r", IODepth: 1}, 0, latency.FioLayout)
	for _, v := range []uint64{745, 751, 1999, 3_000_000_000} {
		jr.Dirs[DirRead].Clat.Add(v)
	}
	jr.Dirs[DirRead].IOs = 4
	jr.Dirs[DirWrite].IOs = 99_996
	jr.Dirs[DirWrite].Clat.Add(30) // one of the writes
	doc := ourFioJSON(t, &Result{Jobs: []*JobResult{jr}}, FormatJSON)
	j := at(doc, "jobs", "0")
	assert.Equal(t, 0.01, at(j, "latency_ns", "750"))
	assert.Equal(t, 0.01, at(j, "latency_ns", "1000"))
	assert.Equal(t, 0.01, at(j, "latency_ns", "50"))
	assert.Equal(t, 0.01, at(j, "latency_us", "2"))
	assert.Equal(t, 0.01, at(j, "latency_ms", ">=2000"))
	assert.Equal(t, 0.0, at(j, "latency_ms", "2000"))

	// The same shares in the terse output, ns folded into the first µs
	// range as fio's terse does: 3 of 100000 I/Os under 2 µs.
	us, ms := latencyRanges(jr)
	assert.InDelta(t, 0.003+0.01, us[0], 1e-12)
	assert.Equal(t, 0.01, ms[11])
}

// The normal output's "lat (nsec)" lines, as fio 3.33 printed them for
// 256 null reads (254 under 50 ns, one each under 250 and 750 ns), and
// fio's wrap after five ranges.
func TestFioLatencyLines(t *testing.T) {
	jr := NewJobResult(Job{Name: "r", IODepth: 1}, 0, latency.FioLayout)
	add := func(v uint64, n int) {
		for range n {
			jr.Dirs[DirRead].Clat.Add(v)
			jr.Dirs[DirRead].IOs++
		}
	}
	add(25, 254)
	add(200, 1)
	add(700, 1)
	assert.Equal(t, "  lat (nsec)   : 50=99.22%, 250=0.39%, 750=0.39%\n", fioLatencyLines(jr))
	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, &Result{Jobs: []*JobResult{jr}}))
	assert.Contains(t, sum.String(), "  lat (nsec)   : 50=99.22%, 250=0.39%, 750=0.39%\n  cpu ")

	for _, v := range []uint64{3000, 5000, 15000, 30000, 60000, 150_000, 3_000_000} {
		add(v, 1)
	}
	assert.Contains(t, fioLatencyLines(jr),
		"  lat (usec)   : 4=0.38%, 10=0.38%, 20=0.38%, 50=0.38%, 100=0.38%\n  lat (usec)   : 250=0.38%\n  lat (msec)   : 4=0.38%\n")
}

// majf and minf are the job thread's page faults: the mmap engine
// touches its mapping from the job's thread, so a read of 4 MiB takes
// minor faults (fio 3.33 for the same job: majf=0 minf=33, 65 with thread).
func TestFioFaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, make([]byte, 4<<20), 0o644))
	res, err := Run(context.Background(), Job{Name: "mm", Engine: "mmap", RW: Read, BlockSize: 4096, Filename: file, Size: 4 << 20}, Options{})
	require.NoError(t, err)
	jr := res.Jobs[0]
	require.Greater(t, jr.MinFlt, uint64(0), "minor faults of the mapping")
	t.Logf("majf=%d minf=%d", jr.MajFlt, jr.MinFlt)
	doc := ourFioJSON(t, res, FormatJSON)
	assert.Equal(t, float64(jr.MinFlt), at(doc, "jobs", "0", "minf"))
	assert.Equal(t, float64(jr.MajFlt), at(doc, "jobs", "0", "majf"))
	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, res))
	assert.Contains(t, sum.String(), ", minf="+strconv.FormatUint(jr.MinFlt, 10)+"\n")
}

// On a file the latencies are the machine's, so the ranges are checked
// against the same run's histogram: every bucket that lies inside one
// range counts there, a bucket across a range edge counts in one of the
// ranges it touches, and all ranges count every completion. (fio 3.33
// and stortest on the same cached 64 MiB psync randread, 3 s: fio
// latency_ns 750=26.44 1000=56.32, latency_us 2=16.73; stortest
// 28.94, 59.13, 11.26.)
func TestFioLatencyRangesOnFile(t *testing.T) {
	target := fileTarget(t, 8<<20)
	res, err := Run(context.Background(), Job{Name: "f", Filename: target.Path, Engine: "psync", RW: RandRead,
		BlockSize: 4096, Size: 8 << 20}, Options{})
	require.NoError(t, err)
	jr := res.Jobs[0]
	h := jr.Dirs[DirRead].Clat
	require.Greater(t, h.Count(), uint64(1000))
	got := h.Ranges()
	var lo, hi [latency.NumRanges]uint64
	for i, c := range h.Counts() {
		if c == 0 {
			continue
		}
		bl, bh := h.Layout().Bounds(i)
		a, b := latency.RangeIndex(bl), latency.RangeIndex(bh-1)
		if a == b {
			lo[a] += c
		}
		for r := a; r <= b; r++ {
			hi[r] += c
		}
	}
	var sum uint64
	for r := range got {
		assert.GreaterOrEqual(t, got[r], lo[r], "range %d", r)
		assert.LessOrEqual(t, got[r], hi[r], "range %d", r)
		sum += got[r]
	}
	assert.Equal(t, h.Count(), sum)

	counts, total := fioLatencyRangeCounts(jr)
	want := latency.RangePercents(&counts, total)
	doc := ourFioJSON(t, res, FormatJSON)
	for i, k := range latency.RangeKeys[:latency.RangesUs] {
		assert.InDelta(t, want[latency.RangesNs+i], at(doc, "jobs", "0", "latency_us", k), 1e-6, "latency_us %s (printed to 6 decimals)", k)
	}
}

// With continue_on_error fio adds "total_err" and "first_error" after the
// latency ranges (fio 3.33's recorded keys for the same command line),
// from the errors the job went on after.
func TestFioContinueOnErrorMembers(t *testing.T) {
	args, err := os.ReadFile(filepath.Join("testdata", "fio333", "coe-null.args"))
	require.NoError(t, err)
	jobs, given, err := Parse(nil, "", Config{Args: strings.Fields(string(args))})
	require.NoError(t, err)
	jr := NewJobResult(jobs[0], 0, latency.FioLayout)
	jr.ErrnoCounts = map[int]uint64{5: 2, 28: 1}
	jr.FirstErrors = []IOError{{Op: "write", Errno: 28}, {Op: "write", Errno: 5}}
	var buf bytes.Buffer
	require.NoError(t, WriteFioJSON(&buf, &Result{Jobs: []*JobResult{jr}, FioOptions: given}, FormatJSON, time.Unix(0, 0)))
	fioOut, err := os.ReadFile(filepath.Join("testdata", "fio333", "coe-null.json"))
	require.NoError(t, err)
	want := jsonKeyLists(t, fioOut)["jobs.0"]
	got := jsonKeyLists(t, buf.Bytes())["jobs.0"]
	assert.Equal(t, want, got[:len(got)-1])
	doc := jsonDoc(t, buf.Bytes())
	assert.Equal(t, 3.0, at(doc, "jobs", "0", "total_err"))
	assert.Equal(t, 28.0, at(doc, "jobs", "0", "first_error"))
	assert.Equal(t, at(fioRecorded(t, "coe-null.json"), "jobs", "0", "job options"), at(doc, "jobs", "0", "job options"))
}

// The normal output's description and latency target lines, as fio 3.33
// printed them for a described job of iodepth 1 without a latency
// target: "  Description  : [first job]" under the job's header and
// "     latency   : target=0, window=0, percentile=100.00%, depth=1".
func TestFioSummaryDescriptionAndLatencyTarget(t *testing.T) {
	jr := NewJobResult(Job{Name: "a", Description: "first job", IODepth: 1}, 0, latency.FioLayout)
	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, &Result{Jobs: []*JobResult{jr}}))
	assert.Contains(t, sum.String(), "\n  Description  : [first job]\n")
	assert.Contains(t, sum.String(), "\n     latency   : target=0, window=0, percentile=100.00%, depth=1\n")
	doc := ourFioJSON(t, &Result{Jobs: []*JobResult{jr}}, FormatJSON)
	for k, v := range map[string]any{"desc": "first job", "latency_depth": 1.0, "latency_target": 0.0, "latency_percentile": 100.0, "latency_window": 0.0} {
		assert.Equal(t, v, at(doc, "jobs", "0", k), k)
	}
}
