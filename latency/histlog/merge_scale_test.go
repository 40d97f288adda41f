package histlog

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
)

// The acceptance point "merging 1,000 histogram logs streams": a
// thousand fio logs merge to the same figures as sums computed apart
// from the package, in memory bounded by per-input buffers rather than
// by the logs' size, and within the process's limit on open files.

const (
	scaleLogs    = 1000
	scaleSeconds = 120  // rows per direction of the longest log
	scaleCols    = 1856 // fio's default (log_hist_coarseness=0)
)

// scaleRef is what the merge must report, summed by the generator.
type scaleRef struct {
	cols, quanta int
	counts       [2][]uint64 // reads, writes: quantum q's column c at q*cols+c
	inputs       []int       // logs covering each quantum
	perLog       [][2]uint64 // completions of each log per direction
	rows         int
	nonZero      int // non-zero counts written
	bytes        int64
}

// genScaleLogs writes n logs under dir (10 host directories of fio's
// file names), one row per second and direction, at times exactly on
// the second so that each row fills one quantum and the reference needs
// no spreading; log i starts i%5 s late and ends up to 12 s early, so
// the logs cover different spans. Counts are as dense as real ones: a
// log-normal body (sigma 0.35, about 200 non-zero buckets of fio's 1856)
// around a median that drifts from second to second, and a thin slow
// tail, about 2500 completions a row.
func genScaleLogs(t testing.TB, dir string, n, seconds, cols int) ([]string, *scaleRef) {
	t.Helper()
	coarse := 0
	for latency.FioBuckets>>coarse > cols {
		coarse++
	}
	if latency.FioBuckets>>coarse != cols {
		t.Fatalf("%d columns is not fio's 1856 >> coarseness", cols)
	}
	ref := &scaleRef{cols: cols, quanta: seconds, inputs: make([]int, seconds), perLog: make([][2]uint64, n)}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("node%02d", i%10), FileName("h", i/10+1))
	}
	for h := range 10 {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("node%02d", h)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A bucket is 1/64 of a doubling: sigma 0.35 is 32 buckets.
	const reach, sigma, tailAt = 96, 32.0, 165 // 6x the median
	var body [2*reach + 1]float64
	for o := range body {
		x := float64(o-reach) / sigma
		body[o] = math.Exp(-x * x / 2)
	}
	zeros := strings.Repeat(", 0", cols)
	workers := runtime.GOMAXPROCS(0)
	type part struct {
		counts        [2][]uint64
		rows, nonZero int
		bytes         int64
		err           error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			p := &parts[w]
			p.counts = [2][]uint64{make([]uint64, seconds*cols), make([]uint64, seconds*cols)}
			fine := make([]uint64, latency.FioBuckets)
			var buf []byte
			for i := w; i < n; i += workers {
				rng := rand.New(rand.NewPCG(uint64(i), 42))
				var center, base [2]int
				base[Read] = latency.FioLayout.Index(uint64(60e3 + rng.Float64()*60e3))
				base[Write] = latency.FioLayout.Index(uint64(15e3 + rng.Float64()*30e3))
				center = base
				buf = buf[:0]
				for k := i%5 + 1; k <= seconds-(i*7)%13; k++ {
					q := k - 1
					for _, d := range [2]Direction{Direction(k % 2), Direction(1 - k%2)} {
						c := min(max(center[d]+rng.IntN(5)-2, base[d]-20), base[d]+20)
						center[d] = c
						amp := 25 + rng.Float64()*10
						for o, wt := range body {
							fine[c-reach+o] += uint64(amp*wt + rng.Float64())
						}
						lo, hi := c-reach, c+reach
						for range 10 + rng.IntN(40) {
							b := min(max(c+tailAt+int(rng.NormFloat64()*sigma*2.5), 0), latency.FioBuckets-1)
							fine[b]++
							lo, hi = min(lo, b), max(hi, b)
						}
						buf = strconv.AppendUint(buf, uint64(k*1000), 10)
						buf = append(buf, ", "...)
						buf = strconv.AppendUint(buf, uint64(d), 10)
						buf = append(buf, ", 4096"...)
						col := 0
						for cc := lo >> coarse; cc <= hi>>coarse; cc++ {
							var v uint64
							for _, f := range fine[cc<<coarse : (cc+1)<<coarse] {
								v += f
							}
							if v == 0 {
								continue
							}
							buf = append(buf, zeros[:3*(cc-col)]...)
							buf = append(buf, ", "...)
							buf = strconv.AppendUint(buf, v, 10)
							col = cc + 1
							p.counts[d][q*cols+cc] += v
							ref.perLog[i][d] += v
							p.nonZero++
						}
						clear(fine[lo:min(hi+1, len(fine))])
						buf = append(buf, zeros[:3*(cols-col)]...)
						buf = append(buf, '\n')
						p.rows++
					}
				}
				p.bytes += int64(len(buf))
				if err := os.WriteFile(paths[i], buf, 0o644); err != nil {
					p.err = err
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range n {
		// A log of job-relative times spans from 0 to its last row.
		for q := range seconds - (i*7)%13 {
			ref.inputs[q]++
		}
	}
	for _, p := range parts {
		if p.err != nil {
			t.Fatal(p.err)
		}
		for d := range ref.counts {
			if ref.counts[d] == nil {
				ref.counts[d] = p.counts[d]
				continue
			}
			for k, v := range p.counts[d] {
				ref.counts[d][k] += v
			}
		}
		ref.rows += p.rows
		ref.nonZero += p.nonZero
		ref.bytes += p.bytes
	}
	return paths, ref
}

// scaleSink checks every row against the reference as it arrives and
// keeps nothing per row, so the heap measured is the merge's own.
type scaleSink struct {
	ref     *scaleRef
	dirs    []Direction
	ps      []float64
	lo, hi  []float64 // column bounds, ns
	all     []uint64  // reads + writes of a quantum
	want    []float64 // percentiles
	rows    int
	byInput [][3]float64 // completions per log: reads, writes, all
	fails   []string
}

func newScaleSink(ref *scaleRef, dirs []Direction, ps []float64, logs int) *scaleSink {
	s := &scaleSink{ref: ref, dirs: dirs, ps: ps, all: make([]uint64, ref.cols),
		want: make([]float64, len(ps)), byInput: make([][3]float64, logs)}
	// Column bounds from the layout's buckets, not from Format.
	per := latency.FioBuckets / ref.cols
	for c := range ref.cols {
		lo, _ := latency.FioLayout.Bounds(c * per)
		_, hi := latency.FioLayout.Bounds(c*per + per - 1)
		s.lo, s.hi = append(s.lo, float64(lo)), append(s.hi, float64(hi))
	}
	return s
}

func (s *scaleSink) failf(format string, args ...any) {
	if len(s.fails) < 10 {
		s.fails = append(s.fails, fmt.Sprintf(format, args...))
	}
}

func (s *scaleSink) Begin(sum *Summary) error {
	if sum.Start != 0 || sum.Quantum != 1000 || sum.Format.Columns() != s.ref.cols || len(sum.Labels) != len(s.byInput) {
		s.failf("summary %+v", sum)
	}
	return nil
}

func (s *scaleSink) End(sum *Summary) error {
	if sum.Quanta != s.ref.quanta || sum.Late != 0 {
		s.failf("%d quanta, %d late rows: want %d and 0", sum.Quanta, sum.Late, s.ref.quanta)
	}
	if want := sum.Quanta * len(s.dirs); s.rows != want {
		s.failf("%d rows, want %d", s.rows, want)
	}
	for i, got := range s.byInput {
		w := s.ref.perLog[i]
		if got != [3]float64{float64(w[Read]), float64(w[Write]), float64(w[Read] + w[Write])} {
			s.failf("log %d: completions by input %v, want %v", i, got, w)
		}
	}
	return nil
}

func (s *scaleSink) Row(r *Row) error {
	q, d := s.rows/len(s.dirs), s.dirs[s.rows%len(s.dirs)]
	s.rows++
	if r.Dir != d || r.Time != int64(q)*1000 || q >= s.ref.quanta {
		s.failf("row %d: %v at %d ms, want %v at %d ms of %d quanta", s.rows, r.Dir, r.Time, d, q*1000, s.ref.quanta)
		return nil
	}
	cols := s.ref.cols
	var counts []uint64
	switch d {
	case Read, Write:
		counts = s.ref.counts[d][q*cols : (q+1)*cols]
	case Trim:
		clear(s.all)
		counts = s.all
	case All:
		for c := range s.all {
			s.all[c] = s.ref.counts[Read][q*cols+c] + s.ref.counts[Write][q*cols+c]
		}
		counts = s.all
	}
	samples, lo, hi := s.figures(counts)
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || approxEqual(a, b, 1e-12) }
	ok := r.Samples == samples && same(r.Min, lo) && same(r.Max, hi) && r.Inputs == s.ref.inputs[q]
	for k := range s.want {
		ok = ok && same(r.Percentiles[k], s.want[k])
	}
	if !ok {
		s.failf("%v at %d ms: inputs %d, samples %v, min %v, max %v, percentiles %v; want %d, %v, %v, %v, %v",
			d, r.Time, r.Inputs, r.Samples, r.Min, r.Max, r.Percentiles, s.ref.inputs[q], samples, lo, hi, s.want)
	}
	if len(r.ByInput) != len(s.byInput) {
		s.failf("%d completions by input, want %d", len(r.ByInput), len(s.byInput))
		return nil
	}
	j := int(d) // reads, writes and all: 0, 1 and 2
	if d == All {
		j = 2
	}
	sum := 0.0
	for i, v := range r.ByInput {
		sum += v
		if d != Trim {
			s.byInput[i][j] += v
		}
	}
	if sum != samples {
		s.failf("%v at %d ms: completions by input sum to %v, want %v", d, r.Time, sum, samples)
	}
	return nil
}

// figures computes, apart from the package's code, the completions, min,
// max and percentiles (into s.want) of integer counts: the rank
// p/100*total falls in the first non-empty column whose running total
// reaches it, interpolated linearly between the column's bounds.
func (s *scaleSink) figures(counts []uint64) (samples, lo, hi float64) {
	var total uint64
	first, last := -1, -1
	for c, v := range counts {
		if v > 0 {
			total += v
			if first < 0 {
				first = c
			}
			last = c
		}
	}
	if total == 0 {
		for k := range s.want {
			s.want[k] = math.NaN()
		}
		return 0, math.NaN(), math.NaN()
	}
	for k, p := range s.ps {
		rank := p / 100 * float64(total)
		var cum uint64
		for c := first; c <= last; c++ {
			v := counts[c]
			if v == 0 {
				continue
			}
			prev := cum
			cum += v
			if float64(cum) >= rank || c == last {
				f := min(max((rank-float64(prev))/float64(v), 0), 1)
				s.want[k] = s.lo[c] + f*(s.hi[c]-s.lo[c])
				break
			}
		}
	}
	return float64(total), s.lo[first], s.hi[last]
}

// monitor samples the heap every millisecond and the open files every
// 10 ms until stopped, keeping the peaks.
type monitor struct {
	stop      chan struct{}
	done      chan struct{}
	heapPeak  uint64 // heap objects, live or not yet swept
	livePeak  uint64 // live heap marked by the last GC
	filesPeak int
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

func heapNow() (objects, live uint64) {
	ms := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		ms[i].Name = n
	}
	metrics.Read(ms)
	return ms[0].Value.Uint64(), ms[1].Value.Uint64()
}

func startMonitor() *monitor {
	m := &monitor{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		ms := make([]metrics.Sample, len(heapMetrics))
		for i, n := range heapMetrics {
			ms[i].Name = n
		}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			metrics.Read(ms)
			m.heapPeak = max(m.heapPeak, ms[0].Value.Uint64())
			m.livePeak = max(m.livePeak, ms[1].Value.Uint64())
			if n%10 == 0 {
				m.filesPeak = max(m.filesPeak, openFiles())
			}
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *monitor) finish() {
	close(m.stop)
	<-m.done
}

// setOpenFiles sets the soft limit on open files until the test ends.
func setOpenFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) })
}

// TestMergeThousandLogs: 1,000 logs of fio's 1856 columns (120 s of
// reads and writes each, 1.3 GB) merge from their files to the figures
// summed by the generator; the heap grows by a small fraction of what
// holding their rows would take; the merge runs in one pass within the
// classic limit of 1024 open files, and raises a lower soft limit; and
// with room for fewer files than logs, it merges them in passes.
func TestMergeThousandLogs(t *testing.T) {
	testenv.SkipShort(t, "writes and merges 1.3 GB of logs (about 10 s); skipped with -short")
	t0 := time.Now()
	paths, ref := genScaleLogs(t, t.TempDir(), scaleLogs, scaleSeconds, scaleCols)
	gen := time.Since(t0)
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = ParseInput(p)
	}
	cfg := Config{Percentiles: []float64{0, 50, 90, 99, 99.9, 100}, ByInput: true}
	sink := newScaleSink(ref, []Direction{Read, Write, Trim, All}, cfg.Percentiles, len(inputs))

	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	files0 := openFiles()
	if files0 < 0 {
		t.Skip("no /proc/self/fd to count open files")
	}
	// Go raises the soft limit to the hard one as the process starts; a
	// hard limit of 1024 is the least a system is likely to have.
	limit := min(lim.Cur, 1024)
	if files0+scaleLogs+reservedFiles > int(limit) {
		t.Skipf("%d files open and a hard limit of %d: no room for %d logs", files0, limit, scaleLogs)
	}
	// What a soft limit of 1024 leaves to a merge (Merge would raise a
	// lowered soft limit): room for every log.
	forceFiles = int(limit) - files0 - reservedFiles
	defer func() { forceFiles = 0 }()
	var passes []Pass
	cfg.Progress = func(p Pass) { passes = append(passes, p) }

	// The heap is sampled every millisecond; collecting often keeps the
	// garbage in the samples to a tenth of the live heap.
	runtime.GC()
	heap0, live0 := heapNow()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	gcp := debug.SetGCPercent(10)
	mon := startMonitor()
	t1 := time.Now()
	sum, err := Merge(context.Background(), inputs, cfg, sink)
	took := time.Since(t1)
	mon.finish()
	debug.SetGCPercent(gcp)
	runtime.ReadMemStats(&ms1)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sink.fails {
		t.Error(f)
	}
	if len(passes) != 0 {
		t.Errorf("%d passes with room for %d files", len(passes), forceFiles)
	}

	growth := float64(mon.heapPeak) - float64(heap0)
	// Holding every row: as text, as the Reader's counts, or as the
	// engine's sparse rows (a row, a pointer to it, and 12 bytes per
	// non-zero count), the most compact.
	text := float64(ref.bytes)
	dense := float64(ref.rows) * float64(ref.cols) * 8
	sparse := float64(ref.rows)*float64(unsafe.Sizeof(row{})+8) + float64(ref.nonZero)*12
	t.Logf("%d logs: %d rows of %d columns, %d non-zero counts, %.0f MB; written in %v",
		len(paths), ref.rows, ref.cols, ref.nonZero, text/1e6, gen.Round(time.Millisecond))
	t.Logf("merged into %d quanta in %v (%.0f MB/s); %d files open at most, %d before (limit %d)",
		sum.Quanta, took.Round(time.Millisecond), text/1e6/took.Seconds(), mon.filesPeak, files0, limit)
	t.Logf("heap: %.1f MB before, peak %.1f MB (+%.1f MB, %.0f KB per log), live peak +%.1f MB; %d GCs; %.0f MB allocated",
		float64(heap0)/1e6, float64(mon.heapPeak)/1e6, growth/1e6, growth/1e3/float64(len(paths)),
		(float64(mon.livePeak)-float64(live0))/1e6, ms1.NumGC-ms0.NumGC, float64(ms1.TotalAlloc-ms0.TotalAlloc)/1e6)
	t.Logf("holding every row would take %.0f MB as sparse rows (the peak growth is %.1f%% of it), %.0f MB of text (%.1f%%), %.0f MB of counts (%.1f%%)",
		sparse/1e6, 100*growth/sparse, text/1e6, 100*growth/text, dense/1e6, 100*growth/dense)
	if growth > sparse/4 || growth > text/8 {
		t.Errorf("the heap grew by %.0f MB: not a small fraction of holding every row (%.0f MB sparse, %.0f MB of text)", growth/1e6, sparse/1e6, text/1e6)
	}
	// Every log is open at once (the sampler's own descriptor aside).
	if mon.filesPeak > files0+scaleLogs+1 {
		t.Errorf("%d files open at most, %d before: more than one per log", mon.filesPeak, files0)
	}
	if files := openFiles(); files != files0 {
		t.Errorf("%d files open after the merge, %d before", files, files0)
	}

	// A soft limit too low for the logs: raised to the hard one, then
	// one pass.
	forceFiles = 0
	setOpenFiles(t, uint64(files0+scaleLogs/2))
	sink = newScaleSink(ref, []Direction{Read, Write, Trim, All}, cfg.Percentiles, len(inputs))
	if _, err := Merge(context.Background(), inputs, cfg, sink); err != nil || len(passes) != 0 || len(sink.fails) != 0 {
		t.Errorf("merge with the soft limit below the logs: %v, %d passes, %q", err, len(passes), sink.fails)
	}
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur != lim.Max {
		t.Errorf("soft limit %d, hard %d after the merge: not raised (%v)", lim.Cur, lim.Max, err)
	}

	// Room for fewer files than logs: passes, the same figures, and no
	// file left open.
	const room = 400
	forceFiles = room
	sink = newScaleSink(ref, []Direction{Read, Write, Trim, All}, cfg.Percentiles, len(inputs))
	mon = startMonitor()
	t1 = time.Now()
	_, err = Merge(context.Background(), inputs, cfg, sink)
	took = time.Since(t1)
	mon.finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sink.fails {
		t.Error(f)
	}
	if len(passes) < 2 || mon.filesPeak > files0+room+1 {
		t.Errorf("%d passes, %d files open at most, %d before: want passes and at most %d files", len(passes), mon.filesPeak, files0, room)
	}
	if files := openFiles(); files != files0 {
		t.Errorf("%d files open after the merge in passes, %d before", files, files0)
	}
	t.Logf("room for %d files: %d passes in %v (%.0f MB/s), %d files open at most", room, len(passes), took.Round(time.Millisecond), text/1e6/took.Seconds(), mon.filesPeak)
}
