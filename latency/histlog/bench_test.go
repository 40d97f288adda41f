package histlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"stortest.dev/latency"
)

// benchLog returns a log of n seconds of mixed reads and writes with
// fio's 1856 columns, about 5.5 KB per row like real logs.
func benchLog(b *testing.B, seconds int, seed uint64) []byte {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, 0)
	h := latency.NewFio()
	for k := 1; k <= seconds; k++ {
		for d := range Direction(2) {
			h.Reset()
			for range 3000 {
				h.Add(uint64(rng.ExpFloat64()*40e3) + 20e3)
			}
			if err := w.WriteInterval(uint64(k*1000+rng.IntN(20)), d, 4096, h); err != nil {
				b.Fatal(err)
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}

func BenchmarkReader(b *testing.B) {
	data := benchLog(b, 200, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(data), "bench", ReaderOptions{})
		for rd.Scan() {
		}
		if rd.Err() != nil {
			b.Fatal(rd.Err())
		}
	}
}

func BenchmarkWriter(b *testing.B) {
	h := latency.NewFio()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		h.Add(uint64(rng.ExpFloat64()*40e3) + 20e3)
	}
	w, _ := NewWriter(io.Discard, 0)
	b.ReportAllocs()
	var t uint64
	for b.Loop() {
		t++
		if err := w.WriteInterval(t, Read, 4096, h); err != nil {
			b.Fatal(err)
		}
	}
}

func benchInputs(b *testing.B) ([]Input, int64) {
	var inputs []Input
	var size int64
	for i := range 8 {
		data := benchLog(b, 120, uint64(i))
		size += int64(len(data))
		inputs = append(inputs, Input{Path: fmt.Sprintf("bench%d.log", i), Open: func() (io.ReadCloser, error) {
			return readSeekNopCloser{bytes.NewReader(data)}, nil
		}})
	}
	return inputs, size
}

func BenchmarkFioPctiles(b *testing.B) {
	inputs, size := benchInputs(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := FioPctiles(context.Background(), io.Discard, inputs, FioOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMerge(b *testing.B) {
	inputs, size := benchInputs(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Merge(context.Background(), inputs, Config{ByInput: true}, NewCSVSink(io.Discard, Microsecond)); err != nil {
			b.Fatal(err)
		}
	}
}
