package histlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"stortest.dev/latency"
)

// ErrUnsupported marks input that fio-histo-log-pctiles.py rejects (or
// fails on), which FioPctiles reports rather than guess at.
var ErrUnsupported = errors.New("not supported by fio-histo-log-pctiles.py")

// FioOptions are the options of fio-histo-log-pctiles.py, with its
// defaults for zero values.
type FioOptions struct {
	FioVersion   int       // --fio-version: 2 or 3 (0 means 3)
	BucketGroups int       // --bucket-groups (0 means 29; fio 2 forces 19 as the tool does)
	Percentiles  []float64 // --percentiles, each 0 to 100, in the order given (nil means 0 50 95 99 100)
	TimeQuantum  int       // --time-quantum in seconds (0 means 1)
	LogHistMsec  int       // --log-hist-msec (0 means not given)
	OutputUnit   string    // --output-unit: "usec" (default) or "msec"
	Workers      int       // inputs read in parallel (0 means GOMAXPROCS)
	// TempDir and Progress are Config's, for more logs than may be open
	// at once.
	TempDir  string
	Progress func(Pass)
}

// DefaultFioPercentiles is the Python tool's default percentile list.
var DefaultFioPercentiles = []float64{0, 50, 95, 99, 100}

func (o *FioOptions) normalize() error {
	if o.FioVersion == 0 {
		o.FioVersion = 3
	}
	if o.FioVersion != 2 && o.FioVersion != 3 {
		return fmt.Errorf("histlog: fio version %d: want 2 or 3", o.FioVersion)
	}
	if o.BucketGroups == 0 {
		o.BucketGroups = latency.FioGroups
	}
	if o.FioVersion == 2 {
		o.BucketGroups = fio2Groups
	}
	if _, err := latency.NewLayout(o.BucketGroups); err != nil {
		return fmt.Errorf("histlog: bucket groups: %w", err)
	}
	if o.Percentiles == nil {
		o.Percentiles = DefaultFioPercentiles
	}
	if len(o.Percentiles) == 0 {
		return errors.New("histlog: no percentiles")
	}
	for _, p := range o.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("histlog: percentile %v: want 0 to 100", p)
		}
	}
	if o.TimeQuantum == 0 {
		o.TimeQuantum = 1
	}
	if o.TimeQuantum < 0 || o.TimeQuantum > 1e9 {
		return fmt.Errorf("histlog: time quantum %d s: want a positive number of seconds, at most 10^9", o.TimeQuantum)
	}
	if o.LogHistMsec < 0 {
		return fmt.Errorf("histlog: log_hist_msec %d: want a positive number", o.LogHistMsec)
	}
	switch o.OutputUnit {
	case "":
		o.OutputUnit = "usec"
	case "usec", "msec":
	default:
		return fmt.Errorf("histlog: output unit %q: want usec or msec", o.OutputUnit)
	}
	return nil
}

// FioPctiles writes what fio-histo-log-pctiles.py (fio 3.33) prints for
// the same logs and options: its parameter lines, its header and one row
// per time quantum, with the same numbers to the bit (Python's float
// formatting included). Like the tool, it sums reads and writes, aligns
// the logs to quanta from the latest start to the earliest end, gives a
// row at time t the span up to the next row of its direction, and drops
// a row repeating the time and direction of the row before.
//
// Unlike the tool it streams: rows are written as quanta complete, so an
// error in a log's later rows comes after some output. Where the tool
// fails (trim rows, coarse logs, block sizes over 16 MiB, a division by
// zero on zero-length spans, its lookahead assertion, a row before the
// start beyond its quanta), FioPctiles returns an error wrapping
// ErrUnsupported or a *ParseError. Rows out of time order across
// directions by more than three logging intervals are refused too (the
// tool takes them; fio writes rows in time order).
func FioPctiles(ctx context.Context, w io.Writer, inputs []Input, opt FioOptions) (err error) {
	if err := opt.normalize(); err != nil {
		return err
	}
	if len(inputs) == 0 {
		return errors.New("histlog: no input logs")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	defer func() {
		if ferr := bw.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("histlog: write: %w", ferr)
		}
	}()
	ps := opt.Percentiles
	fmt.Fprintf(bw, "fio version = %d\n", opt.FioVersion)
	fmt.Fprintf(bw, "bucket groups = %d\n", opt.BucketGroups)
	fmt.Fprintf(bw, "bucket bits = %d\n", latency.BucketBits)
	fmt.Fprintf(bw, "time quantum = %d sec\n", opt.TimeQuantum)
	list := make([]string, len(ps))
	for i, p := range ps {
		list[i] = pyRepr(p)
	}
	fmt.Fprintf(bw, "percentiles = %s\n", strings.Join(list, ","))
	fmt.Fprintf(bw, "buckets per group = %d\n", latency.BucketsPerGroup)
	fmt.Fprintf(bw, "buckets per interval = %d \n", opt.BucketGroups*latency.BucketsPerGroup)
	if opt.LogHistMsec != 0 {
		fmt.Fprintf(bw, "log_hist_msec = %d\n", opt.LogHistMsec)
	}
	fmt.Fprintf(bw, "output unit = %s\n", opt.OutputUnit)

	// The tool keys its logs by path: a path given twice counts once.
	var uniq []Input
	seen := map[string]bool{}
	for _, in := range inputs {
		if !seen[in.Path] {
			seen[in.Path] = true
			uniq = append(uniq, in)
		}
	}
	ropt := ReaderOptions{FioVersion: opt.FioVersion, Groups: opt.BucketGroups}
	e := &engine{mode: modeFio, workers: defaultWorkers(opt.Workers), Q: int64(opt.TimeQuantum) * 1000}
	budget := currentFileBudget()
	heads, err := readHeads(ctx, uniq, ropt, true, budget.headWorkers(e.workers))
	if err != nil {
		return err
	}
	start, end := int64(0), int64(1e18)
	maxInterval := int64(opt.LogHistMsec)
	for i, h := range heads {
		if h.format.Coarseness != 0 {
			return fmt.Errorf("histlog: %s: %d buckets per interval but %d expected: %w",
				uniq[i].Path, h.format.Columns(), opt.BucketGroups*latency.BucketsPerGroup, ErrUnsupported)
		}
		s, err := h.fioStart(int64(opt.LogHistMsec))
		if err != nil {
			return fmt.Errorf("histlog: %s: %w", uniq[i].Path, err)
		}
		start, end = max(start, s), min(end, h.last)
		maxInterval = max(maxInterval, h.interval())
	}
	if start >= end {
		return fmt.Errorf("histlog: no time interval when all threads' logs overlapped (start %d ms, end %d ms)", start, end)
	}
	if start > 0 {
		sec := math.Floor(float64(start) / 1000.0)
		fmt.Fprintf(bw, "all threads running as of unix epoch time %d = %s\n", int64(sec),
			time.Unix(int64(sec), 0).Format("Mon Jan _2 15:04:05 2006"))
	}
	// get_time_intervals: whole seconds, rounded down, then up to a
	// multiple of the quantum.
	tq := int64(opt.TimeQuantum)
	minSec, maxSec := start/1000, end/1000
	n := (maxSec - minSec + tq) / tq
	if n > maxQuanta {
		return errTooManyQuanta(start, end)
	}
	e.S, e.N, e.endMs = start, int(n), (minSec+n*tq)*1000
	e.format = heads[0].format
	e.cols = e.format.Columns()
	e.lag = 3 * max(maxInterval, 1000)
	e.chooseWindow(len(uniq), 1)
	p := &passes{tmpl: e, inputs: uniq, ropt: ropt, prepare: func(*source, int) {}, dirs: []Direction{0},
		tempDir: opt.TempDir, budget: budget, progress: opt.Progress}
	return p.run(ctx, func(e *engine, _ []*sideReader) error { return e.reportFio(ctx, bw, opt) })
}

// reportFio writes FioPctiles's header and rows as the quanta complete.
func (e *engine) reportFio(ctx context.Context, bw *bufio.Writer, opt FioOptions) error {
	ps := opt.Percentiles
	tq := int64(opt.TimeQuantum)
	unit := opt.OutputUnit
	fmt.Fprintf(bw, "time (millisec), percentiles in increasing order with values in %s\n", unit)
	hdr := []byte("msec-since-start, samples, ")
	for _, p := range ps {
		switch p {
		case 0:
			hdr = append(hdr, "min"...)
		case 100:
			hdr = append(hdr, "max"...)
		case 50:
			hdr = append(hdr, "median"...)
		default:
			hdr = fmt.Appendf(hdr, "%3.1f", p)
		}
		hdr = append(hdr, ", "...)
	}
	bw.Write(append(hdr, '\n'))

	rmin, rmax := pyBucketRanges(opt.BucketGroups, opt.FioVersion)
	divisor := 1.0
	if unit == "msec" {
		divisor = 1000.0
	}
	// The tool prints its results sorted by percentile, one per distinct
	// value; the last computed wins for repeats.
	keys := slices.Clone(ps)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	pick := make([]int, len(keys))
	for k, key := range keys {
		for i, p := range ps {
			if p == key {
				pick[k] = i
			}
		}
	}
	tot := make([]float64, e.cols)
	out := make([]float64, len(ps))
	var line []byte
	return e.run(ctx, func(w0, w1 int) error {
		for q := w0; q < w1; q++ {
			lo, hi := e.sumFio(tot, q-w0)
			samples := 0.0
			for c := lo; c <= hi; c++ {
				samples += tot[c]
			}
			line = fmt.Appendf(line[:0], "%8d, %8d, ", int64(q)*tq*1000, int64(samples))
			if lo <= hi && pyPercentiles(tot, lo, hi, ps, rmin, rmax, out) {
				for k, i := range pick {
					if k > 0 {
						line = append(line, ", "...)
					}
					line = appendPyRepr(line, out[i]/divisor)
				}
			} else {
				for range ps {
					line = append(line, ", "...)
				}
			}
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return fmt.Errorf("histlog: write: %w", err)
			}
			if lo <= hi {
				clear(tot[lo : hi+1])
			}
		}
		return nil
	})
}

// sumFio adds every input's window quantum q into tot in input order, as
// the tool adds its per-log histograms, and returns the touched range.
func (e *engine) sumFio(tot []float64, q int) (lo, hi int) {
	lo, hi = math.MaxInt, -1
	if e.part != nil {
		lo, hi = addQuantum(tot, e.part.win[0], q, lo, hi)
	}
	for _, s := range e.srcs {
		lo, hi = addQuantum(tot, s.win[0], q, lo, hi)
	}
	return lo, hi
}

// pyBucketRanges computes the tool's time_ranges: bucket i covers
// [rmin[i], rmax[i]) microseconds (fio 3's nanosecond bounds / 1000; fio
// 2's bounds are microseconds already).
func pyBucketRanges(groups, fioVersion int) (rmin, rmax []float64) {
	n := groups * latency.BucketsPerGroup
	rmin, rmax = make([]float64, n), make([]float64, n)
	var base, width uint64 = 0, 1
	i := 0
	for g := range groups {
		for range latency.BucketsPerGroup {
			lo := float64(base)
			hi := lo + float64(width)
			if fioVersion == 3 {
				lo /= 1000
				hi /= 1000
			}
			rmin[i], rmax[i] = lo, hi
			base += width
			i++
		}
		if g != 0 {
			width *= 2
		}
	}
	return rmin, rmax
}

// fioStart is the tool's start of a log: 0 for times relative to the job
// start (first row before 10^6 ms), else the first row's time less
// log_hist_msec or, without it, less the step to the second row (after
// dropping repeated rows).
func (h *head) fioStart(logHistMsec int64) (int64, error) {
	t0 := h.times[0]
	if t0 < epochMs {
		return 0, nil
	}
	if logHistMsec != 0 {
		return t0 - logHistMsec, nil
	}
	for i := 1; i < len(h.times); i++ {
		if h.times[i] != h.times[i-1] || h.dirs[i] != h.dirs[i-1] {
			return t0 - (h.times[i] - t0), nil
		}
	}
	return 0, fmt.Errorf("no way to estimate the test start time from one row: give log_hist_msec: %w", ErrUnsupported)
}

// ingestFio takes a row under the tool's rules.
func (e *engine) ingestFio(s *source, rec *Record, t int64) error {
	if rec.Dir == Trim {
		return &ParseError{File: s.in.Path, Line: rec.Line, Column: 2,
			Err: fmt.Errorf("%w 2 (trim): %w", ErrDirection, ErrUnsupported)}
	}
	if rec.BlockSize > 1<<24 {
		return &ParseError{File: s.in.Path, Line: rec.Line, Column: 3,
			Err: fmt.Errorf("block size %d above 16 MiB: %w", rec.BlockSize, ErrUnsupported)}
	}
	if s.hasPrev && t == s.prevT && rec.Dir == s.prevDir {
		return nil
	}
	s.hasPrev, s.prevT, s.prevDir = true, t, rec.Dir
	for _, u := range s.pending {
		if u.known {
			continue
		}
		if u.dir == rec.Dir {
			u.b, u.known = t, true
			continue
		}
		if u.follow++; u.follow >= 3 {
			return &ParseError{File: s.in.Path, Line: u.line,
				Err: fmt.Errorf("no %s row among the next 3 rows (the tool's assertion): %w", u.dir, ErrUnsupported)}
		}
	}
	r := s.newRow(rec, t)
	r.a = t
	s.pending = append(s.pending, r)
	return nil
}

// spreadFio is align_histo_log's loop for one row over the quanta of
// window [w0, w1): the row covers [t, b) and each quantum it overlaps
// gets weight = overlap / (b - t) of its counts. Quanta before the start
// have negative indices, which Python lists count from the end.
func (e *engine) spreadFio(s *source, r *row, w0, w1 int) (bool, error) {
	if !r.started {
		r.started = true
		r.qi = floorDiv(r.t-e.S, e.Q)
		for ; r.qi < 0; r.qi++ {
			qs := e.S + int64(r.qi)*e.Q
			if qs >= r.b {
				return true, nil
			}
			target := r.qi + e.N
			if target < 0 {
				return false, &ParseError{File: s.in.Path, Line: r.line, Column: 1,
					Err: fmt.Errorf("row at %d ms is %d quanta before the common start (the tool's index error): %w", r.t, -r.qi, ErrUnsupported)}
			}
			wt, err := e.weightFio(s, r, qs)
			if err != nil {
				return false, err
			}
			switch {
			case target >= w0 && target < w1:
				s.window(0, e).add(target-w0, wt, r)
			case target >= w1:
				s.addWrap(target, wt, r, e.cols)
			default:
				return false, &ParseError{File: s.in.Path, Line: r.line, Column: 1,
					Err: fmt.Errorf("row at %d ms arrives after its quanta were written (rows out of time order)", r.t)}
			}
		}
	}
	for {
		qs := e.S + int64(r.qi)*e.Q
		if qs >= r.b || r.qi >= e.N {
			return true, nil
		}
		if r.qi >= w1 {
			return false, nil
		}
		if r.qi < w0 {
			return false, &ParseError{File: s.in.Path, Line: r.line, Column: 1,
				Err: fmt.Errorf("row at %d ms arrives after its quanta were written (rows out of time order)", r.t)}
		}
		wt, err := e.weightFio(s, r, qs)
		if err != nil {
			return false, err
		}
		s.window(0, e).add(r.qi-w0, wt, r)
		r.qi++
	}
}

func (e *engine) weightFio(s *source, r *row, qs int64) (float64, error) {
	if r.b == r.t {
		return 0, &ParseError{File: s.in.Path, Line: r.line, Column: 1,
			Err: fmt.Errorf("the next %s row has the same time %d ms (the tool divides by zero): %w", r.dir, r.t, ErrUnsupported)}
	}
	lo, hi := max(qs, r.t), min(qs+e.Q, r.b)
	return float64(hi-lo) / float64(r.b-r.t), nil
}

func (s *source) addWrap(q int, wt float64, r *row, cols int) {
	if len(r.idx) == 0 {
		return
	}
	if s.wrap == nil {
		s.wrap = map[int]*wrapAcc{}
	}
	acc := s.wrap[q]
	if acc == nil {
		acc = &wrapAcc{data: make([]float64, cols), lo: math.MaxInt32, hi: -1}
		s.wrap[q] = acc
	}
	for k, col := range r.idx {
		acc.data[col] += float64(wt * r.cnt[k])
	}
	acc.lo = min(acc.lo, r.idx[0])
	acc.hi = max(acc.hi, r.idx[len(r.idx)-1])
}

// open opens inputs [lo, hi) for a merge pass; shifts maps each input's
// columns to the merged ones (nil: none).
func (e *engine) open(inputs []Input, lo, hi int, ropt ReaderOptions, shifts []int) error {
	e.srcs = make([]*source, hi-lo)
	for i := range e.srcs {
		e.srcs[i] = &source{idx: lo + i, in: inputs[lo+i]}
	}
	return e.parallel(context.Background(), func(s *source) error {
		rc, err := s.in.open()
		if err != nil {
			return err
		}
		s.rc = rc
		s.rd = newReaderSize(rc, s.in.Path, ropt, readBufFor(hi-lo))
		if shifts != nil {
			s.shift = shifts[s.idx]
		}
		return nil
	})
}
