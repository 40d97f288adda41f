package iogen

import (
	"encoding/binary"
	"hash/crc64"
	"math/bits"
)

// The checksums of fio's verify kinds that the standard library lacks.
// They need only be stable: stortest's verify header is its own, so they
// check stortest's blocks, not fio's.

var crc64ECMA = crc64.MakeTable(crc64.ECMA)

// crc16Table is the Linux kernel's crc16 (polynomial 0x8005, reflected:
// 0xA001), which fio's crc16 is.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0xA001
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16(data []byte) uint16 {
	var c uint16
	for _, b := range data {
		c = c>>8 ^ crc16Table[byte(c)^b]
	}
	return c
}

// crc7Table is CRC-7 (polynomial x^7 + x^3 + 1), MSB first, the register
// kept in the top 7 bits of a byte as the Linux kernel's crc7_be does.
var crc7Table = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x12 // 0x09 << 1
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc7(data []byte) byte {
	var c byte
	for _, b := range data {
		c = crc7Table[c^b]
	}
	return c >> 1
}

// xxhash32 is xxHash32 with seed 0 (fio's verify=xxhash uses xxHash32).
func xxhash32(b []byte) uint32 {
	var (
		p1 uint32 = 2654435761
		p2 uint32 = 2246822519
		p3 uint32 = 3266489917
		p4 uint32 = 668265263
		p5 uint32 = 374761393
	)
	round := func(acc, in uint32) uint32 { return bits.RotateLeft32(acc+in*p2, 13) * p1 }
	n := len(b)
	var h uint32
	if n >= 16 {
		v1, v2, v3, v4 := p1+p2, p2, uint32(0), -p1
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b[0:]))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = p5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*p3, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}
