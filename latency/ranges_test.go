package latency

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The range edges as fio's io_u_mark_latency places them: each upper
// bound is exclusive, values are truncated to the unit (1999 ns is 1 us,
// in the us group's first range), and 2 s or more is ">=2000" ms.
func TestRangeIndex(t *testing.T) {
	cases := []struct {
		ns   uint64
		want int
	}{
		{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {9, 2}, {10, 3}, {19, 3}, {20, 4}, {49, 4},
		{50, 5}, {99, 5}, {100, 6}, {249, 6}, {250, 7}, {499, 7}, {500, 8}, {749, 8}, {750, 9}, {999, 9},
		{1000, 10}, {1999, 10}, {2000, 11}, {3999, 11}, {4000, 12}, {249_999, 16}, {250_000, 17},
		{749_999, 18}, {750_000, 19}, {999_999, 19},
		{1_000_000, 20}, {1_999_999, 20}, {2_000_000, 21}, {999_999_999, 29}, {1_000_000_000, 30},
		{1_999_999_999, 30}, {2_000_000_000, 31}, {1 << 40, 31},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, RangeIndex(c.ns), "%d ns", c.ns)
	}
}

// The ranges travel with the histogram: Merge adds them, Sub takes an
// earlier snapshot's away, Reset clears them, Clone copies them.
func TestHistogramRanges(t *testing.T) {
	a := NewFio()
	for _, v := range []uint64{1, 745, 751, 1500, 2_500_000} {
		a.Add(v)
	}
	r := a.Ranges()
	assert.Equal(t, uint64(1), r[0])
	assert.Equal(t, uint64(1), r[8], "745 ns is under 750")
	assert.Equal(t, uint64(1), r[9], "751 ns shares a bucket with 745 but not a range")
	assert.Equal(t, uint64(1), r[10])
	assert.Equal(t, uint64(1), r[21])

	snap := a.Clone()
	assert.Equal(t, r, snap.Ranges())
	a.Add(3_000_000_000)
	require.NoError(t, a.Merge(snap))
	assert.Equal(t, uint64(2), a.Ranges()[8])
	assert.Equal(t, uint64(1), a.Ranges()[31])

	d := NewFio()
	require.NoError(t, d.Sub(a, snap))
	assert.Equal(t, [NumRanges]uint64{8: 1, 9: 1, 0: 1, 10: 1, 21: 1, 31: 1}, d.Ranges())
	d.Reset()
	assert.Equal(t, [NumRanges]uint64{}, d.Ranges())
}

// fio's shares: a floor of 0.01 for a range that counted anything.
func TestRangePercents(t *testing.T) {
	c := [NumRanges]uint64{0: 99999, 5: 1}
	p := RangePercents(&c, 100000)
	assert.InDelta(t, 99.999, p[0], 1e-9)
	assert.Equal(t, 0.01, p[5])
	assert.Equal(t, 0.0, p[6])
	assert.Equal(t, [NumRanges]float64{}, RangePercents(&c, 0))
}
