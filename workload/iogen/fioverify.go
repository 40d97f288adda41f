package iogen

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"stortest.dev/workload"
)

// Blocks fio 3.33 wrote with verify=, read back by a verify_only job
// (Job.VerifyOnly). Every verify interval of a block (the smallest block
// size, fio's default verify_interval) starts with fio's header, little
// endian:
//
//	 0  magic        0xacca
//	 2  verify_type  fio's number of the checksum (md5 2, crc32c 5)
//	 4  len          the interval, bytes
//	 8  rand_seed    the seed of the data
//	16  offset       the interval's offset in the file
//	24  time         seconds, nanoseconds (4 bytes each)
//	32  thread       (2 bytes)
//	34  numberio     (2 bytes)
//	36  crc32        fio's CRC-32C of bytes 0-35
//	40  checksum     md5: 16 bytes; crc32c: 4
//
// then data to the interval's end, whose checksum the header holds. fio's
// CRC-32C is the standard one without the final inversion. A verify_only
// job of a job that only writes checks what fio checks: the magic, the
// length, the offset, the header's CRC and the data's checksum (fio
// skips numberio under verify_only, and takes rand_seed from the header
// when the job does not both read and write; stortest does not check it
// for such jobs either).

const (
	fioVerifyMagic   = 0xacca
	fioVerifyHdrSize = 40
)

// IsFioBlock reports whether buf starts with fio's verify magic.
func IsFioBlock(buf []byte) bool {
	return len(buf) >= 2 && binary.LittleEndian.Uint16(buf) == fioVerifyMagic
}

// fioCRC32C is fio's fio_crc32c: CRC-32C without the final inversion.
func fioCRC32C(b []byte) uint32 { return ^crc32.Checksum(b, castagnoli) }

// fioSumLen is the size of kind's checksum in fio's header, or 0 for the
// kinds CheckFio does not read.
func fioSumLen(k workload.VerifyKind) int {
	switch k {
	case workload.VerifyMD5:
		return md5.Size
	case workload.VerifyCRC32C:
		return 4
	}
	return 0
}

// fioSum is kind's checksum of data as fio stores it in the header.
func fioSum(k workload.VerifyKind, data []byte) []byte {
	if k == workload.VerifyMD5 {
		s := md5.Sum(data)
		return s[:]
	}
	return binary.LittleEndian.AppendUint32(nil, fioCRC32C(data))
}

// CheckFio verifies a block read at offset that fio 3.33 wrote with this
// verifier's checksum, one header every interval bytes (the whole block
// when interval is 0 or larger). It returns nil or a *VerifyError naming
// the offset of the first interval that fails.
func (v *Verifier) CheckFio(buf []byte, offset int64, interval int) error {
	if v.kind == workload.VerifyNull {
		return nil
	}
	if interval <= 0 || interval > len(buf) {
		interval = len(buf)
	}
	n := fioSumLen(v.kind)
	for i := 0; i < len(buf); i += interval {
		p := buf[i:min(i+interval, len(buf))]
		if err := v.checkFioInterval(p, offset+int64(i), n); err != nil {
			return err
		}
	}
	return nil
}

func (v *Verifier) checkFioInterval(p []byte, offset int64, n int) error {
	fail := func(kind Corruption, more func(*VerifyError)) error {
		e := &VerifyError{Offset: offset, Len: len(p), Kind: kind, Sum: v.kind, FirstBad: -1}
		if more != nil {
			more(e)
		}
		if e.Detail != "" {
			e.Detail = "fio's format: " + e.Detail
		} else {
			e.Detail = "fio's format"
		}
		return e
	}
	if n == 0 {
		return fail(CorruptForeign, func(e *VerifyError) {
			e.Detail = fmt.Sprintf("a verify=%s block; stortest reads fio's md5 and crc32c blocks only", v.kind)
		})
	}
	if len(p) < fioVerifyHdrSize+n || !IsFioBlock(p) {
		if allZero(p) {
			return fail(CorruptZeroed, nil)
		}
		return fail(CorruptForeign, func(e *VerifyError) { e.Detail = "no verify header" })
	}
	if stored, computed := binary.LittleEndian.Uint32(p[36:]), fioCRC32C(p[:36]); stored != computed {
		return fail(CorruptHeader, func(e *VerifyError) {
			e.Detail = fmt.Sprintf("header CRC-32C stored %08x, computed %08x", stored, computed)
		})
	}
	foundLen := int(binary.LittleEndian.Uint32(p[4:]))
	foundOff := int64(binary.LittleEndian.Uint64(p[16:]))
	found := func(e *VerifyError) {
		e.FoundOffset, e.FoundLen, e.FoundSeed = foundOff, foundLen, binary.LittleEndian.Uint64(p[8:])
	}
	if foundLen != len(p) {
		return fail(CorruptLength, found)
	}
	stored := p[fioVerifyHdrSize : fioVerifyHdrSize+n]
	if sum := fioSum(v.kind, p[fioVerifyHdrSize+n:]); !bytes.Equal(sum, stored) {
		return fail(CorruptData, func(e *VerifyError) {
			found(e)
			e.Want, e.Got = bytes.Clone(stored), sum
			e.Detail = "the data does not match the header's checksum"
		})
	}
	if foundOff != offset {
		return fail(CorruptMisdirected, found)
	}
	return nil
}
