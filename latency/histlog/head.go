package histlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ErrNoRows is returned for an input without a single row.
var ErrNoRows = errors.New("no rows")

// head is what the first pass learns of an input: its format, its first
// rows and the time of its last row.
type head struct {
	format Format
	times  []int64 // of the first headRows rows
	dirs   []Direction
	last   int64 // with tail: the last row's time
}

// readHead opens in and reads its first rows; with tail, it also finds
// its last row's time (by seeking when it can, else by reading it
// through, which also reports any malformed row).
func readHead(in Input, opt ReaderOptions, tail bool) (*head, error) {
	rc, err := in.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	rd := NewReader(rc, in.Path, opt)
	h := &head{}
	for len(h.times) < headRows && rd.Scan() {
		rec := rd.Record()
		h.times = append(h.times, int64(rec.Time))
		h.dirs = append(h.dirs, rec.Dir)
		h.last = int64(rec.Time)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if len(h.times) == 0 {
		return nil, fmt.Errorf("histlog: %s: %w", in.Path, ErrNoRows)
	}
	h.format = rd.Format()
	if len(h.times) < headRows || !tail {
		return h, nil // read to the end, or the end is not needed
	}
	if rs, ok := rc.(io.ReadSeeker); ok {
		t, ok, err := lastRowTime(rs)
		if err != nil {
			return nil, fmt.Errorf("histlog: %s: %w", in.Path, err)
		}
		if ok {
			h.last = int64(t)
			return h, nil
		}
		// The last row is malformed: read the log through from a fresh
		// open to report it with its line number.
		rc2, err := in.open()
		if err != nil {
			return nil, err
		}
		defer rc2.Close()
		rd = NewReader(rc2, in.Path, opt)
	}
	for rd.Scan() {
		h.last = int64(rd.Record().Time)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	return h, nil
}

// interval infers the logging interval (log_hist_msec) of a log: the
// median step between successive rows of one direction among its first
// rows; 0 when no direction has two rows there. Not the smallest step:
// fio keeps its rows on a grid of the interval, so the row after a late
// one comes early.
func (h *head) interval() int64 {
	var last [NumDirections]int64
	var seen [NumDirections]bool
	var steps []int64
	for i, t := range h.times {
		d := h.dirs[i]
		if seen[d] && t > last[d] {
			steps = append(steps, t-last[d])
		}
		seen[d], last[d] = true, t
	}
	if len(steps) == 0 {
		return 0
	}
	slices.Sort(steps)
	return steps[(len(steps)-1)/2]
}

// readHeads runs readHead over inputs with a bounded pool of workers.
func readHeads(ctx context.Context, inputs []Input, opt ReaderOptions, tail bool, workers int) ([]*head, error) {
	heads := make([]*head, len(inputs))
	e := &engine{workers: workers, srcs: make([]*source, len(inputs))}
	for i := range inputs {
		e.srcs[i] = &source{idx: i, in: inputs[i]}
	}
	err := e.parallel(ctx, func(s *source) error {
		h, err := readHead(s.in, opt, tail)
		heads[s.idx] = h
		return err
	})
	return heads, err
}
