package fioout

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// Exact values decide, not buckets: 745 and 751 ns share a histogram
// bucket but not a range; 1999 ns is 1 µs ("2" of latency_us); shares
// divide by the I/Os of all directions, with fio's floor of 0.01.
func TestFioLatencyRangesExact(t *testing.T) {
	jr := workload.NewJobResult(workload.Job{Name: "r", IODepth: 1}, 0, latency.FioLayout)
	for _, v := range []uint64{745, 751, 1999, 3_000_000_000} {
		jr.Dirs[workload.DirRead].Clat.Add(v)
	}
	jr.Dirs[workload.DirRead].IOs = 4
	jr.Dirs[workload.DirWrite].IOs = 99_996
	jr.Dirs[workload.DirWrite].Clat.Add(30) // one of the writes
	doc := ourFioJSON(t, &workload.Result{Jobs: []*workload.JobResult{jr}}, FormatJSON)
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
	jr := workload.NewJobResult(workload.Job{Name: "r", IODepth: 1}, 0, latency.FioLayout)
	add := func(v uint64, n int) {
		for range n {
			jr.Dirs[workload.DirRead].Clat.Add(v)
			jr.Dirs[workload.DirRead].IOs++
		}
	}
	add(25, 254)
	add(200, 1)
	add(700, 1)
	assert.Equal(t, "  lat (nsec)   : 50=99.22%, 250=0.39%, 750=0.39%\n", fioLatencyLines(jr))
	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, &workload.Result{Jobs: []*workload.JobResult{jr}}))
	assert.Contains(t, sum.String(), "  lat (nsec)   : 50=99.22%, 250=0.39%, 750=0.39%\n  cpu ")

	for _, v := range []uint64{3000, 5000, 15000, 30000, 60000, 150_000, 3_000_000} {
		add(v, 1)
	}
	assert.Contains(t, fioLatencyLines(jr),
		"  lat (usec)   : 4=0.38%, 10=0.38%, 20=0.38%, 50=0.38%, 100=0.38%\n  lat (usec)   : 250=0.38%\n  lat (msec)   : 4=0.38%\n")
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
	res, err := workload.Run(context.Background(), workload.Job{Name: "f", Filename: target.Path, Engine: "psync", RW: workload.RandRead,
		BlockSize: 4096, Size: 8 << 20}, workload.Options{})
	require.NoError(t, err)
	jr := res.Jobs[0]
	h := jr.Dirs[workload.DirRead].Clat
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
