package histlog

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// recSink keeps copies of the rows it receives.
type recSink struct {
	sum   *Summary
	rows  []Row
	ended bool
}

func (s *recSink) Begin(x *Summary) error { s.sum = x; return nil }
func (s *recSink) End(*Summary) error     { s.ended = true; return nil }
func (s *recSink) Row(r *Row) error {
	c := *r
	c.Percentiles = slices.Clone(r.Percentiles)
	c.ByInput = slices.Clone(r.ByInput)
	s.rows = append(s.rows, c)
	return nil
}

// series returns one figure of direction d's rows, quantum by quantum.
func (s *recSink) series(d Direction, f func(Row) float64) []float64 {
	var out []float64
	for _, r := range s.rows {
		if r.Dir == d {
			out = append(out, f(r))
		}
	}
	return out
}

func samplesOf(r Row) float64 { return r.Samples }
func inputsOf(r Row) float64  { return float64(r.Inputs) }

func merge(t *testing.T, inputs []Input, cfg Config) *recSink {
	t.Helper()
	s := &recSink{}
	if _, err := Merge(context.Background(), inputs, cfg, s); err != nil {
		t.Fatal(err)
	}
	if !s.ended {
		t.Fatal("Sink.End not called")
	}
	return s
}

var approx = cmpopts.EquateApprox(1e-12, 1e-9)

func TestMergeAlignment(t *testing.T) {
	c := func(n uint64) []uint64 { return coarse(10, n) }
	tests := []struct {
		name   string
		logs   []string
		cfg    Config
		dir    Direction
		want   []float64 // samples per quantum
		inputs []float64 // logs covering each quantum
	}{
		{"a row covers the interval before it, spread by overlap",
			[]string{logRow(1500, Read, c(100)...) + logRow(2500, Read, c(200)...)},
			Config{LogHistMsec: 1000}, Read, []float64{50, 150, 100}, []float64{1, 1, 1}},
		{"the interval is inferred from the rows",
			[]string{logRow(1500, Read, c(100)...) + logRow(2500, Read, c(200)...) + logRow(3500, Read, c(10)...)},
			Config{}, Read, []float64{50, 150, 105, 5}, []float64{1, 1, 1, 1}},
		{"half-second quanta",
			[]string{logRow(1500, Write, c(100)...) + logRow(2500, Write, c(200)...)},
			Config{LogHistMsec: 1000, Quantum: 500 * time.Millisecond}, Write, []float64{0, 50, 50, 100, 100}, []float64{1, 1, 1, 1, 1}},
		{"three-second quanta",
			[]string{logRow(1500, Write, c(100)...) + logRow(2500, Write, c(200)...) + logRow(3500, Write, c(40)...)},
			Config{LogHistMsec: 1000, Quantum: 3 * time.Second}, Write, []float64{320, 20}, []float64{1, 1}},
		{"an idle direction's next row covers one interval",
			[]string{logRow(1000, Read, c(10)...) + logRow(2000, Read, c(10)...) + logRow(9000, Read, c(10)...)},
			Config{LogHistMsec: 1000}, Read, []float64{10, 10, 0, 0, 0, 0, 0, 0, 10}, slices.Repeat([]float64{1}, 9)},
		{"logs of different spans: their union, and who covers what",
			[]string{logRow(1000, Read, c(1)...) + logRow(2000, Read, c(1)...) + logRow(3000, Read, c(1)...),
				logRow(1000, Read, c(2)...) + logRow(2000, Read, c(2)...) + logRow(3000, Read, c(2)...) + logRow(4000, Read, c(2)...) + logRow(5000, Read, c(2)...)},
			Config{}, Read, []float64{3, 3, 3, 2, 2}, []float64{2, 2, 2, 1, 1}},
		{"directions add up in All",
			[]string{logRow(1000, Read, c(1)...) + logRow(1000, Write, c(2)...) + logRow(1000, Trim, c(4)...) + logRow(2000, Write, c(8)...)},
			Config{LogHistMsec: 1000}, All, []float64{7, 8}, []float64{1, 1}},
		{"one epoch row and no interval: all in the quantum before it",
			[]string{logRow(1700000000500, Read, c(9)...)},
			Config{}, Read, []float64{9}, []float64{0}},
		{"epoch logs start at the earliest",
			[]string{logRow(1700000001000, Read, c(4)...) + logRow(1700000002000, Read, c(4)...),
				logRow(1700000002000, Read, c(6)...) + logRow(1700000003000, Read, c(6)...)},
			Config{}, Read, []float64{4, 10, 6}, []float64{1, 2, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var inputs []Input
			for i, l := range tc.logs {
				inputs = append(inputs, memInput(string(rune('a'+i)), l))
			}
			s := merge(t, inputs, tc.cfg)
			if diff := cmp.Diff(tc.want, s.series(tc.dir, samplesOf), approx); diff != "" {
				t.Errorf("samples per quantum (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.inputs, s.series(tc.dir, inputsOf)); diff != "" {
				t.Errorf("logs per quantum (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeFigures(t *testing.T) {
	// One quantum: 10 completions in [256, 512) ns and 30 in [1024, 2048)
	// (columns 3 and 5 of a coarseness-6 log).
	log := memInput("a", logRow(1000, Read, coarse(3, 10, 5, 30)...))
	s := merge(t, []Input{log}, Config{LogHistMsec: 1000, Percentiles: []float64{0, 25, 50, 100}, Directions: []Direction{Read, Trim}})
	got := s.rows[0]
	want := Row{Time: 0, Dir: Read, Inputs: 1, Samples: 40, Min: 256, Max: 2048,
		// rank 0: the bottom of the first bucket; 10: the top of it; 20:
		// a third into the second; 40: its top.
		Percentiles: []float64{256, 512, 1024 + 1024.0/3, 2048}}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("read row (-want +got):\n%s", diff)
	}
	trim := s.rows[1]
	if trim.Dir != Trim || trim.Samples != 0 || !math.IsNaN(trim.Min) || !math.IsNaN(trim.Max) || !math.IsNaN(trim.Percentiles[2]) {
		t.Errorf("empty trim row: %+v, want zero samples and NaN figures", trim)
	}
}

func TestMergeMixedResolutions(t *testing.T) {
	// A fine fio log and a coarse one merge at the coarse resolution: the
	// fine log's 2 completions in bucket 700 ([63488, 64000) ns) land in
	// column 10 ([32768, 65536) ns).
	fine := make([]uint64, 1856)
	fine[700] = 2
	inputs := []Input{memInput("fine", logRow(1000, Read, fine...)), memInput("coarse", logRow(1000, Read, coarse(10, 6)...))}
	s := merge(t, inputs, Config{LogHistMsec: 1000, Directions: []Direction{Read}, ByInput: true, Percentiles: []float64{50}})
	if s.sum.Format.Coarseness != 6 || s.sum.Format.Columns() != 29 {
		t.Fatalf("merged format %v, want coarseness 6", s.sum.Format)
	}
	r := s.rows[0]
	want := Row{Time: 0, Dir: Read, Inputs: 2, Samples: 8, Min: 32768, Max: 65536, Percentiles: []float64{32768 + 32768/2}, ByInput: []float64{2, 6}}
	if diff := cmp.Diff(want, r, approx); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}

// fileTotals sums every count of fio logs, per direction.
func fileTotals(t *testing.T, paths []string) [NumDirections]float64 {
	var tot [NumDirections]float64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd := NewReader(f, p, ReaderOptions{})
		for rd.Scan() {
			for _, c := range rd.Record().Counts {
				tot[rd.Record().Dir] += float64(c)
			}
		}
		f.Close()
		if rd.Err() != nil {
			t.Fatal(rd.Err())
		}
	}
	return tot
}

func TestMergeConservesCountsAndIgnoresTheWindow(t *testing.T) {
	for _, set := range []string{"testdata/fio/*.log", "testdata/edge/epoch-*.log", "testdata/edge/rel-*.log"} {
		paths, _ := filepath.Glob(set)
		var inputs []Input
		for _, p := range paths {
			inputs = append(inputs, ParseInput(p))
		}
		want := fileTotals(t, paths)
		var outputs []string
		for _, w := range []int{0, 1, 3} {
			forceWindow = w
			var csv bytes.Buffer
			rs := &recSink{}
			_, err := Merge(context.Background(), inputs, Config{ByInput: true}, teeSink{NewCSVSink(&csv, Microsecond), rs})
			forceWindow = 0
			if err != nil {
				t.Fatal(err)
			}
			outputs = append(outputs, csv.String())
			var got [NumDirections]float64
			var all, byInput float64
			for _, r := range rs.rows {
				if r.Dir == All {
					all += r.Samples
					for _, v := range r.ByInput {
						byInput += v
					}
				} else {
					got[r.Dir] += r.Samples
				}
			}
			if diff := cmp.Diff(want, got, approx); diff != "" {
				t.Errorf("%s window %d: completions per direction (-files +merged):\n%s", set, w, diff)
			}
			total := want[0] + want[1] + want[2]
			if !approxEqual(all, total, 1e-9) || !approxEqual(byInput, total, 1e-9) {
				t.Errorf("%s window %d: all %v, by input %v, want %v", set, w, all, byInput, total)
			}
		}
		for i := range outputs[1:] {
			if outputs[i+1] != outputs[0] {
				t.Errorf("%s: the output depends on the window:\n%s", set, cmp.Diff(outputs[0], outputs[i+1]))
			}
		}
	}
}

type teeSink []Sink

func (t teeSink) Begin(s *Summary) error { return t.each(func(k Sink) error { return k.Begin(s) }) }
func (t teeSink) Row(r *Row) error       { return t.each(func(k Sink) error { return k.Row(r) }) }
func (t teeSink) End(s *Summary) error   { return t.each(func(k Sink) error { return k.End(s) }) }
func (t teeSink) each(f func(Sink) error) error {
	for _, k := range t {
		if err := f(k); err != nil {
			return err
		}
	}
	return nil
}

func TestMergeLateRows(t *testing.T) {
	// A read row written long after later write rows: what it holds for
	// quanta already reported goes to the first one still open, counted
	// in Summary.Late; nothing is lost.
	var b strings.Builder
	for k := uint64(1); k <= 12; k++ {
		b.WriteString(logRow(k*1000, Write, coarse(4, 1)...))
	}
	b.WriteString(logRow(1500, Read, coarse(4, 5)...))
	forceWindow = 1
	defer func() { forceWindow = 0 }()
	s := merge(t, []Input{memInput("a", b.String())}, Config{LogHistMsec: 1000, Directions: []Direction{Read, All}})
	if s.sum.Late != 1 {
		t.Errorf("Late = %d, want 1", s.sum.Late)
	}
	var reads, all float64
	for _, r := range s.rows {
		if r.Dir == Read {
			reads += r.Samples
		} else {
			all += r.Samples
		}
	}
	if reads != 5 || all != 17 {
		t.Errorf("read completions %v, all %v; want 5 and 17", reads, all)
	}
}

func TestMergeStreamsEqualFiles(t *testing.T) {
	// A log that cannot seek (a pipe, a .gz file) is read through for its
	// last row: the same output.
	b, err := os.ReadFile("testdata/fio/h_clat_hist.4.log")
	if err != nil {
		t.Fatal(err)
	}
	var outs [2]bytes.Buffer
	for i, in := range []Input{memInput("h", string(b)), streamInput("h", string(b))} {
		if _, err := Merge(context.Background(), []Input{in}, Config{}, NewJSONSink(&outs[i], Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if outs[0].String() != outs[1].String() {
		t.Errorf("seekable and streamed inputs differ:\n%s", cmp.Diff(outs[0].String(), outs[1].String()))
	}
}

func TestMergeErrors(t *testing.T) {
	ok := logRow(1000, Read, coarse(3, 1)...)
	fio2 := logRow(1000, Read, make([]uint64, 19)...)
	tests := []struct {
		name     string
		inputs   []Input
		cfg      Config
		sentinel error
		text     string
	}{
		{"no inputs", nil, Config{}, nil, "no input"},
		{"fio 2 with fio 3", []Input{memInput("a", ok), memInput("b", fio2)}, Config{}, ErrFormat, "b.log a fio 2 log"},
		{"relative with epoch times", []Input{memInput("a", ok), memInput("b", logRow(1700000000000, Read, coarse()...))}, Config{}, ErrTimeBase, "b.log"},
		{"malformed row", []Input{memInput("a", ok+ok+"3000, 1, 4096, 1, 2\n"+ok)}, Config{}, ErrColumns, "a.log:3:"},
		{"malformed row past the first rows", []Input{memInput("a", strings.Repeat(ok, 20)+"3000, 1, 4096, x\n")}, Config{}, ErrSyntax, "a.log:21: column 4"},
		{"malformed last row of a stream", []Input{streamInput("a", strings.Repeat(ok, 20)+"3000, 1\n")}, Config{}, ErrColumns, "a.log:21:"},
		{"empty log", []Input{memInput("a", "\n")}, Config{}, ErrNoRows, "a.log"},
		{"missing file", []Input{{Path: "testdata/nothing.log"}}, Config{}, os.ErrNotExist, "nothing.log"},
		{"sub-millisecond quantum", []Input{memInput("a", ok)}, Config{Quantum: 1500 * time.Microsecond}, nil, "quantum"},
		{"percentile over 100", []Input{memInput("a", ok)}, Config{Percentiles: []float64{100.5}}, nil, "percentile 100.5"},
		{"negative interval", []Input{memInput("a", ok)}, Config{LogHistMsec: -1}, nil, "log_hist_msec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(context.Background(), tc.inputs, tc.cfg, &recSink{})
			if err == nil || !strings.Contains(err.Error(), tc.text) || (tc.sentinel != nil && !errors.Is(err, tc.sentinel)) {
				t.Errorf("error %v: want %q and %v", err, tc.text, tc.sentinel)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "histlog: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestMergeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Merge(ctx, []Input{ParseInput("testdata/fio/h_clat_hist.1.log")}, Config{}, &recSink{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
