package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trimwrite and randtrimwrite trim a block, then write the same block
// (fio's t/jobs/t0023 and t0024 check this in their logs); a pass ends
// with its last write, and visits every block once.
func TestPatternTrimWrite(t *testing.T) {
	for _, rw := range []RW{TrimWrite, RandTrimWrite} {
		t.Run(rw.String(), func(t *testing.T) {
			j := Job{Name: "tw", RW: rw, BlockSize: 4096, Size: 64 << 10}
			p, err := NewPattern(&j, 0, 7)
			require.NoError(t, err)
			seen := map[int64]bool{}
			for i := range 16 {
				trim := p.Next()
				require.Equal(t, DirTrim, trim.Dir, "I/O %d", 2*i)
				require.Zero(t, p.Passes(), "the pass is not over before its last write")
				write := p.Next()
				require.Equal(t, IO{Dir: DirWrite, Offset: trim.Offset, Len: trim.Len}, write, "I/O %d", 2*i+1)
				seen[trim.Offset] = true
			}
			assert.Len(t, seen, 16, "every block once")
			assert.Equal(t, int64(1), p.Passes())
		})
	}
	j := Job{Name: "t", RW: RandTrim, BlockSize: 4096, Size: 64 << 10}
	p, err := NewPattern(&j, 0, 7)
	require.NoError(t, err)
	for range 16 {
		require.Equal(t, DirTrim, p.Next().Dir)
	}
	assert.Equal(t, int64(1), p.Passes())
}
