package histlog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// A merge in passes (passes.go) keeps what the passes so far summed in
// a partial file, and, with Config.ByInput, each pass's per-log
// completions in a side file. Both are private to a merge and live only
// in its temporary directory; neither is a promised format.
//
// Partial sums cannot go back into a histogram log: rows straddling
// quanta give fractional counts, and the merge adds float64s in input
// order, an addition that is not associative. So a partial file holds,
// per quantum and direction, the running sums themselves, as float64
// bits; the next pass adds them first, as the one-pass merge would have
// added the same logs first, and the output is the same to the bit.
//
//	header:  partialMagic, columns uint32, directions uint32 (a bit each)
//	quantum: logs covering it uint32, then per direction in order:
//	         lo, hi int32 (lo > hi: nothing), hi-lo+1 float64
//	trailer: quanta uint64, latest row time int64 (ms), late rows uint64,
//	         partialEnd
//
// A side file holds, per quantum, NumDirections float64 completions
// (read, write, trim) per log of its pass; its length gives its quanta.
// Little endian throughout.

const (
	partialMagic   = "histlog partial\n"
	partialEnd     = "histlog end\n"
	partialHeader  = len(partialMagic) + 4 + 4
	partialTrailer = 8 + 8 + 8 + len(partialEnd)
)

// errPartial marks a damaged intermediate file (a full disk, another
// process writing into the temporary directory).
var errPartial = errors.New("damaged intermediate file")

// partialWriter writes a partial file.
// tempWriter is a buffered temporary file; write errors stick to bw
// and are reported by flushClose.
type tempWriter struct {
	path string
	f    *os.File
	bw   *bufio.Writer
}

func newTempWriter(path string, f *os.File) tempWriter {
	return tempWriter{path: path, f: f, bw: bufio.NewWriterSize(f, 256<<10)}
}

// flushClose flushes and closes the file.
func (w *tempWriter) flushClose() error {
	err := w.bw.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err != nil {
		return fmt.Errorf("histlog: write %s: %w", w.path, err)
	}
	return nil
}

// closeFile closes the file if flushClose did not.
func (w *tempWriter) closeFile() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

type partialWriter struct {
	tempWriter
	buf    []byte // one window's floats, encoded
	rec    [8]byte
	quanta int
}

func createPartial(path string, cols int, dirs []Direction) (*partialWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("histlog: %w", err)
	}
	w := &partialWriter{tempWriter: newTempWriter(path, f), buf: make([]byte, 8*cols)}
	var mask uint32
	for _, d := range dirs {
		mask |= 1 << d
	}
	hdr := append([]byte(partialMagic), make([]byte, 8)...)
	binary.LittleEndian.PutUint32(hdr[len(partialMagic):], uint32(cols))
	binary.LittleEndian.PutUint32(hdr[len(partialMagic)+4:], mask)
	w.bw.Write(hdr) // errors stick to bw: reported by Flush in finish
	return w, nil
}

// quantum starts the next quantum, covered by cover logs; window
// follows for each direction, in order.
func (w *partialWriter) quantum(cover int) {
	binary.LittleEndian.PutUint32(w.rec[:4], uint32(cover))
	w.bw.Write(w.rec[:4])
	w.quanta++
}

// window writes sums[lo:hi+1], the touched columns of a direction.
func (w *partialWriter) window(sums []float64, lo, hi int) {
	if lo > hi {
		lo, hi = 0, -1
	}
	binary.LittleEndian.PutUint32(w.rec[:4], uint32(int32(lo)))
	binary.LittleEndian.PutUint32(w.rec[4:], uint32(int32(hi)))
	w.bw.Write(w.rec[:])
	n := 0
	for c := lo; c <= hi; c++ {
		binary.LittleEndian.PutUint64(w.buf[n:], math.Float64bits(sums[c]))
		n += 8
	}
	w.bw.Write(w.buf[:n])
}

// finish writes the trailer and closes the file.
func (w *partialWriter) finish(lastT int64, late int) error {
	b := make([]byte, partialTrailer)
	binary.LittleEndian.PutUint64(b, uint64(w.quanta))
	binary.LittleEndian.PutUint64(b[8:], uint64(lastT))
	binary.LittleEndian.PutUint64(b[16:], uint64(late))
	copy(b[24:], partialEnd)
	w.bw.Write(b)
	return w.flushClose()
}

// close closes the file if finish did not.
func (w *partialWriter) close() {
	if w != nil {
		w.closeFile()
	}
}

// partial reads a partial file into window buffers, round by round,
// like a source (engine.fill) but without rows: its sums are added
// first by sumNative and sumFio, its covering logs by cover.
type partial struct {
	path   string
	f      *os.File
	br     *bufio.Reader
	cols   int
	dirs   []Direction
	quanta int   // stored; zero past them
	lastT  int64 // ms, the latest row of the logs summed
	late   int
	next   int                    // the next quantum to read
	win    [NumDirections]*window // of the directions stored
	cover  []int32                // logs covering each window quantum
	buf    []byte                 // one window's floats, encoded
	rec    [8]byte                // a quantum's fixed fields
}

// openPartial opens a partial file written with cols and dirs, for
// windows of quanta quanta.
func openPartial(path string, cols int, dirs []Direction, quanta int) (*partial, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("histlog: %w", err)
	}
	p := &partial{path: path, f: f, cols: cols, dirs: dirs, cover: make([]int32, quanta), buf: make([]byte, 8*cols)}
	if err := p.readEnds(); err != nil {
		f.Close()
		return nil, fmt.Errorf("histlog: %s: %w", path, err)
	}
	p.br = bufio.NewReaderSize(io.NewSectionReader(f, int64(partialHeader), math.MaxInt64-int64(partialHeader)), 256<<10)
	for _, d := range dirs {
		p.win[d] = newWindow(quanta, cols)
	}
	return p, nil
}

func (p *partial) readEnds() error {
	st, err := p.f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < int64(partialHeader+partialTrailer) {
		return fmt.Errorf("%w: %d bytes", errPartial, st.Size())
	}
	hdr := make([]byte, partialHeader)
	tr := make([]byte, partialTrailer)
	if _, err := p.f.ReadAt(hdr, 0); err != nil {
		return err
	}
	if _, err := p.f.ReadAt(tr, st.Size()-int64(partialTrailer)); err != nil {
		return err
	}
	var mask uint32
	for _, d := range p.dirs {
		mask |= 1 << d
	}
	if string(hdr[:len(partialMagic)]) != partialMagic || string(tr[24:]) != partialEnd ||
		binary.LittleEndian.Uint32(hdr[len(partialMagic):]) != uint32(p.cols) ||
		binary.LittleEndian.Uint32(hdr[len(partialMagic)+4:]) != mask {
		return fmt.Errorf("%w: bad header or trailer", errPartial)
	}
	q := binary.LittleEndian.Uint64(tr)
	if q > maxQuanta {
		return fmt.Errorf("%w: %d quanta", errPartial, q)
	}
	p.quanta = int(q)
	p.lastT = int64(binary.LittleEndian.Uint64(tr[8:]))
	p.late = int(binary.LittleEndian.Uint64(tr[16:]))
	return nil
}

// fill reads window [w0, w1), the quantum after the last one read.
func (p *partial) fill(w0, w1 int) error {
	if w0 != p.next {
		panic(fmt.Sprintf("histlog: partial sums read at quantum %d, not %d", w0, p.next))
	}
	for _, d := range p.dirs {
		p.win[d].reset()
	}
	for q := w0; q < w1; q++ {
		off := q - w0
		p.cover[off] = 0
		if q >= p.quanta {
			continue
		}
		if _, err := io.ReadFull(p.br, p.rec[:4]); err != nil {
			return p.err(err)
		}
		p.cover[off] = int32(binary.LittleEndian.Uint32(p.rec[:4]))
		for _, d := range p.dirs {
			if _, err := io.ReadFull(p.br, p.rec[:]); err != nil {
				return p.err(err)
			}
			lo, hi := int32(binary.LittleEndian.Uint32(p.rec[:4])), int32(binary.LittleEndian.Uint32(p.rec[4:]))
			if lo > hi {
				continue
			}
			if lo < 0 || int(hi) >= p.cols {
				return p.err(fmt.Errorf("%w: columns %d to %d of %d", errPartial, lo, hi, p.cols))
			}
			b := p.buf[:8*int(hi-lo+1)]
			if _, err := io.ReadFull(p.br, b); err != nil {
				return p.err(err)
			}
			w := p.win[d]
			dst := w.data[off*w.cols+int(lo) : off*w.cols+int(hi)+1]
			for c := range dst {
				dst[c] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*c:]))
			}
			w.lo[off], w.hi[off] = lo, hi
		}
	}
	p.next = w1
	return nil
}

func (p *partial) err(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("%w: truncated", errPartial)
	}
	return fmt.Errorf("histlog: %s: %w", p.path, err)
}

func (p *partial) close() {
	if p != nil && p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// sideWriter writes a side file: each quantum's completions per log
// and direction.
type sideWriter struct {
	tempWriter
	rec [8]byte
}

func createSide(path string) (*sideWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("histlog: %w", err)
	}
	return &sideWriter{tempWriter: newTempWriter(path, f)}, nil
}

func (w *sideWriter) add(v float64) {
	binary.LittleEndian.PutUint64(w.rec[:], math.Float64bits(v))
	w.bw.Write(w.rec[:])
}

func (w *sideWriter) finish() error { return w.flushClose() }

func (w *sideWriter) close() {
	if w != nil {
		w.closeFile()
	}
}

// sideReader reads a side file quantum by quantum.
type sideReader struct {
	path   string
	f      *os.File
	br     *bufio.Reader
	logs   int
	quanta int
	next   int
	vals   []float64 // the current quantum's: log i, direction d at i*NumDirections+d
	buf    []byte
}

func openSide(path string, logs int) (*sideReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("histlog: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("histlog: %w", err)
	}
	per := int64(8 * NumDirections * logs)
	if st.Size()%per != 0 {
		f.Close()
		return nil, fmt.Errorf("histlog: %s: %w: %d bytes for %d logs", path, errPartial, st.Size(), logs)
	}
	return &sideReader{path: path, f: f, br: bufio.NewReaderSize(f, 256<<10), logs: logs, quanta: int(st.Size() / per),
		vals: make([]float64, NumDirections*logs), buf: make([]byte, per)}, nil
}

// read loads quantum q, the one after the last read (zeros past the
// file's quanta).
func (r *sideReader) read(q int) error {
	if q != r.next {
		panic(fmt.Sprintf("histlog: side file read at quantum %d, not %d", q, r.next))
	}
	r.next++
	if q >= r.quanta {
		clear(r.vals)
		return nil
	}
	if _, err := io.ReadFull(r.br, r.buf); err != nil {
		return fmt.Errorf("histlog: %s: %w: %v", r.path, errPartial, err)
	}
	for i := range r.vals {
		r.vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.buf[8*i:]))
	}
	return nil
}

// samples is log i's completions of direction d (or All) in the
// current quantum, summed as source.samples sums them.
func (r *sideReader) samples(i int, d Direction) float64 {
	v := r.vals[i*NumDirections : (i+1)*NumDirections]
	if d != All {
		return v[d]
	}
	n := 0.0
	for _, x := range v {
		n += x
	}
	return n
}

func (r *sideReader) close() {
	if r != nil && r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
