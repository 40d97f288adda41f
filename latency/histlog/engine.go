package histlog

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// The engine streams every input once, in rounds over windows of W
// quanta: each round, a bounded pool of workers reads every input up to
// the end of the window (plus a lag of three logging intervals, for rows
// slightly out of time order across directions), spreading each row over
// the window's quanta as it is read, into per-input window buffers; then
// the caller merges the buffers, input by input in command-line order,
// and reports the window's quanta. Memory is bounded by the
// window buffers (inputs x directions x W x columns x 8 bytes, W chosen
// to fit windowBudget but at least 1), each input's read buffer
// (readBufFor), its current row (columns x 8 bytes) and the rows it
// read ahead (sparse, up to the lag), not by the length of the logs:
// about 90 KB per input of fio's 1856 columns once W is 1, 90 MB for a
// thousand inputs (TestMergeThousandLogs measures it); the order of the
// floating-point additions never depends on scheduling, so outputs are
// reproducible to the bit.

// mode selects the alignment rules.
type mode uint8

const (
	// modeNative: a row covers the interval that ended at its time.
	modeNative mode = iota
	// modeFio: fio-histo-log-pctiles.py's rules, to the bit.
	modeFio
)

// epochMs separates logs of times relative to the job start from logs of
// unix-epoch times (log_unix_epoch=1): the Python tool's threshold.
const epochMs = 1000000

// windowBudget bounds the per-input window buffers of a round (bytes).
const windowBudget = 16 << 20

// readBudget bounds the read buffers of the merge pass, which holds
// every input open: past readBudget/readBufSize inputs, each gets a
// smaller first buffer, down to minReadBuf (a row of fio's 1856 counts
// takes 5.5 to 8 KB; a buffer grows for longer rows). Without it a
// thousand inputs would hold 64 MiB of read buffers.
const (
	readBudget = 16 << 20
	minReadBuf = 16 << 10
)

// readBufFor returns the first read buffer's size for each of n inputs.
func readBufFor(n int) int {
	return min(max(readBudget/max(n, 1), minReadBuf), readBufSize)
}

// maxWindow caps the quanta per round; more only delays output.
const maxWindow = 64

// headRows is how many first rows of each input are read ahead to learn
// its format, start and logging interval.
const headRows = 16

// maxQuanta guards against grids no output could hold (logs of unrelated
// epochs): 10^8 quanta is three years of seconds.
const maxQuanta = 100_000_000

// row is one log row being spread over quanta; its counts are kept
// sparse (non-zero columns only), already mapped to merged columns.
type row struct {
	line    int
	t       int64 // ms
	dir     Direction
	a, b    int64 // covered span [a, b) in ms; a == b puts all counts in one quantum
	known   bool  // b is known (modeFio: the next row of the direction was read)
	follow  int   // modeFio: rows read after this one while b was unknown
	started bool
	qi      int // next quantum to receive counts
	idx     []int32
	cnt     []float64
	total   float64
}

// window holds one input's counts for the quanta of a round.
type window struct {
	cols    int
	data    []float64 // quanta x cols
	lo, hi  []int32   // touched column range per quantum; lo > hi when untouched
	samples []float64 // completions per quantum
}

func newWindow(quanta, cols int) *window {
	w := &window{cols: cols, data: make([]float64, quanta*cols),
		lo: make([]int32, quanta), hi: make([]int32, quanta), samples: make([]float64, quanta)}
	w.reset()
	return w
}

func (w *window) reset() {
	for q := range w.lo {
		if w.lo[q] <= w.hi[q] {
			clear(w.data[q*w.cols+int(w.lo[q]) : q*w.cols+int(w.hi[q])+1])
		}
		w.lo[q], w.hi[q] = math.MaxInt32, -1
		w.samples[q] = 0
	}
}

// add adds weight x the row's counts to quantum q of the window. The
// explicit float64 conversion keeps the product rounded before the sum
// (no fused multiply-add), as Python computes it.
func (w *window) add(q int, weight float64, r *row) {
	if len(r.idx) == 0 {
		return
	}
	base := w.data[q*w.cols : (q+1)*w.cols]
	for k, col := range r.idx {
		base[col] += float64(weight * r.cnt[k])
	}
	w.lo[q] = min(w.lo[q], r.idx[0])
	w.hi[q] = max(w.hi[q], r.idx[len(r.idx)-1])
	w.samples[q] += float64(weight * r.total)
}

// wrapAcc holds, in modeFio, the counts of rows before the common start:
// the Python tool indexes its quanta with negative numbers for them, and
// Python lists count those from the end.
type wrapAcc struct {
	data   []float64
	lo, hi int32
}

// source is one input's state across rounds.
type source struct {
	idx   int
	in    Input
	rc    io.ReadCloser
	rd    *Reader
	shift int // merged column = column >> shift
	// carry holds rows spread over earlier windows that reach further,
	// pending rows read but not spread yet (modeFio: a row waits for the
	// next row of its direction, and the rows after it wait with it, so
	// sums keep the file's order). Both are in file order, carry first.
	carry, next []*row
	pending     []*row
	spare       []*row
	eof         bool
	lastT       int64 // the latest row time read
	// modeFio: the tool drops a row repeating the time and direction of
	// the row before.
	hasPrev bool
	prevT   int64
	prevDir Direction
	// modeNative
	dirSeen  [NumDirections]bool
	dirT     [NumDirections]int64
	interval int64 // ms, 0 when unknown
	start    int64 // ms: where the log's span starts (it ends at lastT)
	late     int
	win      [NumDirections]*window
	wrap     map[int]*wrapAcc
}

type engine struct {
	mode    mode
	srcs    []*source
	format  Format // of the merged columns
	cols    int
	S, Q    int64 // grid start and quantum, ms
	N       int   // quanta (modeNative: maxQuanta until every row is read)
	endMs   int64 // modeFio: where rows without a successor end
	W       int   // quanta per round
	lag     int64 // ms read past a window's end
	workers int
	// part holds the sums of the passes before this one in a merge in
	// passes (passes.go); sumNative and sumFio add it first.
	part *partial
}

func (e *engine) close() {
	for _, s := range e.srcs {
		if s.rc != nil {
			s.rc.Close()
			s.rc = nil
		}
	}
	e.part.close()
}

// parallel runs f on every source with the engine's workers and returns
// the error of the first source (in input order) that failed.
func (e *engine) parallel(ctx context.Context, f func(*source) error) error {
	errs := make([]error, len(e.srcs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.workers, len(e.srcs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(e.srcs) || ctx.Err() != nil {
					return
				}
				errs[i] = f(e.srcs[i])
			}
		})
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return err
	}
	return ctx.Err()
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// forceWindow, when positive, replaces the chosen window (tests check
// that the output does not depend on it).
var forceWindow int

// chooseWindow sets W from the memory budget, for inputs inputs.
func (e *engine) chooseWindow(inputs, buffersPerInput int) {
	per := inputs * max(buffersPerInput, 1) * e.cols * 8
	e.W = min(max(windowBudget/max(per, 1), 1), maxWindow, e.N)
	if forceWindow > 0 {
		e.W = min(forceWindow, e.N)
	}
}

// run processes every window in order, calling emit after each round
// with the window's quanta [w0, w1), then reads the inputs to their ends
// so errors anywhere in them are reported.
func (e *engine) run(ctx context.Context, emit func(w0, w1 int) error) error {
	for w0 := 0; w0 < e.N; w0 += e.W {
		w1 := min(w0+e.W, e.N)
		if e.part != nil {
			if err := e.part.fill(w0, w1); err != nil {
				return err
			}
		}
		if err := e.parallel(ctx, func(s *source) error { return e.fill(s, w0, w1) }); err != nil {
			return err
		}
		if e.mode == modeNative && e.N == maxQuanta && e.allRead() {
			// Every row is known: the grid ends with the latest one.
			last := e.lastTime()
			n := max((last-e.S+e.Q-1)/e.Q, 1)
			if n >= maxQuanta {
				return errTooManyQuanta(e.S, last)
			}
			e.N = int(n)
			w1 = min(w1, e.N)
		}
		if err := emit(w0, w1); err != nil {
			return err
		}
	}
	if !e.allRead() && e.mode == modeNative {
		return errTooManyQuanta(e.S, e.srcs[0].lastT)
	}
	return e.parallel(ctx, func(s *source) error {
		for !s.eof {
			if err := e.readRow(s); err != nil {
				return err
			}
			// Rows past the last quantum count for nothing; only rows still
			// waiting for their end are kept, for the tool's checks.
			keep := s.pending[:0]
			for _, r := range s.pending {
				if r.known {
					s.spare = append(s.spare, r)
				} else {
					keep = append(keep, r)
				}
			}
			clear(s.pending[len(keep):])
			s.pending = keep
		}
		return nil
	})
}

// fill reads s up to the end of window [w0, w1) and spreads its rows.
func (e *engine) fill(s *source, w0, w1 int) error {
	for _, w := range s.win {
		if w != nil {
			w.reset()
		}
	}
	if len(s.wrap) > 0 {
		for q := w0; q < w1; q++ {
			if acc := s.wrap[q]; acc != nil {
				w := s.window(0, e)
				off := q - w0
				copy(w.data[off*w.cols+int(acc.lo):], acc.data[acc.lo:acc.hi+1])
				w.lo[off], w.hi[off] = acc.lo, acc.hi
				delete(s.wrap, q)
			}
		}
	}
	old := s.carry
	s.carry = s.next[:0]
	for _, r := range old {
		if err := e.spread(s, r, w0, w1); err != nil {
			return err
		}
	}
	clear(old)
	s.next = old[:0]
	if err := e.spreadPending(s, w0, w1); err != nil {
		return err
	}
	wEnd := e.S + int64(w1)*e.Q
	limit := wEnd + e.lag
	for !s.eof && (s.lastT < limit || s.unresolvedBefore(wEnd)) {
		if err := e.readRow(s); err != nil {
			return err
		}
		if err := e.spreadPending(s, w0, w1); err != nil {
			return err
		}
	}
	return nil
}

// spreadPending spreads the pending rows whose end is known, in order,
// up to the first that waits for its end.
func (e *engine) spreadPending(s *source, w0, w1 int) error {
	n := 0
	for _, r := range s.pending {
		if !r.known {
			break
		}
		if err := e.spread(s, r, w0, w1); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		k := copy(s.pending, s.pending[n:])
		clear(s.pending[k:])
		s.pending = s.pending[:k]
	}
	return nil
}

// spread spreads r over window [w0, w1); r then goes to the carry list
// if it reaches past the window, else back to the spare rows.
func (e *engine) spread(s *source, r *row, w0, w1 int) error {
	var done bool
	var err error
	if e.mode == modeFio {
		done, err = e.spreadFio(s, r, w0, w1)
	} else {
		done = e.spreadNative(s, r, w0, w1)
	}
	switch {
	case err != nil:
		return err
	case done:
		s.spare = append(s.spare, r)
	default:
		s.carry = append(s.carry, r)
	}
	return nil
}

func (s *source) unresolvedBefore(t int64) bool {
	for _, r := range s.pending {
		if !r.known && r.t < t {
			return true
		}
	}
	return false
}

func errTooManyQuanta(from, to int64) error {
	return fmt.Errorf("histlog: logs from %d to %d ms: more than %d quanta", from, to, maxQuanta)
}

// lastTime is the latest row time of the logs read (all of them once
// allRead), the partial sums' included.
func (e *engine) lastTime() int64 {
	last := int64(math.MinInt64)
	if e.part != nil {
		last = e.part.lastT
	}
	for _, s := range e.srcs {
		last = max(last, s.lastT)
	}
	return last
}

// cover counts the logs whose span overlaps quantum q of the window
// starting at quantum w0, those of the partial sums included. A source
// not read to its end has rows past the window (fill reads ahead), so
// the count is the same whenever the window ends.
func (e *engine) cover(q, w0 int) int {
	qs := e.S + int64(q)*e.Q
	n := 0
	if e.part != nil {
		n = int(e.part.cover[q-w0])
	}
	for _, s := range e.srcs {
		if s.start < qs+e.Q && (!s.eof || s.lastT > qs) {
			n++
		}
	}
	return n
}

func (e *engine) allRead() bool {
	for _, s := range e.srcs {
		if !s.eof {
			return false
		}
	}
	return true
}

// window returns s's window for direction d (modeFio sums every
// direction into window 0), allocating it on first use.
func (s *source) window(d Direction, e *engine) *window {
	if e.mode == modeFio {
		d = 0
	}
	if s.win[d] == nil {
		s.win[d] = newWindow(e.W, e.cols)
	}
	return s.win[d]
}

func (e *engine) readRow(s *source) error {
	if !s.rd.Scan() {
		if err := s.rd.Err(); err != nil {
			return err
		}
		s.eof = true
		for _, r := range s.pending {
			if !r.known { // the tool: no later row of the direction
				r.b, r.known = e.endMs, true
			}
		}
		return nil
	}
	rec := s.rd.Record()
	if rec.Time > math.MaxInt64/4 {
		return &ParseError{File: s.in.Path, Line: rec.Line, Column: 1, Err: fmt.Errorf("%w: time %d ms is out of range", ErrSyntax, rec.Time)}
	}
	t := int64(rec.Time)
	s.lastT = max(s.lastT, t)
	if e.mode == modeFio {
		return e.ingestFio(s, rec, t)
	}
	r := s.newRow(rec, t)
	d := rec.Dir
	var a int64
	switch {
	case s.dirSeen[d]:
		a = s.dirT[d]
		// A direction idle for a while: its next row holds the few
		// completions around the gap; place them in one interval.
		if s.interval > 0 && t-a > 2*s.interval {
			a = t - s.interval
		}
	case s.interval > 0:
		a = t - s.interval
	case t < epochMs:
		a = 0 // from the start of the job
	default:
		a = t
	}
	s.dirSeen[d], s.dirT[d] = true, t
	r.a, r.b, r.known = min(max(a, e.S), t), t, true
	s.pending = append(s.pending, r)
	return nil
}

// newRow returns a row holding rec's non-zero counts in merged columns.
func (s *source) newRow(rec *Record, t int64) *row {
	var r *row
	if n := len(s.spare); n > 0 {
		r, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		r = &row{}
	}
	*r = row{line: rec.Line, t: t, dir: rec.Dir, idx: r.idx[:0], cnt: r.cnt[:0]}
	var total float64
	for j := rec.nzLo; j <= rec.nzHi; j++ {
		c := rec.Counts[j]
		if c == 0 {
			continue
		}
		col := int32(j >> s.shift)
		f := float64(c)
		if n := len(r.idx); n > 0 && r.idx[n-1] == col {
			r.cnt[n-1] += f
		} else {
			r.idx = append(r.idx, col)
			r.cnt = append(r.cnt, f)
		}
		total += f
	}
	r.total = total
	return r
}

// spreadNative adds r's counts to the quanta of [w0, w1) that its span
// overlaps, in proportion to the overlap; it reports whether r is done.
func (e *engine) spreadNative(s *source, r *row, w0, w1 int) bool {
	if !r.started {
		r.started = true
		if r.a == r.b {
			r.qi = max(floorDiv(r.b-1-e.S, e.Q), 0)
		} else {
			r.qi = floorDiv(r.a-e.S, e.Q)
		}
		if r.qi < w0 {
			// Rows out of order by more than the lag: what belonged to
			// quanta already reported goes to the first one still open.
			s.late++
			r.a = max(r.a, e.S+int64(w0)*e.Q)
			if r.a >= r.b {
				r.a = r.b
			}
			r.qi = w0
		}
	}
	w := s.window(r.dir, e)
	if r.a == r.b {
		if r.qi >= w1 {
			return false
		}
		w.add(r.qi-w0, 1, r)
		return true
	}
	span := float64(r.b - r.a)
	for {
		qs := e.S + int64(r.qi)*e.Q
		if qs >= r.b || r.qi >= e.N {
			return true
		}
		if r.qi >= w1 {
			return false
		}
		lo, hi := max(qs, r.a), min(qs+e.Q, r.b)
		w.add(r.qi-w0, float64(hi-lo)/span, r)
		r.qi++
	}
}

func floorDiv(a, b int64) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return int(q)
}
