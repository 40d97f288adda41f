package steady

// ring is a window of the last n per-second samples of one series. It
// keeps fio's running sums (modulo 2^64, which makes the incremental
// update exact) so the slope costs O(1) per sample; the deviation needs a
// scan of n values. Pushing allocates nothing.
type ring struct {
	buf   []uint64
	miss  []bool // samples with no value (latency with no completions); nil for iops/bw
	head  int    // index of the oldest sample once full
	count int    // samples held, at most len(buf)
	nMiss int    // missing samples in the window
	sumY  uint64
	sumXY uint64 // sum(i * y_i), i = 0 for the oldest sample
}

func newRing(n int, canMiss bool) ring {
	r := ring{buf: make([]uint64, n)}
	if canMiss {
		r.miss = make([]bool, n)
	}
	return r
}

func (r *ring) full() bool { return r.count == len(r.buf) }

func (r *ring) reset() {
	clear(r.buf)
	clear(r.miss)
	r.head, r.count, r.nMiss, r.sumY, r.sumXY = 0, 0, 0, 0, 0
}

// push adds the newest sample; missing samples count as 0 in the sums.
func (r *ring) push(v uint64, missing bool) {
	n := len(r.buf)
	if missing {
		v = 0
	}
	if r.count < n {
		r.buf[r.count] = v
		if r.miss != nil {
			r.miss[r.count] = missing
		}
		r.sumY += v
		r.sumXY += uint64(r.count) * v
		r.count++
		if missing {
			r.nMiss++
		}
		return
	}
	old := r.buf[r.head]
	r.buf[r.head] = v
	if r.miss != nil {
		if r.miss[r.head] {
			r.nMiss--
		}
		r.miss[r.head] = missing
		if missing {
			r.nMiss++
		}
	}
	r.head++
	if r.head == n {
		r.head = 0
	}
	// Shifting every x down by one subtracts each remaining y once; the
	// new sample enters at x = n-1 (fio: sum_xy - sum_y + n*new).
	r.sumY = r.sumY - old + v
	r.sumXY = r.sumXY - r.sumY + uint64(n)*v
}

// stats computes fio's window statistics; the ring must be full.
func (r *ring) stats() WindowStats {
	n := len(r.buf)
	st := WindowStats{N: n, SumY: r.sumY, SumXY: r.sumXY}
	st.Mean = float64(r.sumY) / float64(n)
	st.MaxDeviation = maxDeviation(r.buf, st.Mean)
	st.Slope = fioSlope(r.sumXY, r.sumY, n)
	return st
}

// copyTo writes the window oldest first into dst (len(dst) == len(r.buf));
// before the ring is full the samples come first, then zeros, as fio
// prints a window that never filled.
func (r *ring) copyTo(dst []uint64) {
	if !r.full() {
		copy(dst, r.buf)
		return
	}
	k := copy(dst, r.buf[r.head:])
	copy(dst[k:], r.buf[:r.head])
}
