package latency

import (
	"math"
	"math/rand/v2"
	"testing"
)

func twoPass(vals []uint64) (mean, stddev float64) {
	var sum float64
	for _, v := range vals {
		sum += float64(v)
	}
	mean = sum / float64(len(vals))
	var ss float64
	for _, v := range vals {
		d := float64(v) - mean
		ss += d * d
	}
	if len(vals) > 1 {
		stddev = math.Sqrt(ss / float64(len(vals)-1))
	}
	return mean, stddev
}

func randomLatencies(r *rand.Rand, n int) []uint64 {
	vals := make([]uint64, n)
	for i := range vals {
		// Log-normal-ish: most values tens of microseconds, a heavy tail.
		vals[i] = uint64(math.Exp(r.NormFloat64()*1.2 + 11))
	}
	return vals
}

func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func TestHistogramStats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := randomLatencies(r, 10000)
	h := NewFio()
	for _, v := range vals {
		h.Add(v)
	}
	mean, sd := twoPass(vals)
	if h.Count() != uint64(len(vals)) {
		t.Fatalf("Count = %d", h.Count())
	}
	if !close(h.Mean(), mean, 1e-12) || !close(h.Stddev(), sd, 1e-9) {
		t.Fatalf("mean/stddev = %v/%v, two-pass %v/%v", h.Mean(), h.Stddev(), mean, sd)
	}
	lo, hi := uint64(math.MaxUint64), uint64(0)
	var sum uint64
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	for _, c := range h.Counts() {
		sum += c
	}
	if h.Min() != lo || h.Max() != hi || sum != h.Count() {
		t.Fatalf("min/max/sum = %d/%d/%d, want %d/%d/%d", h.Min(), h.Max(), sum, lo, hi, h.Count())
	}
}

func TestHistogramEmptyAndSingle(t *testing.T) {
	h := NewFio()
	if h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 || h.Stddev() != 0 || h.Percentile(50) != 0 {
		t.Fatalf("empty histogram: min %d max %d mean %v sd %v p50 %d", h.Min(), h.Max(), h.Mean(), h.Stddev(), h.Percentile(50))
	}
	h.Add(1000)
	if h.Stddev() != 0 || h.Mean() != 1000 || h.Min() != 1000 {
		t.Fatalf("one value: mean %v sd %v min %d", h.Mean(), h.Stddev(), h.Min())
	}
}

func TestHistogramClipped(t *testing.T) {
	h := NewFio()
	h.Add(20e9) // a 20 s stall: past fio's 17.18 s ceiling
	h.Add(1000)
	if h.Clipped() != 1 || h.Max() != 20e9 || h.Bucket(FioBuckets-1) != 1 {
		t.Fatalf("clipped %d max %d last bucket %d", h.Clipped(), h.Max(), h.Bucket(FioBuckets-1))
	}
	long := New(Layout{groups: LongGroups})
	long.Add(20e9)
	if long.Clipped() != 0 {
		t.Fatal("a 36-group histogram clipped 20 s")
	}
	if p := long.Percentile(100); !close(float64(p), 20e9, 1.0/64) {
		t.Fatalf("36 groups: p100 of a 20 s stall = %d", p)
	}
}

func TestHistogramMergeEqualsAddingAll(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b, all := NewFio(), NewFio(), NewFio()
	for i, v := range randomLatencies(r, 5000) {
		if i%3 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
		all.Add(v)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if a.Count() != all.Count() || a.Min() != all.Min() || a.Max() != all.Max() || a.Clipped() != all.Clipped() {
		t.Fatalf("merged count/min/max %d/%d/%d, want %d/%d/%d", a.Count(), a.Min(), a.Max(), all.Count(), all.Min(), all.Max())
	}
	for i := range a.Counts() {
		if a.Bucket(i) != all.Bucket(i) {
			t.Fatalf("bucket %d: %d != %d", i, a.Bucket(i), all.Bucket(i))
		}
	}
	if !close(a.Mean(), all.Mean(), 1e-12) || !close(a.Stddev(), all.Stddev(), 1e-9) {
		t.Fatalf("merged mean/sd %v/%v, want %v/%v", a.Mean(), a.Stddev(), all.Mean(), all.Stddev())
	}
	empty := NewFio()
	if err := empty.Merge(all); err != nil || empty.Mean() != all.Mean() || empty.Min() != all.Min() {
		t.Fatalf("merge into empty: %v mean %v min %d", err, empty.Mean(), empty.Min())
	}
	if err := a.Merge(New(Layout{groups: LongGroups})); err != ErrLayoutMismatch {
		t.Fatalf("merge of different layouts: %v", err)
	}
}

func TestHistogramSubIsTheInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := randomLatencies(r, 4000)
	h := NewFio()
	for _, v := range vals[:1500] {
		h.Add(v)
	}
	snap := h.Clone()
	interval := NewFio()
	for _, v := range vals[1500:] {
		h.Add(v)
		interval.Add(v)
	}
	d := NewFio()
	if err := d.Sub(h, snap); err != nil {
		t.Fatal(err)
	}
	if d.Count() != interval.Count() {
		t.Fatalf("Sub count %d, want %d", d.Count(), interval.Count())
	}
	for i := range d.Counts() {
		if d.Bucket(i) != interval.Bucket(i) {
			t.Fatalf("bucket %d: %d != %d", i, d.Bucket(i), interval.Bucket(i))
		}
	}
	if !close(d.Mean(), interval.Mean(), 1e-9) || !close(d.Stddev(), interval.Stddev(), 1e-6) {
		t.Fatalf("Sub mean/sd %v/%v, want %v/%v", d.Mean(), d.Stddev(), interval.Mean(), interval.Stddev())
	}
	// Min and Max are bucket bounds around the true extremes.
	if d.Min() > interval.Min() || interval.Min()-d.Min() > interval.Min()/64+1 {
		t.Fatalf("Sub min %d, true %d", d.Min(), interval.Min())
	}
	if d.Max() < interval.Max() || d.Max()-interval.Max() > interval.Max()/64+1 {
		t.Fatalf("Sub max %d, true %d", d.Max(), interval.Max())
	}
	if d.Percentile(99) != interval.Percentile(99) {
		t.Fatalf("Sub p99 %d, want %d", d.Percentile(99), interval.Percentile(99))
	}
	// Subtracting the later snapshot from the earlier one is an error.
	if err := d.Sub(snap, h); err == nil {
		t.Fatal("Sub(earlier, later) succeeded")
	}
	// In place, receiver aliasing an operand.
	if err := h.Sub(h, snap); err != nil || h.Count() != interval.Count() {
		t.Fatalf("in-place Sub: %v, count %d", err, h.Count())
	}
	// Nothing between two snapshots.
	if err := d.Sub(snap, snap); err != nil || d.Count() != 0 || d.Min() != 0 || d.Max() != 0 || d.Mean() != 0 {
		t.Fatalf("empty interval: %v count %d min %d max %d mean %v", err, d.Count(), d.Min(), d.Max(), d.Mean())
	}
}

func TestHistogramResetCopy(t *testing.T) {
	h := NewFio()
	h.Add(5)
	h.Add(500000)
	c := NewFio()
	if err := c.CopyFrom(h); err != nil {
		t.Fatal(err)
	}
	h.Reset()
	if h.Count() != 0 || h.Max() != 0 || h.Min() != 0 || h.Bucket(5) != 0 {
		t.Fatal("Reset left values behind")
	}
	if c.Count() != 2 || c.Min() != 5 || c.Max() != 500000 || c.Bucket(5) != 1 {
		t.Fatal("CopyFrom did not copy")
	}
	if err := New(Layout{groups: LongGroups}).CopyFrom(c); err != ErrLayoutMismatch {
		t.Fatalf("CopyFrom across layouts: %v", err)
	}
}

func TestHotPathAllocations(t *testing.T) {
	h, snap, d := NewFio(), NewFio(), NewFio()
	v := uint64(12345)
	if n := testing.AllocsPerRun(1000, func() { h.Add(v); v = v*7 + 13 }); n != 0 {
		t.Errorf("Add allocates %v per call", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		_ = d.Sub(h, snap)
		_ = snap.CopyFrom(h)
		_ = d.Merge(h)
	}); n != 0 {
		t.Errorf("Sub+CopyFrom+Merge allocate %v per call", n)
	}
}

func BenchmarkAdd(b *testing.B) {
	h := NewFio()
	r := rand.New(rand.NewPCG(1, 1))
	vals := randomLatencies(r, 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Add(vals[i&4095])
	}
}

func BenchmarkSubSnapshot(b *testing.B) {
	h, snap, d := NewFio(), NewFio(), NewFio()
	r := rand.New(rand.NewPCG(1, 1))
	for _, v := range randomLatencies(r, 10000) {
		h.Add(v)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Sub(h, snap)
		_ = snap.CopyFrom(h)
	}
}

func BenchmarkPercentilesDefault(b *testing.B) {
	h := NewFio()
	r := rand.New(rand.NewPCG(1, 1))
	for _, v := range randomLatencies(r, 100000) {
		h.Add(v)
	}
	out := make([]uint64, len(DefaultPercentiles))
	b.ReportAllocs()
	for b.Loop() {
		h.PercentilesInto(out, DefaultPercentiles)
	}
}
