package fiojob

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"stortest.dev/workload"
)

// anyJobSeeds is how many random jobs the seed corpus of
// FuzzFormatAnyJob holds: each runs in plain go test too.
const anyJobSeeds = 3000

// FuzzFormatAnyJob formats jobs whose every exported field, nested ones
// included, holds an arbitrary value (negative numbers, enums past their
// last name, NaN and infinite floats, odd-length and nil slices, nil and
// set pointers) and that were never validated: Format prints the model,
// and a printer of the model must not panic on any value of it, nor
// change the job it prints.
func FuzzFormatAnyJob(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range anyJobSeeds {
		b := make([]byte, 4096) // enough for every field of a job
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var j, before workload.Job
		fillAny(&filler{data: data}, reflect.ValueOf(&j).Elem())
		fillAny(&filler{data: data}, reflect.ValueOf(&before).Elem())
		s := Format(j)
		if diff := cmp.Diff(before, j, cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("Format changed the job (-before +after):\n%s", diff)
		}
		if again := Format(j); again != s {
			t.Fatalf("Format printed the same job twice differently:\n%s\nthen\n%s", s, again)
		}
	})
}

// filler draws the values fillAny sets from fuzz data; past its end
// every draw is 0, which leaves the remaining fields at their zero value.
type filler struct{ data []byte }

func (f *filler) byte() byte {
	if len(f.data) == 0 {
		return 0
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b
}

func (f *filler) u64() uint64 {
	var b [8]byte
	n := copy(b[:], f.data)
	f.data = f.data[n:]
	return binary.LittleEndian.Uint64(b[:])
}

// int draws a signed value of the given bit size, weighted toward the
// values printers trip on: 0, small ones either side of it, and the
// ends of the type's range.
func (f *filler) int(bits int) int64 {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	switch f.byte() % 8 {
	case 0:
		return 0
	case 1:
		return int64(f.byte() % 16)
	case 2:
		return -int64(f.byte()%16) - 1
	case 3:
		return lo
	case 4:
		return hi
	case 5:
		return int64(f.byte()%200) - 50 // around percentages
	}
	return int64(f.u64()<<(64-bits)) >> (64 - bits)
}

// uint draws an unsigned value the same way, enums past their names
// included.
func (f *filler) uint(bits int) uint64 {
	hi := uint64(1)<<(bits-1)<<1 - 1
	switch f.byte() % 6 {
	case 0:
		return 0
	case 1:
		return uint64(f.byte() % 24)
	case 2:
		return hi
	}
	return f.u64() & hi
}

func (f *filler) float() float64 {
	switch f.byte() % 8 {
	case 0:
		return 0
	case 1:
		return math.NaN()
	case 2:
		return math.Inf(1)
	case 3:
		return math.Inf(-1)
	case 4:
		return -float64(f.byte())
	case 5:
		return float64(f.byte()) / 2
	}
	return math.Float64frombits(f.u64())
}

// oddRunes are characters a job file gives a meaning to.
const oddRunes = "[]=:,;#/\\\n\r\t $%{}-.0123456789kKmMé\x00"

func (f *filler) string() string {
	n := int(f.byte() % 12)
	if n > 8 {
		return ""
	}
	var s strings.Builder
	for range n {
		c := f.byte()
		if c < 128 {
			s.WriteByte(oddRunes[int(c)%len(oddRunes)])
		} else {
			s.WriteByte(c) // invalid UTF-8 as well
		}
	}
	return s.String()
}

// fillAny sets every settable part of v from f: struct fields
// (unexported ones are left alone), elements of arrays and slices,
// pointers (nil or pointing at a filled value), maps. It panics on a
// kind it cannot fill (interface, func, chan), so that a field of such
// a kind added to Job fails FuzzFormatAnyJob instead of staying unset.
func fillAny(f *filler, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.byte()&1 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(f.int(v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(f.uint(v.Type().Bits()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f.float())
	case reflect.String:
		v.SetString(f.string())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAny(f, v.Field(i))
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			fillAny(f, v.Index(i))
		}
	case reflect.Slice:
		switch n := int(f.byte() % 10); n {
		case 0:
			v.SetZero() // nil
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1) // empty, then 1 to 8 elements
			for i := range s.Len() {
				fillAny(f, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Pointer:
		if f.byte()%3 == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fillAny(f, p.Elem())
		v.Set(p)
	case reflect.Map:
		n := int(f.byte() % 4)
		if n == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillAny(f, k)
			fillAny(f, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		panic("fillAny: no filler for " + v.Type().String())
	}
}
