package iogen

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// fioBlock builds a block as fio 3.33 writes it with verify=md5 (the
// layout of fioverify.go, which TestVerifyOnlyMatchesFio checks against
// fio's own files): one header per interval.
func fioBlock(off int64, n, interval int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	for i := 0; i < n; i += interval {
		p := b[i : i+interval]
		binary.LittleEndian.PutUint16(p, fioVerifyMagic)
		binary.LittleEndian.PutUint16(p[2:], 2)
		binary.LittleEndian.PutUint32(p[4:], uint32(interval))
		binary.LittleEndian.PutUint64(p[8:], 12345)
		binary.LittleEndian.PutUint64(p[16:], uint64(off)+uint64(i))
		binary.LittleEndian.PutUint32(p[36:], fioCRC32C(p[:36]))
		s := md5.Sum(p[56:])
		copy(p[40:], s[:])
	}
	return b
}

// CheckFio tells fio's blocks apart as Check tells stortest's: intact,
// zeroed, foreign, a damaged header, another length, changed data, and a
// block of another offset, naming the offset of the interval at fault.
func TestCheckFio(t *testing.T) {
	v, err := NewVerifier(workload.VerifyMD5, "")
	require.NoError(t, err)
	kind := func(err error) Corruption {
		var e *VerifyError
		require.True(t, errors.As(err, &e), "%v", err)
		return e.Kind
	}
	require.NoError(t, v.CheckFio(fioBlock(8192, 4096, 4096), 8192, 4096))
	require.NoError(t, v.CheckFio(fioBlock(8192, 16384, 4096), 8192, 4096), "four headers")
	assert.Equal(t, CorruptZeroed, kind(v.CheckFio(make([]byte, 4096), 0, 4096)))
	b := fioBlock(0, 4096, 4096)
	b[0] = 0
	assert.Equal(t, CorruptForeign, kind(v.CheckFio(b, 0, 4096)))
	b = fioBlock(0, 4096, 4096)
	b[20]++
	assert.Equal(t, CorruptHeader, kind(v.CheckFio(b, 0, 4096)))
	assert.Equal(t, CorruptLength, kind(v.CheckFio(fioBlock(0, 8192, 8192), 0, 4096)))
	b = fioBlock(4096, 16384, 4096)
	b[2*4096+1000]++
	err = v.CheckFio(b, 4096, 4096)
	assert.Equal(t, CorruptData, kind(err))
	assert.Contains(t, err.Error(), "offset 12288", "the third interval")
	assert.Equal(t, CorruptMisdirected, kind(v.CheckFio(fioBlock(4096, 4096, 4096), 0, 4096)))

	c, err := NewVerifier(workload.VerifySHA256, "")
	require.NoError(t, err)
	assert.ErrorContains(t, c.CheckFio(fioBlock(0, 4096, 4096), 0, 4096), "md5 and crc32c blocks only")
}
