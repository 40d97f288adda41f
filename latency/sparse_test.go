package latency

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSparseRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, groups := range []int{FioGroups, LongGroups, MaxGroups} {
		l := MustLayout(groups)
		for trial := range 50 {
			h := New(l)
			switch trial {
			case 0: // empty
			case 1: // the first and last buckets, a huge count
				h.counts[0] = 1
				h.counts[len(h.counts)-1] = math.MaxUint64
			default:
				for range r.IntN(5000) {
					h.Add(uint64(math.Exp(r.NormFloat64()*3 + 12)))
				}
			}
			want := h.Bins()
			s := NewSparse(h)
			var got []Bin
			for v, c := range s.All() {
				got = append(got, Bin{Value: v, Count: c})
			}
			assert.Equal(t, want, got, "groups %d trial %d", groups, trial)
			assert.Equal(t, len(want), s.Len())
			assert.Equal(t, h.SparseSize(), s.Size())
			assert.Equal(t, len(want) == 0, s.Empty())
			if len(want) > 0 {
				assert.Equal(t, l, s.Layout())
			}
			back := New(l)
			s.AddTo(back)
			assert.Equal(t, h.Counts(), back.Counts())
		}
	}
	var zero Sparse
	assert.True(t, zero.Empty())
	assert.Zero(t, zero.Len())
	for range zero.All() {
		t.Error("the zero Sparse yields a bucket")
	}
}

// A bucket of a typical per-second histogram takes 2-3 bytes, and
// appending into a buffer with room allocates nothing.
func TestSparseSizeAndAllocs(t *testing.T) {
	h := New(MustLayout(LongGroups))
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		h.Add(uint64(90e3 * math.Exp(0.5*r.NormFloat64())))
	}
	s := NewSparse(h)
	perBucket := float64(s.Size()) / float64(s.Len())
	t.Logf("%d buckets in %d bytes: %.2f bytes a bucket", s.Len(), s.Size(), perBucket)
	assert.LessOrEqual(t, perBucket, 3.0)

	buf := make([]byte, 0, 64<<10)
	allocs := testing.AllocsPerRun(100, func() {
		_, buf = h.AppendSparse(buf[:0])
	})
	assert.Zero(t, allocs)

	// Views carved from one buffer stay intact as it fills.
	buf = buf[:0]
	var views []Sparse
	for range 5 {
		var v Sparse
		v, buf = h.AppendSparse(buf)
		views = append(views, v)
		h.Add(1e6)
	}
	for i, v := range views {
		back := New(h.Layout())
		v.AddTo(back)
		require.Equal(t, uint64(3000+i), back.Count(), "view %d", i)
	}
}

func BenchmarkSparseAppend(b *testing.B) {
	h := New(MustLayout(LongGroups))
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		h.Add(uint64(200e3 * math.Exp(1.5*r.NormFloat64())))
	}
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		_, buf = h.AppendSparse(buf[:0])
	}
}
