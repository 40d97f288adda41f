package histlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
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

// BenchmarkMergeThousandLogs merges 1,000 logs of fio's 1856 columns
// (TestMergeThousandLogs's, of HISTLOG_SCALE_SECONDS rows per direction,
// default 120: 1.3 GB) from files, as `stortest hist merge` does, and
// reports the peak growth of the heap and the most files open during a
// merge (scripts/bench-histlog.sh runs it).
func BenchmarkMergeThousandLogs(b *testing.B) {
	seconds := scaleSeconds
	if s, err := strconv.Atoi(os.Getenv("HISTLOG_SCALE_SECONDS")); err == nil && s > 13 {
		seconds = s
	}
	paths, ref := genScaleLogs(b, b.TempDir(), scaleLogs, seconds, scaleCols)
	inputs := make([]Input, len(paths))
	for i, p := range paths {
		inputs[i] = ParseInput(p)
	}
	b.SetBytes(ref.bytes)
	files0 := openFiles()
	var growth, live uint64
	files := 0
	for b.Loop() {
		runtime.GC()
		heap0, live0 := heapNow()
		mon := startMonitor()
		_, err := Merge(context.Background(), inputs, Config{}, NewCSVSink(io.Discard, Microsecond))
		mon.finish()
		if err != nil {
			b.Fatal(err)
		}
		growth = max(growth, mon.heapPeak-min(mon.heapPeak, heap0))
		live = max(live, mon.livePeak-min(mon.livePeak, live0))
		files = max(files, mon.filesPeak-files0)
	}
	b.ReportMetric(float64(growth)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(live)/1e6, "peak-live-MB")
	b.ReportMetric(float64(files), "open-files")
	b.ReportMetric(float64(ref.rows), "rows")
}
