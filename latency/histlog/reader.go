package histlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Errors of malformed logs, for errors.Is; they arrive wrapped in a
// *ParseError that names the file, line and column.
var (
	ErrSyntax        = errors.New("not a non-negative integer")
	ErrNegative      = errors.New("negative value")
	ErrColumns       = errors.New("wrong number of columns")
	ErrDirection     = errors.New("invalid direction")
	ErrTimeBackwards = errors.New("time goes backwards")
	ErrLineTooLong   = errors.New("line too long")
)

// ParseError is a malformed row: File and Line (1-based) locate it and
// Column, when not 0, is the 1-based comma-separated field: 1 the time,
// 2 the direction, 3 the block size, 4 the first count.
type ParseError struct {
	File   string
	Line   int
	Column int
	Err    error
}

func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("histlog: %s:%d: column %d: %v", e.File, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("histlog: %s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// MaxLineBytes bounds a row's length: a row of the largest layout (58
// groups, 3712 counts) of 20-digit counts is 82 KB.
const MaxLineBytes = 4 << 20

const readBufSize = 64 << 10 // grows, up to MaxLineBytes, for longer rows

// Record is one row of a histogram log.
type Record struct {
	Line      int       // 1-based line number in the file
	Time      uint64    // ms since the job started (or the epoch with log_unix_epoch)
	Dir       Direction // Read, Write or Trim
	BlockSize uint64    // bytes
	// Counts holds one count per column: the completions whose latency
	// fell in the column's buckets since the previous row of the same
	// direction. The slice is reused by the next Scan.
	Counts []uint64
	// nzLo and nzHi bound the non-zero counts (nzLo > nzHi: none), so
	// merging skips the empty ends of a row.
	nzLo, nzHi int
}

// Reader reads a histogram log row by row in bounded memory, like a
// bufio.Scanner: it accepts fio 2 and fio 3 logs of any coarseness and
// stortest's logs of more groups, "," with or without spaces, CRLF line
// ends, blank lines and one trailing separator per row. Times may not go
// backwards within a direction; every row must have as many counts as
// the first. A Reader allocates nothing per row once its buffers have
// grown to the longest row.
type Reader struct {
	src  io.Reader
	name string
	opt  ReaderOptions

	buf       []byte
	r, w      int
	eof       bool
	line      int
	rec       Record
	err       error
	format    Format
	cols      int // 0 until the first row
	last      [NumDirections]uint64
	seen      [NumDirections]bool
	emptyRead int
}

// NewReader returns a reader of src; name is used in errors (a path).
func NewReader(src io.Reader, name string, opt ReaderOptions) *Reader {
	return newReaderSize(src, name, opt, readBufSize)
}

// newReaderSize is NewReader with a first buffer of size bytes.
func newReaderSize(src io.Reader, name string, opt ReaderOptions, size int) *Reader {
	return &Reader{src: src, name: name, opt: opt, buf: make([]byte, size)}
}

// Scan reads the next row; it returns false at the end of the input or
// at the first error (see Err).
func (r *Reader) Scan() bool {
	if r.err != nil {
		return false
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				r.err = err
			}
			return false
		}
		r.line++
		line = bytes.TrimRight(line, " \t\r")
		if len(bytes.TrimLeft(line, " \t")) == 0 {
			continue
		}
		if err := r.parse(line); err != nil {
			r.err = err
			return false
		}
		return true
	}
}

// Record returns the row read by the last successful Scan. It and its
// Counts are overwritten by the next Scan.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the first error met, nil at a clean end of input.
func (r *Reader) Err() error { return r.err }

// Format returns the log's format, known after the first successful Scan.
func (r *Reader) Format() Format { return r.format }

// Name returns the name given to NewReader.
func (r *Reader) Name() string { return r.name }

func (r *Reader) readLine() ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.buf[r.r:r.w], '\n'); i >= 0 {
			line := r.buf[r.r : r.r+i]
			r.r += i + 1
			return line, nil
		}
		if r.eof {
			if r.r < r.w {
				line := r.buf[r.r:r.w]
				r.r = r.w
				return line, nil
			}
			return nil, io.EOF
		}
		if r.r > 0 {
			r.w = copy(r.buf, r.buf[r.r:r.w])
			r.r = 0
		}
		if r.w == len(r.buf) {
			if len(r.buf) >= MaxLineBytes {
				return nil, &ParseError{File: r.name, Line: r.line + 1,
					Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, MaxLineBytes)}
			}
			nb := make([]byte, min(2*len(r.buf), MaxLineBytes))
			copy(nb, r.buf[:r.w])
			r.buf = nb
		}
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			return nil, fmt.Errorf("histlog: read %s: %w", r.name, err)
		case n == 0:
			if r.emptyRead++; r.emptyRead > 100 {
				return nil, fmt.Errorf("histlog: read %s: %w", r.name, io.ErrNoProgress)
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// parse decodes one non-blank row (without its line end) into r.rec.
func (r *Reader) parse(line []byte) error {
	if r.cols > 0 {
		if hdr, lo, hi, ok := fastRow(line, r.rec.Counts[:r.cols]); ok {
			return r.finish(hdr, r.rec.Counts, lo, hi)
		}
	}
	var hdr [3]uint64
	counts := r.rec.Counts
	cols := r.cols
	if cols == 0 {
		counts = counts[:0]
	}
	n := len(line)
	i, field := 0, 0
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		start := i
		var v uint64
		for i < n {
			d := line[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
			i++
		}
		end := i
		for i < n && isSpace(line[i]) {
			i++
		}
		if end == start || (i < n && line[i] != ',') {
			if end == start && i == n && field > 0 {
				break // one trailing separator
			}
			return r.fieldError(line, start, field)
		}
		if end-start >= 20 { // might not fit 64 bits
			var err error
			if v, err = strconv.ParseUint(string(line[start:end]), 10, 64); err != nil {
				return r.errorAt(field+1, fmt.Errorf("%w: %s is out of range", ErrSyntax, line[start:end]))
			}
		}
		if field < 3 {
			hdr[field] = v
		} else if k := field - 3; cols == 0 {
			counts = append(counts, v)
		} else if k < cols {
			counts[k] = v
		} else {
			return r.errorAt(0, fmt.Errorf("%w: %d counts, want %d as in the first row",
				ErrColumns, 1+k+bytes.Count(line[i:], []byte{','}), cols))
		}
		field++
		if i == n {
			break
		}
		i++ // the ','
	}
	if field < 4 {
		return r.errorAt(0, fmt.Errorf("%w: %d fields, want time, direction, block size and counts", ErrColumns, field))
	}
	if got := field - 3; cols == 0 {
		f, err := detectFormat(got, r.opt)
		if err != nil {
			return r.errorAt(0, err)
		}
		r.format, r.cols = f, got
	} else if got != cols {
		return r.errorAt(0, fmt.Errorf("%w: %d counts, want %d as in the first row", ErrColumns, got, cols))
	}
	lo, hi := len(counts), -1
	for k, c := range counts {
		if c != 0 {
			lo, hi = min(lo, k), k
		}
	}
	return r.finish(hdr, counts, lo, hi)
}

// finish checks a decoded row's direction and time and makes it the
// current record.
func (r *Reader) finish(hdr [3]uint64, counts []uint64, lo, hi int) error {
	if hdr[1] >= NumDirections {
		return r.errorAt(2, fmt.Errorf("%w %d: want 0 (read), 1 (write) or 2 (trim)", ErrDirection, hdr[1]))
	}
	d := Direction(hdr[1])
	if r.seen[d] && hdr[0] < r.last[d] {
		return r.errorAt(1, fmt.Errorf("%w: %s row at %d ms after one at %d ms", ErrTimeBackwards, d, hdr[0], r.last[d]))
	}
	r.seen[d], r.last[d] = true, hdr[0]
	r.rec = Record{Line: r.line, Time: hdr[0], Dir: d, BlockSize: hdr[2], Counts: counts, nzLo: lo, nzHi: hi}
	return nil
}

// fastRow decodes a row of the usual shape (decimal numbers separated by
// commas and spaces, at most one trailing separator, exactly len(counts)
// counts) in one pass, and returns the range of non-zero counts (lo > hi
// when all are zero); anything else, including numbers that might not
// fit 64 bits, returns false for parse's general path to decode or
// explain. It is the hot loop of reading (most fields are "0, ": a
// special case for them measured slower than this plain loop).
func fastRow(p []byte, counts []uint64) (hdr [3]uint64, lo, hi int, ok bool) {
	lo, hi = len(counts), -1
	k := -3
	for {
		for len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		if len(p) == 0 {
			return hdr, lo, hi, false
		}
		c := p[0] - '0'
		if c > 9 {
			return hdr, lo, hi, false
		}
		v := uint64(c)
		p = p[1:]
		digits := 1
		for len(p) > 0 {
			c = p[0] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c)
			p = p[1:]
			digits++
		}
		switch {
		case digits >= 20:
			return hdr, lo, hi, false
		case k < 0:
			hdr[k+3] = v
		case k < len(counts):
			counts[k] = v
			if v != 0 {
				if k < lo {
					lo = k
				}
				hi = k
			}
		default:
			return hdr, lo, hi, false
		}
		k++
		for len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		if len(p) == 0 {
			return hdr, lo, hi, k == len(counts)
		}
		if p[0] != ',' {
			return hdr, lo, hi, false
		}
		p = p[1:]
		if k == len(counts) {
			for len(p) > 0 && isSpace(p[0]) {
				p = p[1:]
			}
			return hdr, lo, hi, len(p) == 0
		}
	}
}

func (r *Reader) errorAt(col int, err error) error {
	return &ParseError{File: r.name, Line: r.line, Column: col, Err: err}
}

// fieldError explains why the field starting at start is not a count.
func (r *Reader) fieldError(line []byte, start, field int) error {
	end := start
	for end < len(line) && line[end] != ',' {
		end++
	}
	text := bytes.TrimSpace(line[start:end])
	if len(text) > 24 {
		text = append(text[:24:24], "..."...)
	}
	sentinel := ErrSyntax
	if len(text) > 1 && text[0] == '-' {
		if _, err := strconv.ParseUint(string(bytes.TrimSpace(text[1:])), 10, 64); err == nil {
			sentinel = ErrNegative
		}
	}
	if len(text) == 0 {
		return r.errorAt(field+1, fmt.Errorf("%w: empty field", sentinel))
	}
	return r.errorAt(field+1, fmt.Errorf("%w: %q", sentinel, text))
}
