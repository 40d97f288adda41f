package histlog

import (
	"fmt"
	"io"
	"strconv"

	"stortest.dev/latency"
)

// FileName returns fio's name for the histogram log of job number job
// (1-based) written with write_hist_log=prefix: "<prefix>_clat_hist.<job>.log".
func FileName(prefix string, job int) string {
	return prefix + "_clat_hist." + strconv.Itoa(job) + ".log"
}

// flushAt is the buffered size at which a Writer writes through: a few
// 1856-column rows.
const flushAt = 64 << 10

// Writer writes histogram logs in fio's format: one row per direction
// and interval, "time_ms, ddir, bs, c0, ..., c(M-1)" with M = buckets >>
// coarseness, each column summing 2^coarseness fine buckets. Histograms
// of more than fio's 29 groups give more columns (Reader detects them).
//
// Unlike fio, which drops the last partial interval, the caller writes
// it: at the end of a run, call WriteInterval with the final delta of
// each direction, then Flush. A Writer is buffered and allocates nothing
// per row; it is not safe for concurrent use.
type Writer struct {
	w      io.Writer
	coarse int
	buf    []byte
	format Format
	rows   int
	last   [NumDirections]uint64
	seen   [NumDirections]bool
	err    error
}

// NewWriter returns a writer of rows summing 2^coarseness buckets per
// column (fio's log_hist_coarseness, 0 to 6).
func NewWriter(w io.Writer, coarseness int) (*Writer, error) {
	if coarseness < 0 || coarseness > MaxCoarseness {
		return nil, fmt.Errorf("histlog: coarseness %d: want 0 to %d", coarseness, MaxCoarseness)
	}
	return &Writer{w: w, coarse: coarseness, buf: make([]byte, 0, flushAt+64<<10)}, nil
}

// WriteInterval writes one row: the counts of h, the completions of
// direction dir in the interval that ended at timeMs (ms since the start
// of the job). h is a per-interval delta (latency.Histogram.Sub of two
// snapshots), not a running total. Every row must have the layout of the
// first, and times may not go backwards within a direction.
func (w *Writer) WriteInterval(timeMs uint64, dir Direction, bs uint32, h *latency.Histogram) error {
	if w.err != nil {
		return w.err
	}
	if dir >= NumDirections {
		return fmt.Errorf("histlog: write %v: %w", dir, ErrDirection)
	}
	if w.rows == 0 {
		w.format = Format{Layout: h.Layout(), Coarseness: w.coarse, Unit: 1}
	} else if h.Layout() != w.format.Layout {
		return fmt.Errorf("histlog: write: %d groups after rows of %d: %w",
			h.Layout().Groups(), w.format.Layout.Groups(), latency.ErrLayoutMismatch)
	}
	if w.seen[dir] && timeMs < w.last[dir] {
		return fmt.Errorf("histlog: write %s at %d ms after %d ms: %w", dir, timeMs, w.last[dir], ErrTimeBackwards)
	}
	w.seen[dir], w.last[dir] = true, timeMs
	b := strconv.AppendUint(w.buf, timeMs, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, uint64(dir), 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, uint64(bs), 10)
	counts := h.Counts()
	stride := 1 << w.coarse
	for j := 0; j < len(counts); j += stride {
		var sum uint64
		for _, c := range counts[j : j+stride] {
			sum += c
		}
		if sum == 0 { // most buckets: skip the conversion
			b = append(b, ", 0"...)
			continue
		}
		b = append(b, ", "...)
		b = strconv.AppendUint(b, sum, 10)
	}
	w.buf = append(b, '\n')
	w.rows++
	if len(w.buf) >= flushAt {
		return w.Flush()
	}
	return nil
}

// Flush writes the buffered rows through.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > 0 {
		if _, err := w.w.Write(w.buf); err != nil {
			w.err = fmt.Errorf("histlog: write: %w", err)
			return w.err
		}
		w.buf = w.buf[:0]
	}
	return nil
}

// Format returns the format of the rows written, valid after the first.
func (w *Writer) Format() Format { return w.format }
