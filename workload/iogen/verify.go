package iogen

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"math"
	"math/bits"
	"strings"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// Verified blocks, like fio's, start with a header that says what the
// block should be, followed by data whose checksum the header holds. The
// header (little endian, VerifyHeaderSize bytes):
//
//	 0  magic       "STVB"
//	 4  version     1
//	 5  kind        VerifyKind of the data checksum
//	 6  reserved    0, 0
//	 8  offset      uint64: the byte offset the block was written for
//	16  seed        uint64: the generation (the runner's seed of the write)
//	24  length      uint32: block length in bytes, header included
//	28  header CRC  CRC-32C of bytes 0-27 and 32-63
//	32  checksum    of the data area: CRC-32C in 4 bytes then zeros, or SHA-256
//	64  data        pseudo-random bytes from (offset, seed), or VerifyPattern
//
// The header CRC makes the header's fields trustworthy before Check reads
// them, so a failure can be told apart: flipped bits, a misdirected write
// (an intact block of another offset), a lost or stale write (an intact
// block of an older generation), zeros, or foreign data.

const (
	verifyVersion = 1
)

var (
	verifyMagic = [4]byte{'S', 'T', 'V', 'B'}
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
)

// Verifier writes and checks verified blocks. Fill and Check allocate
// nothing on success; a Verifier may be shared by goroutines.
type Verifier struct {
	kind    workload.VerifyKind
	pattern []byte // nil: seeded pseudo-random data
}

// NewVerifier returns a verifier for kind (not VerifyNone) filling data
// with pattern, in fio's verify_pattern syntax ("" for pseudo-random).
func NewVerifier(kind workload.VerifyKind, pattern string) (*Verifier, error) {
	if kind == workload.VerifyNone || kind >= workload.NumVerifyKinds {
		return nil, fmt.Errorf("workload: verifier for verify=%s: want crc32c or sha256", kind)
	}
	p, err := fio.ParseVerifyPattern(pattern)
	if err != nil {
		return nil, fmt.Errorf("workload: verify_pattern: %w", err)
	}
	return &Verifier{kind: kind, pattern: p}, nil
}

// Kind returns the checksum kind.
func (v *Verifier) Kind() workload.VerifyKind { return v.kind }

// Fill writes a verified block for offset and seed (the generation) into
// buf, whose length is the block length. It panics if the length is
// below VerifyHeaderSize or above 4 GiB: block sizes are validated long
// before.
func (v *Verifier) Fill(buf []byte, offset int64, seed uint64) {
	if len(buf) < workload.VerifyHeaderSize || uint64(len(buf)) > math.MaxUint32 {
		panic(fmt.Sprintf("workload: verify block of %d bytes", len(buf)))
	}
	v.fillData(buf[workload.VerifyHeaderSize:], offset, seed)
	h := buf[:workload.VerifyHeaderSize]
	copy(h[0:4], verifyMagic[:])
	h[4], h[5], h[6], h[7] = verifyVersion, byte(v.kind), 0, 0
	binary.LittleEndian.PutUint64(h[8:], uint64(offset))
	binary.LittleEndian.PutUint64(h[16:], seed)
	binary.LittleEndian.PutUint32(h[24:], uint32(len(buf)))
	sum := checksum(v.kind, buf[workload.VerifyHeaderSize:])
	copy(h[32:64], sum[:])
	binary.LittleEndian.PutUint32(h[28:], headerCRC(h))
}

// fillData writes the data area: the pattern repeated, or pseudo-random
// bytes from a counter-based SplitMix64 stream keyed by offset and seed.
func (v *Verifier) fillData(d []byte, offset int64, seed uint64) {
	if len(v.pattern) > 0 {
		n := copy(d, v.pattern)
		for n < len(d) {
			n += copy(d[n:], d[:n])
		}
		return
	}
	fillRandom(d, uint64(offset)^SplitMix64(seed))
}

// mix64 is SplitMix64's output function.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// checksum returns the checksum of kind over data in the header's 32
// bytes (little endian for CRCs; longer digests keep their first 32
// bytes). VerifyMeta and VerifyNull have none: all zeros.
func checksum(k workload.VerifyKind, data []byte) (sum [32]byte) {
	switch k {
	case workload.VerifySHA256:
		return sha256.Sum256(data)
	case workload.VerifyMD5:
		s := md5.Sum(data)
		copy(sum[:], s[:])
	case workload.VerifyCRC64:
		binary.LittleEndian.PutUint64(sum[:], crc64.Checksum(data, crc64ECMA))
	case workload.VerifyCRC32:
		binary.LittleEndian.PutUint32(sum[:], crc32.ChecksumIEEE(data))
	case workload.VerifyCRC16:
		binary.LittleEndian.PutUint16(sum[:], crc16(data))
	case workload.VerifyCRC7:
		sum[0] = crc7(data)
	case workload.VerifyXXHash:
		binary.LittleEndian.PutUint32(sum[:], xxhash32(data))
	case workload.VerifySHA1:
		s := sha1.Sum(data)
		copy(sum[:], s[:])
	case workload.VerifySHA512:
		s := sha512.Sum512(data)
		copy(sum[:], s[:])
	case workload.VerifySHA3_224:
		s := sha3.Sum224(data)
		copy(sum[:], s[:])
	case workload.VerifySHA3_256:
		return sha3.Sum256(data)
	case workload.VerifySHA3_384:
		s := sha3.Sum384(data)
		copy(sum[:], s[:])
	case workload.VerifySHA3_512:
		s := sha3.Sum512(data)
		copy(sum[:], s[:])
	case workload.VerifyMeta, workload.VerifyNull:
	default: // VerifyCRC32C, VerifyPatternKind
		binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(data, castagnoli))
	}
	return sum
}

func headerCRC(h []byte) uint32 {
	c := crc32.Update(0, castagnoli, h[:28])
	return crc32.Update(c, castagnoli, h[32:workload.VerifyHeaderSize])
}

// Corruption classifies a verify failure by what it looks like.
type Corruption uint8

const (
	// CorruptZeroed: the block reads back as zeros: a lost write, a trim,
	// or a block never written.
	CorruptZeroed Corruption = iota + 1
	// CorruptForeign: no verify header: data from elsewhere, or a torn
	// write that lost the header's sector.
	CorruptForeign
	// CorruptHeader: the header fails its own CRC: flipped bits in the
	// header.
	CorruptHeader
	// CorruptLength: an intact header of another block length: a torn
	// write or a different block size wrote it.
	CorruptLength
	// CorruptData: the data fails the header's checksum: flipped bits, or
	// part of the block (a torn write) holds other data.
	CorruptData
	// CorruptMisdirected: an intact block written for another offset: a
	// misdirected write (or read).
	CorruptMisdirected
	// CorruptStale: an intact block of this offset from another
	// generation: a lost write left older data (or the write was never
	// issued).
	CorruptStale
	// CorruptOverwritten: an intact block of this offset written by
	// another job of the run (its seed is that job's): the jobs' regions
	// overlap and the other job wrote the block after this one did.
	// Nothing was lost; the job file has several writers of one block,
	// which fio warns of ("multiple writers may overwrite blocks that
	// belong to other jobs") and fails the same way.
	CorruptOverwritten
)

var corruptionNames = [...]string{"", "zeroed block", "foreign data", "corrupted header", "wrong length",
	"flipped bits", "misdirected write", "lost or stale write", "overwritten by another job"}

func (c Corruption) String() string {
	if int(c) < len(corruptionNames) && c != 0 {
		return corruptionNames[c]
	}
	return fmt.Sprintf("Corruption(%d)", uint8(c))
}

// ErrCorrupt is wrapped by every *VerifyError.
var ErrCorrupt = errors.New("workload: verify failed")

// VerifyError describes a block that failed Check.
type VerifyError struct {
	Offset int64 // where the block was read, bytes
	Len    int   // block length, bytes
	Kind   Corruption
	Sum    workload.VerifyKind
	// Want is the checksum of the data expected at Offset for the seed
	// Check was given, Got the checksum of the data read (both over the
	// data area; 4 bytes for crc32c, 32 for sha256). They are equal when
	// only the header is damaged.
	Want, Got []byte
	// What the header says, when it is intact (Kind >= CorruptLength).
	FoundOffset int64
	FoundSeed   uint64
	FoundLen    int
	WantSeed    uint64
	// For CorruptData: the first bad byte (index in the block), the number
	// of bad bytes and of flipped bits against the data the header
	// describes. FirstBad is -1 otherwise.
	FirstBad, BadBytes, FlippedBits int
	Detail                          string
}

func (e *VerifyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workload: verify offset %d (%d bytes): %s", e.Offset, e.Len, e.Kind)
	switch e.Kind {
	case CorruptData:
		if e.FirstBad >= 0 || e.BadBytes > 0 {
			fmt.Fprintf(&b, ": %d bad bytes from byte %d, %d bits flipped", e.BadBytes, e.FirstBad, e.FlippedBits)
		}
	case CorruptMisdirected:
		fmt.Fprintf(&b, ": the block holds data written for offset %d (seed %#x)", e.FoundOffset, e.FoundSeed)
	case CorruptStale:
		fmt.Fprintf(&b, ": the block holds seed %#x, want %#x", e.FoundSeed, e.WantSeed)
	case CorruptOverwritten:
		fmt.Fprintf(&b, " (seed %#x, want %#x)", e.FoundSeed, e.WantSeed)
	case CorruptLength:
		fmt.Fprintf(&b, ": the header says %d bytes", e.FoundLen)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	fmt.Fprintf(&b, "; %s want %x got %x", e.Sum, e.Want, e.Got)
	return b.String()
}

// Unwrap returns ErrCorrupt.
func (e *VerifyError) Unwrap() error { return ErrCorrupt }

// Check verifies a block read at offset that should hold what Fill wrote
// for offset and seed. It returns nil or a *VerifyError.
func (v *Verifier) Check(buf []byte, offset int64, seed uint64) error {
	if v.kind == workload.VerifyNull {
		return nil // fio's verify=null only pretends
	}
	if len(buf) < workload.VerifyHeaderSize {
		return v.fail(buf, offset, seed, CorruptLength, func(e *VerifyError) {
			e.Detail = fmt.Sprintf("shorter than the %d-byte header", workload.VerifyHeaderSize)
		})
	}
	h := buf[:workload.VerifyHeaderSize]
	if [4]byte(h[0:4]) != verifyMagic {
		if allZero(buf) {
			return v.fail(buf, offset, seed, CorruptZeroed, nil)
		}
		return v.fail(buf, offset, seed, CorruptForeign, func(e *VerifyError) { e.Detail = "no verify header" })
	}
	if stored, computed := binary.LittleEndian.Uint32(h[28:]), headerCRC(h); stored != computed {
		return v.fail(buf, offset, seed, CorruptHeader, func(e *VerifyError) {
			e.Detail = fmt.Sprintf("header CRC-32C stored %08x, computed %08x", stored, computed)
		})
	}
	if h[4] != verifyVersion || workload.VerifyKind(h[5]) != v.kind {
		return v.fail(buf, offset, seed, CorruptForeign, func(e *VerifyError) {
			e.Detail = fmt.Sprintf("header version %d, verify=%s", h[4], workload.VerifyKind(h[5]))
		})
	}
	foundOff := int64(binary.LittleEndian.Uint64(h[8:]))
	foundSeed := binary.LittleEndian.Uint64(h[16:])
	foundLen := int(binary.LittleEndian.Uint32(h[24:]))
	found := func(e *VerifyError) { e.FoundOffset, e.FoundSeed, e.FoundLen = foundOff, foundSeed, foundLen }
	if foundLen != len(buf) {
		return v.fail(buf, offset, seed, CorruptLength, found)
	}
	sum := checksum(v.kind, buf[workload.VerifyHeaderSize:])
	if !bytes.Equal(sum[:v.sumLen()], h[32:32+v.sumLen()]) {
		return v.fail(buf, offset, seed, CorruptData, func(e *VerifyError) {
			found(e)
			// The header is intact, so it says what the data should be.
			want := make([]byte, len(buf)-workload.VerifyHeaderSize)
			v.fillData(want, foundOff, foundSeed)
			got := buf[workload.VerifyHeaderSize:]
			for i := range want {
				if d := want[i] ^ got[i]; d != 0 {
					if e.BadBytes == 0 {
						e.FirstBad = workload.VerifyHeaderSize + i
					}
					e.BadBytes++
					e.FlippedBits += bits.OnesCount8(d)
				}
			}
			if e.BadBytes == 0 {
				e.Detail = "the data matches the header's offset and seed: the stored checksum is wrong"
			}
		})
	}
	if foundOff != offset {
		return v.fail(buf, offset, seed, CorruptMisdirected, found)
	}
	if foundSeed != seed {
		return v.fail(buf, offset, seed, CorruptStale, found)
	}
	return nil
}

// CheckWritten verifies a block read at offset whatever its generation:
// the block of a job that only reads, written by an earlier job or run.
func (v *Verifier) CheckWritten(buf []byte, offset int64) error {
	seed := uint64(0)
	if len(buf) >= workload.VerifyHeaderSize && [4]byte(buf[0:4]) == verifyMagic {
		seed = binary.LittleEndian.Uint64(buf[16:])
	}
	return v.Check(buf, offset, seed)
}

// sumLen is the length of the kind's checksum in the header, bytes.
func (v *Verifier) sumLen() int {
	switch v.kind {
	case workload.VerifySHA256, workload.VerifySHA512, workload.VerifySHA3_256, workload.VerifySHA3_384, workload.VerifySHA3_512:
		return 32
	case workload.VerifySHA3_224:
		return 28
	case workload.VerifySHA1:
		return 20
	case workload.VerifyMD5:
		return 16
	case workload.VerifyCRC64:
		return 8
	case workload.VerifyCRC16:
		return 2
	case workload.VerifyCRC7:
		return 1
	case workload.VerifyMeta, workload.VerifyNull:
		return 0
	}
	return 4
}

// fail builds the error; it runs only on failure, so it may allocate.
func (v *Verifier) fail(buf []byte, offset int64, seed uint64, kind Corruption, more func(*VerifyError)) error {
	e := &VerifyError{Offset: offset, Len: len(buf), Kind: kind, Sum: v.kind, WantSeed: seed, FirstBad: -1}
	if len(buf) >= workload.VerifyHeaderSize {
		want := make([]byte, len(buf))
		v.Fill(want, offset, seed)
		ws := checksum(v.kind, want[workload.VerifyHeaderSize:])
		gs := checksum(v.kind, buf[workload.VerifyHeaderSize:])
		e.Want = ws[:v.sumLen()]
		e.Got = gs[:v.sumLen()]
	}
	if more != nil {
		more(e)
	}
	if e.Want != nil && bytes.Equal(e.Want, e.Got) && kind != CorruptMisdirected && kind != CorruptStale && kind != CorruptOverwritten {
		e.Detail += " (the data area is as expected)"
	}
	return e
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
