package latency

import (
	"encoding/binary"
	"iter"
)

// Sparse holds the non-empty buckets of a histogram compactly: for each,
// in ascending order, the gap in bucket index since the one before and its
// count, as unsigned varints. A bucket takes 2 bytes when its count is
// under 128 and 3 under 16384, against 16 for a Bin; that is what keeps an
// hour of per-second histograms small. The zero Sparse is empty. A Sparse
// never changes after it is made, so copies may share its bytes.
type Sparse struct {
	data   []byte
	groups uint8 // of the layout; 0 for the zero Sparse
}

// NewSparse returns h's non-empty buckets as a Sparse of their own.
func NewSparse(h *Histogram) Sparse {
	s, _ := h.AppendSparse(make([]byte, 0, h.SparseSize()))
	return s
}

// SparseSize returns the number of bytes AppendSparse appends for h.
func (h *Histogram) SparseSize() int {
	n, next := 0, 0
	for i, c := range h.counts {
		if c != 0 {
			n += uvarintLen(uint64(i-next)) + uvarintLen(c)
			next = i + 1
		}
	}
	return n
}

// AppendSparse appends h's non-empty buckets to buf and returns them as a
// Sparse viewing the appended bytes, with buf extended. It allocates only
// when buf lacks the room (SparseSize): a caller that keeps many of them
// can carve them from large chunks.
func (h *Histogram) AppendSparse(buf []byte) (Sparse, []byte) {
	start, next := len(buf), 0
	for i, c := range h.counts {
		if c != 0 {
			buf = binary.AppendUvarint(buf, uint64(i-next))
			buf = binary.AppendUvarint(buf, c)
			next = i + 1
		}
	}
	end := len(buf)
	return Sparse{data: buf[start:end:end], groups: uint8(h.layout.groups)}, buf
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Layout returns the layout of the histogram s was made from; the zero
// Layout for the zero Sparse.
func (s Sparse) Layout() Layout { return Layout{groups: int(s.groups)} }

// Empty reports whether s has no values.
func (s Sparse) Empty() bool { return len(s.data) == 0 }

// Size returns the bytes s takes, its header aside.
func (s Sparse) Size() int { return len(s.data) }

// all yields the bucket index and count of every non-empty bucket.
func (s Sparse) all(yield func(int, uint64) bool) {
	next := 0
	for b := s.data; len(b) > 0; {
		gap, n := binary.Uvarint(b)
		if n <= 0 {
			return
		}
		c, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return
		}
		b = b[n+m:]
		idx := next + int(gap)
		if !yield(idx, c) {
			return
		}
		next = idx + 1
	}
}

// All yields the representative value (Layout.Value) and the count of
// every non-empty bucket in ascending order, as Histogram.Bins lists them.
func (s Sparse) All() iter.Seq2[uint64, uint64] {
	l := s.Layout()
	return func(yield func(uint64, uint64) bool) {
		s.all(func(idx int, c uint64) bool { return yield(l.Value(idx), c) })
	}
}

// Len returns the number of non-empty buckets.
func (s Sparse) Len() int {
	n := 0
	s.all(func(int, uint64) bool { n++; return true })
	return n
}

// AddTo adds s's values to h with AddBin: at their buckets' values, so
// that h's statistics are bucket-resolution estimates.
func (s Sparse) AddTo(h *Histogram) {
	for v, c := range s.All() {
		h.AddBin(v, c)
	}
}
