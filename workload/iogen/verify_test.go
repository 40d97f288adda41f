package iogen

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

func newVerifier(t testing.TB, k workload.VerifyKind, pattern string) *Verifier {
	t.Helper()
	v, err := NewVerifier(k, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyRoundTrip(t *testing.T) {
	for _, k := range []workload.VerifyKind{workload.VerifyCRC32C, workload.VerifySHA256} {
		for _, pattern := range []string{"", `0xdeadbeef"xyz"`} {
			for _, size := range []int{workload.VerifyHeaderSize, 512, 4096, 4100} {
				t.Run(fmt.Sprintf("%v/%q/%d", k, pattern, size), func(t *testing.T) {
					v := newVerifier(t, k, pattern)
					buf := make([]byte, size)
					v.Fill(buf, 1<<40, 77)
					if err := v.Check(buf, 1<<40, 77); err != nil {
						t.Fatal(err)
					}
					again := make([]byte, size)
					v.Fill(again, 1<<40, 77)
					if !bytes.Equal(buf, again) {
						t.Error("Fill is not deterministic")
					}
					if size > workload.VerifyHeaderSize {
						v.Fill(again, 1<<40, 78)
						same := bytes.Equal(buf[workload.VerifyHeaderSize:], again[workload.VerifyHeaderSize:])
						if pattern == "" && same {
							t.Error("another seed gives the same data")
						}
						if pattern != "" && !same {
							t.Error("a fixed pattern depends on the seed")
						}
					}
				})
			}
		}
	}
	// The pattern repeats through the data area.
	v := newVerifier(t, workload.VerifyCRC32C, `0x0102"ab"`)
	buf := make([]byte, 4096)
	v.Fill(buf, 0, 0)
	if want := bytes.Repeat([]byte{1, 2, 'a', 'b'}, 1008); !bytes.Equal(buf[workload.VerifyHeaderSize:], want) {
		t.Errorf("data area %x..., want the pattern repeated", buf[workload.VerifyHeaderSize:workload.VerifyHeaderSize+16])
	}
}

func TestVerifyCorruption(t *testing.T) {
	const off, seed, size = 4096, 9, 4096
	good := func(v *Verifier) []byte {
		b := make([]byte, size)
		v.Fill(b, off, seed)
		return b
	}
	for _, k := range []workload.VerifyKind{workload.VerifyCRC32C, workload.VerifySHA256} {
		v := newVerifier(t, k, "")
		other := workload.VerifySHA256
		if k == workload.VerifySHA256 {
			other = workload.VerifyCRC32C
		}
		for _, tc := range []struct {
			name  string
			block func() []byte
			kind  Corruption
			check func(t *testing.T, e *VerifyError)
		}{
			{"zeroed", func() []byte { return make([]byte, size) }, CorruptZeroed, nil},
			{"foreign", func() []byte {
				b := make([]byte, size)
				r := rand.New(rand.NewPCG(1, 2))
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				return b
			}, CorruptForeign, nil},
			{"header bit", func() []byte { b := good(v); b[10] ^= 0x10; return b }, CorruptHeader, nil},
			{"stored checksum bit", func() []byte { b := good(v); b[33] ^= 1; return b }, CorruptHeader, nil},
			{"data bit", func() []byte { b := good(v); b[1000] ^= 0x04; return b }, CorruptData, func(t *testing.T, e *VerifyError) {
				if e.FirstBad != 1000 || e.BadBytes != 1 || e.FlippedBits != 1 {
					t.Errorf("first bad %d, bad bytes %d, flipped bits %d; want 1000, 1, 1", e.FirstBad, e.BadBytes, e.FlippedBits)
				}
			}},
			{"torn write", func() []byte {
				b := good(v)
				older := make([]byte, size)
				v.Fill(older, off, seed-1)
				copy(b[2048:], older[2048:]) // the second half is from the previous write
				return b
			}, CorruptData, func(t *testing.T, e *VerifyError) {
				if e.FirstBad < 2048 || e.FirstBad > 2056 || e.BadBytes < 2000 {
					t.Errorf("first bad %d, bad bytes %d: want the second half", e.FirstBad, e.BadBytes)
				}
			}},
			{"misdirected", func() []byte { b := make([]byte, size); v.Fill(b, 3*off, seed); return b }, CorruptMisdirected,
				func(t *testing.T, e *VerifyError) {
					if e.FoundOffset != 3*off || e.FoundSeed != seed {
						t.Errorf("found offset %d seed %d", e.FoundOffset, e.FoundSeed)
					}
				}},
			{"stale", func() []byte { b := make([]byte, size); v.Fill(b, off, seed-1); return b }, CorruptStale,
				func(t *testing.T, e *VerifyError) {
					if e.FoundSeed != seed-1 || e.WantSeed != seed {
						t.Errorf("found seed %d want %d", e.FoundSeed, e.WantSeed)
					}
				}},
			{"length", func() []byte { b := make([]byte, 2*size); v.Fill(b, off, seed); return b[:size] }, CorruptLength,
				func(t *testing.T, e *VerifyError) {
					if e.FoundLen != 2*size {
						t.Errorf("found length %d", e.FoundLen)
					}
				}},
			{"other checksum", func() []byte { b := make([]byte, size); newVerifier(t, other, "").Fill(b, off, seed); return b }, CorruptForeign, nil},
			{"short", func() []byte { return make([]byte, 10) }, CorruptLength, nil},
		} {
			t.Run(k.String()+"/"+tc.name, func(t *testing.T) {
				b := tc.block()
				err := v.Check(b, off, seed)
				var e *VerifyError
				if !errors.As(err, &e) || !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Check = %v, want a *VerifyError", err)
				}
				if e.Kind != tc.kind {
					t.Errorf("kind %v, want %v (%v)", e.Kind, tc.kind, err)
				}
				if e.Offset != off || e.Len != len(b) {
					t.Errorf("offset %d len %d", e.Offset, e.Len)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("offset %d", off)) || !strings.Contains(err.Error(), tc.kind.String()) {
					t.Errorf("message %q lacks the offset or the kind", err)
				}
				if len(b) >= workload.VerifyHeaderSize {
					dataDiffers := tc.kind != CorruptHeader && tc.kind != CorruptLength && tc.name != "other checksum"
					if len(e.Want) != v.sumLen() || len(e.Got) != v.sumLen() || bytes.Equal(e.Want, e.Got) != !dataDiffers {
						t.Errorf("want %x got %x: want %d-byte checksums, different: %v", e.Want, e.Got, v.sumLen(), dataDiffers)
					}
					if !strings.Contains(err.Error(), fmt.Sprintf("want %x got %x", e.Want, e.Got)) {
						t.Errorf("message %q lacks the checksums", err)
					}
				}
				if tc.check != nil {
					tc.check(t, e)
				}
			})
		}
	}
}

func TestParseVerifyPattern(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []byte
	}{
		{"", nil},
		{"0xff", []byte{0xff}},
		{"0xf", []byte{0x0f}},
		{"0XdeadBEEF", []byte{0xde, 0xad, 0xbe, 0xef}},
		{`"abc"`, []byte("abc")},
		{`0x01"ab"0x0203`, []byte{1, 'a', 'b', 2, 3}},
	} {
		got, err := fio.ParseVerifyPattern(tc.in)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("ParseVerifyPattern(%q) = %x, %v; want %x", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"0x", "without hexadecimal"},
		{"0xzz", "without hexadecimal"},
		{`"abc`, "unterminated"},
		{`""`, "empty pattern"},
		{"%o", "not supported"},
		{"255", "decimal"},
		{"abc", "unexpected"},
		{"0x" + strings.Repeat("ab", 513), "longer than 512"},
	} {
		_, err := fio.ParseVerifyPattern(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseVerifyPattern(%q) = %v, want an error mentioning %q", tc.in, err, tc.msg)
		}
	}
}

func TestNewVerifierErrors(t *testing.T) {
	if _, err := NewVerifier(workload.VerifyNone, ""); err == nil {
		t.Error("NewVerifier(none): want an error")
	}
	if _, err := NewVerifier(workload.VerifyCRC32C, "%o"); err == nil {
		t.Error("NewVerifier with an offset pattern: want an error")
	}
}

func TestVerifyAllocs(t *testing.T) {
	for _, k := range []workload.VerifyKind{workload.VerifyCRC32C, workload.VerifySHA256} {
		v := newVerifier(t, k, "")
		buf := make([]byte, 4096)
		if a := testing.AllocsPerRun(100, func() { v.Fill(buf, 8192, 3) }); a != 0 {
			t.Errorf("%v: Fill allocates %v times", k, a)
		}
		if a := testing.AllocsPerRun(100, func() {
			if v.Check(buf, 8192, 3) != nil {
				panic("check failed")
			}
		}); a != 0 {
			t.Errorf("%v: Check allocates %v times", k, a)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, k := range []workload.VerifyKind{workload.VerifyCRC32C, workload.VerifySHA256} {
		v := newVerifier(b, k, "")
		buf := make([]byte, 4096)
		b.Run(k.String()+"/Fill4k", func(b *testing.B) {
			b.SetBytes(4096)
			b.ReportAllocs()
			for b.Loop() {
				v.Fill(buf, 4096, 1)
			}
		})
		b.Run(k.String()+"/Check4k", func(b *testing.B) {
			v.Fill(buf, 4096, 1)
			b.SetBytes(4096)
			b.ReportAllocs()
			for b.Loop() {
				if v.Check(buf, 4096, 1) != nil {
					b.Fatal("check failed")
				}
			}
		})
	}
}

func TestVerifyEveryKind(t *testing.T) {
	for k := workload.VerifyCRC32C; k < workload.NumVerifyKinds; k++ {
		t.Run(k.String(), func(t *testing.T) {
			pattern := ""
			if k == workload.VerifyPatternKind {
				pattern = "0xaa55"
			}
			v := newVerifier(t, k, pattern)
			buf := make([]byte, 4096)
			v.Fill(buf, 8192, 5)
			if err := v.Check(buf, 8192, 5); err != nil {
				t.Fatal(err)
			}
			if got := testing.AllocsPerRun(20, func() { _ = v.Check(buf, 8192, 5) }); got != 0 {
				t.Errorf("Check allocates %v times", got)
			}
			buf[1000] ^= 1
			err := v.Check(buf, 8192, 5)
			switch k {
			case workload.VerifyMeta, workload.VerifyNull:
				if err != nil {
					t.Errorf("verify=%s checks the data: %v", k, err)
				}
			default:
				if err == nil {
					t.Errorf("verify=%s missed a flipped bit", k)
				}
			}
		})
	}
}

func TestChecksumVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0x02cc5d05}, {"a", 0x550d7456}, {"abc", 0x32d153ff},
		{"Nobody inspects the spammish repetition", 0xe2293b2f},
	} {
		if got := xxhash32([]byte(tc.in)); got != tc.want {
			t.Errorf("xxhash32(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
	// CRC-16/ARC (the kernel's crc16) and CRC-7/MMC of "123456789".
	if got := crc16([]byte("123456789")); got != 0xbb3d {
		t.Errorf("crc16 = %#x, want 0xbb3d", got)
	}
	if got := crc7([]byte("123456789")); got != 0x75 {
		t.Errorf("crc7 = %#x, want 0x75", got)
	}
}
