package histlog

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// ErrFormat is returned when logs cannot be merged column by column
// (fio 2's microsecond buckets with nanosecond ones).
var ErrFormat = errors.New("histlog: logs of incompatible formats")

// ErrTimeBase is returned when some logs count time from their job's
// start and others from the unix epoch (log_unix_epoch).
var ErrTimeBase = errors.New("histlog: logs mix job-relative and unix-epoch times")

// DefaultPercentiles are Merge's percentiles when Config gives none.
var DefaultPercentiles = []float64{50, 95, 99, 99.9}

// Config configures Merge.
type Config struct {
	// Quantum is the time resolution of the output, a whole number of
	// milliseconds (default 1 s).
	Quantum time.Duration
	// Percentiles, each 0 to 100, are reported in the order given
	// (default DefaultPercentiles).
	Percentiles []float64
	// Directions are the series reported for each quantum, in order
	// (default Read, Write, Trim, All).
	Directions []Direction
	// LogHistMsec is the logs' interval (fio's log_hist_msec) in ms; 0
	// infers it per log from the step between its first rows.
	LogHistMsec int64
	// Reader tells how to read the columns when their count is ambiguous.
	Reader ReaderOptions
	// ByInput reports each input's completions in every row.
	ByInput bool
	// Workers bounds the inputs read in parallel (0 means GOMAXPROCS).
	Workers int
	// TempDir holds the intermediate files of a merge in passes (default
	// os.TempDir()); they are removed before Merge returns.
	TempDir string
	// Progress, when set, is called before each pass of a merge of more
	// logs than may be open at once (not for a merge in one pass).
	Progress func(Pass)
}

// Summary describes a merge: the time grid, the merged format, the
// inputs. Late counts rows that came more than the read-ahead lag out of
// time order: what they held for quanta already reported went to the
// first quantum still open.
type Summary struct {
	Start       int64 // ms on the logs' clock: 0 is the job start, or a unix time in ms
	Quantum     int64 // ms
	Quanta      int   // known when Sink.End is called
	Format      Format
	Labels      []string
	Percentiles []float64
	Directions  []Direction
	ByInput     bool
	Late        int // known when Sink.End is called
}

// Row is one series (a direction or All) over one quantum. Latencies are
// in nanoseconds and NaN when the quantum has no completions.
type Row struct {
	Time    int64 // ms, start of the quantum on the logs' clock
	Dir     Direction
	Inputs  int     // logs whose time span overlaps the quantum
	Samples float64 // completions; fractional where a row straddles quanta
	// Min and Max are the low bound of the lowest non-empty bucket and the
	// high bound of the highest.
	Min, Max float64
	// Percentiles follow Config.Percentiles: the rank p/100*Samples
	// interpolated linearly inside the bucket that holds it.
	Percentiles []float64
	// ByInput holds each input's completions (Config.ByInput).
	ByInput []float64
}

// Sink receives a merge's output; the Row passed to Row is reused.
type Sink interface {
	Begin(*Summary) error
	Row(*Row) error
	End(*Summary) error
}

// Merge aligns histogram logs to time quanta and reports, per quantum
// and series, the completions, min, percentiles and max of the summed
// histograms. Logs may come from many jobs and hosts and may be of any
// coarseness and group count (fio 2 logs merge only with fio 2 logs):
// columns are summed at the coarsest input's resolution.
//
// A row at time t holds the completions since the previous row of its
// direction (that is how fio and Writer log them), so it covers
// [previous, t), spread over the quanta it overlaps in proportion to the
// overlap. A log's first row of a direction covers the logging interval
// before it (Config.LogHistMsec or the log's own step); after an idle
// direction (a step over twice the interval) a row covers the interval
// before it. The grid starts at the earliest log start (0 for logs of
// job-relative times) and ends at the latest last row: the union of the
// logs' spans; Row.Inputs says how many logs cover each quantum.
//
// Rows may be out of time order across directions (never within one) by
// up to a logging interval; later ones are counted in Summary.Late.
//
// Merge reads every input once (its first rows twice), in parallel, in
// memory bounded by the number of inputs (see engine.go), and calls sink
// as quanta complete. With more inputs than may be open at once, it
// merges in passes (see Pass), to the same output.
func Merge(ctx context.Context, inputs []Input, cfg Config, sink Sink) (*Summary, error) {
	if err := cfg.normalize(len(inputs)); err != nil {
		return nil, err
	}
	budget := currentFileBudget()
	e := &engine{mode: modeNative, workers: defaultWorkers(cfg.Workers), Q: cfg.Quantum.Milliseconds()}
	heads, err := readHeads(ctx, inputs, cfg.Reader, false, budget.headWorkers(e.workers))
	if err != nil {
		return nil, err
	}

	// Merged format: the most groups and the coarsest columns.
	f := heads[0].format
	for i, h := range heads {
		if h.format.Unit != f.Unit {
			return nil, fmt.Errorf("%w: %s is a fio %d log, %s a fio %d log",
				ErrFormat, inputs[0].Path, f.FioVersion(), inputs[i].Path, h.format.FioVersion())
		}
		if h.format.Layout.Groups() > f.Layout.Groups() {
			f.Layout = h.format.Layout
		}
		f.Coarseness = max(f.Coarseness, h.format.Coarseness)
	}
	shifts := make([]int, len(heads))
	dirs := 0
	starts, intervals := make([]int64, len(heads)), make([]int64, len(heads))
	var lagBase int64 = 1000
	relative := heads[0].times[0] < epochMs
	for i, h := range heads {
		shifts[i] = f.Coarseness - h.format.Coarseness
		var seen [NumDirections]bool
		n := 0
		for _, d := range h.dirs {
			if !seen[d] {
				seen[d] = true
				n++
			}
		}
		dirs = max(dirs, n)
		iv := cfg.LogHistMsec
		if iv == 0 {
			iv = h.interval()
		}
		intervals[i] = iv
		lagBase = max(lagBase, iv)
		t0 := h.times[0]
		if (t0 < epochMs) != relative {
			return nil, fmt.Errorf("%w: %s starts at %d ms, %s at %d ms", ErrTimeBase, inputs[0].Path, heads[0].times[0], inputs[i].Path, t0)
		}
		if !relative {
			starts[i] = t0 - iv
		}
	}
	// The grid ends with the latest row of any log, known once all are
	// read (engine.run).
	e.S, e.format, e.cols, e.N = slices.Min(starts), f, f.Columns(), maxQuanta
	e.lag = 3 * lagBase
	buffers := dirs
	if len(cfg.Directions) == 1 && cfg.Directions[0] != All {
		buffers = 1
	}
	e.chooseWindow(len(inputs), buffers)

	sum := &Summary{Start: e.S, Quantum: e.Q, Format: f, Labels: UniqueLabels(inputs),
		Percentiles: slices.Clone(cfg.Percentiles), Directions: slices.Clone(cfg.Directions), ByInput: cfg.ByInput}
	need := cfg.needs()
	var stored []Direction // what the partial sums of a merge in passes keep
	for d := range Direction(NumDirections) {
		if need[d] {
			stored = append(stored, d)
		}
	}
	p := &passes{tmpl: e, inputs: inputs, ropt: cfg.Reader, shifts: shifts,
		prepare: func(s *source, i int) { s.interval, s.start = intervals[i], starts[i] },
		dirs:    stored, byInput: cfg.ByInput, tempDir: cfg.TempDir, budget: budget, progress: cfg.Progress}
	var endErr error
	err = p.run(ctx, func(e *engine, sides []*sideReader) error {
		if err := e.report(ctx, &cfg, sum, sides, sink); err != nil {
			return err
		}
		endErr = sink.End(sum)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sum, endErr
}

// normalize checks cfg and fills in its defaults.
func (cfg *Config) normalize(inputs int) error {
	if inputs == 0 {
		return errors.New("histlog: no input logs")
	}
	if cfg.Quantum == 0 {
		cfg.Quantum = time.Second
	}
	if cfg.Quantum < time.Millisecond || cfg.Quantum%time.Millisecond != 0 || cfg.Quantum > 1e9*time.Second {
		return fmt.Errorf("histlog: quantum %v: want a positive whole number of milliseconds", cfg.Quantum)
	}
	if cfg.Percentiles == nil {
		cfg.Percentiles = DefaultPercentiles
	}
	for _, p := range cfg.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("histlog: percentile %v: want 0 to 100", p)
		}
	}
	if cfg.Directions == nil {
		cfg.Directions = []Direction{Read, Write, Trim, All}
	}
	for _, d := range cfg.Directions {
		if d > All {
			return fmt.Errorf("histlog: %v: %w", d, ErrDirection)
		}
	}
	if cfg.LogHistMsec < 0 {
		return fmt.Errorf("histlog: log_hist_msec %d: want a positive number", cfg.LogHistMsec)
	}
	return nil
}

// needs says which directions' sums the reported series need.
func (cfg *Config) needs() (need [NumDirections]bool) {
	for _, d := range cfg.Directions {
		if d == All {
			need = [NumDirections]bool{true, true, true}
		} else {
			need[d] = true
		}
	}
	return need
}

// report passes sum and the merged rows to sink, quantum by quantum, as
// the merge's last pass reads them; sides hold the per-log completions
// of the passes before (cfg.ByInput).
func (e *engine) report(ctx context.Context, cfg *Config, sum *Summary, sides []*sideReader, sink Sink) error {
	if err := sink.Begin(sum); err != nil {
		return err
	}
	lo, hi := make([]float64, e.cols), make([]float64, e.cols)
	for c := range e.cols {
		l, h := e.format.Bounds(c)
		lo[c], hi[c] = float64(l), float64(h)
	}
	st := newStats(cfg.Percentiles, lo, hi)
	need := cfg.needs()
	var tot [NumDirections + 1][]float64
	var rng [NumDirections + 1][2]int
	for d := range tot {
		tot[d] = make([]float64, e.cols)
		rng[d] = [2]int{math.MaxInt, -1}
	}
	r := &Row{Percentiles: make([]float64, len(cfg.Percentiles))}
	if cfg.ByInput {
		r.ByInput = make([]float64, len(sum.Labels))
	}
	err := e.run(ctx, func(w0, w1 int) error {
		for q := w0; q < w1; q++ {
			qs := e.S + int64(q)*e.Q
			cover := e.cover(q, w0)
			for _, sd := range sides {
				if err := sd.read(q); err != nil {
					return err
				}
			}
			for d := range Direction(NumDirections) {
				if need[d] {
					rng[d][0], rng[d][1] = e.sumNative(tot[d], d, q-w0)
				}
			}
			if need[Read] && need[Write] && need[Trim] {
				a := tot[All]
				rng[All] = [2]int{math.MaxInt, -1}
				for d := range Direction(NumDirections) {
					l, h := rng[d][0], rng[d][1]
					for c := l; c <= h; c++ {
						a[c] += tot[d][c]
					}
					if l <= h {
						rng[All] = [2]int{min(rng[All][0], l), max(rng[All][1], h)}
					}
				}
			}
			for _, d := range cfg.Directions {
				r.Time, r.Dir, r.Inputs = qs, d, cover
				r.Samples, r.Min, r.Max = st.compute(tot[d], rng[d][0], rng[d][1], r.Percentiles)
				if cfg.ByInput {
					e.byInput(r.ByInput, sides, d, q-w0)
				}
				if err := sink.Row(r); err != nil {
					return err
				}
			}
			for d := range tot {
				if l, h := rng[d][0], rng[d][1]; l <= h {
					clear(tot[d][l : h+1])
				}
				rng[d] = [2]int{math.MaxInt, -1}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sum.Quanta = e.N
	if e.part != nil {
		sum.Late = e.part.late
	}
	for _, s := range e.srcs {
		sum.Late += s.late
	}
	return nil
}

// byInput puts each log's completions of direction d (or All) in window
// quantum q into dst: those of the passes before (sides, at their
// current quantum), then the sources'.
func (e *engine) byInput(dst []float64, sides []*sideReader, d Direction, q int) {
	i := 0
	for _, sd := range sides {
		for j := range sd.logs {
			dst[i] = sd.samples(j, d)
			i++
		}
	}
	for _, s := range e.srcs {
		dst[i] = s.samples(d, q)
		i++
	}
}

// sumNative adds every input's window quantum q of direction d into tot,
// in input order (the partial sums of the passes before first), and
// returns the touched range.
func (e *engine) sumNative(tot []float64, d Direction, q int) (lo, hi int) {
	lo, hi = math.MaxInt, -1
	if e.part != nil {
		lo, hi = addQuantum(tot, e.part.win[d], q, lo, hi)
	}
	for _, s := range e.srcs {
		lo, hi = addQuantum(tot, s.win[d], q, lo, hi)
	}
	return lo, hi
}

// addQuantum adds quantum q of window w (nil: none) into tot and returns
// the touched range [lo, hi] widened by w's.
func addQuantum(tot []float64, w *window, q, lo, hi int) (int, int) {
	if w == nil || w.lo[q] > w.hi[q] {
		return lo, hi
	}
	l, h := int(w.lo[q]), int(w.hi[q])
	src := w.data[q*w.cols : (q+1)*w.cols]
	dst := tot[l : h+1]
	for c, v := range src[l : h+1] {
		dst[c] += v
	}
	return min(lo, l), max(hi, h)
}

// samples returns s's completions of direction d (or All) in window
// quantum q.
func (s *source) samples(d Direction, q int) float64 {
	if d != All {
		if w := s.win[d]; w != nil {
			return w.samples[q]
		}
		return 0
	}
	n := 0.0
	for _, w := range s.win {
		if w != nil {
			n += w.samples[q]
		}
	}
	return n
}
