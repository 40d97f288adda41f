package histlog_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

// Two jobs log a histogram of their reads every second, as fio does
// with --write_hist_log; Merge sums them second by second.
func Example() {
	var logs [2]bytes.Buffer
	for job := range logs {
		w, err := histlog.NewWriter(&logs[job], 0)
		if err != nil {
			panic(err)
		}
		h := latency.NewFio()
		for sec := 1; sec <= 3; sec++ {
			h.Reset() // a per-interval histogram, not a running one
			for i := range 100 {
				h.Add(uint64(100_000 + 2_000*i*(job+1)*sec)) // ns
			}
			if err := w.WriteInterval(uint64(sec*1000), histlog.Read, 4096, h); err != nil {
				panic(err)
			}
		}
		if err := w.Flush(); err != nil {
			panic(err)
		}
	}
	var inputs []histlog.Input
	for job := range logs {
		b := logs[job].Bytes()
		inputs = append(inputs, histlog.Input{
			Label: fmt.Sprintf("host%d/job", job+1),
			Path:  fmt.Sprintf("job%d.log", job+1),
			Open:  func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		})
	}
	cfg := histlog.Config{Percentiles: []float64{50, 99}, Directions: []histlog.Direction{histlog.Read}, ByInput: true}
	if _, err := histlog.Merge(context.Background(), inputs, cfg, histlog.NewCSVSink(os.Stdout, histlog.Microsecond)); err != nil {
		panic(err)
	}
	// Output:
	// time_ms,direction,inputs,samples,min,p50,p99,max,samples:host1/job,samples:host2/job
	// 0,read,2,200,99.328,232.448,491.52,499.712,100,100
	// 1000,read,2,200,99.328,362.496,876.544,892.928,100,100
	// 2000,read,2,200,99.328,497.664,1269.76,1294.34,100,100
}

// Reader reads logs row by row; a malformed row stops it with an error
// naming the file, line and column.
func ExampleReader() {
	log := "1000, 0, 4096, 1, 2" + strings.Repeat(", 0", 27) + "\n" +
		"1000, 1, 4096, 3" + strings.Repeat(", 0", 28) + "\n" +
		"2000, 0, 4096, x" + strings.Repeat(", 0", 28) + "\n"
	rd := histlog.NewReader(strings.NewReader(log), "h_clat_hist.1.log", histlog.ReaderOptions{})
	for rd.Scan() {
		rec := rd.Record()
		fmt.Println(rec.Time, rec.Dir, rec.Counts[:3])
	}
	fmt.Println(rd.Format())
	fmt.Println(rd.Err())
	// Output:
	// 1000 read [1 2 0]
	// 1000 write [3 0 0]
	// 29 groups, coarseness 6, fio 3 (29 columns)
	// histlog: h_clat_hist.1.log:3: column 4: not a non-negative integer: "x"
}
