package histlog

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/latency"
)

// fioHistogram rebuilds a histogram from a row of fio's log.
func fioHistogram(l latency.Layout, counts []uint64) *latency.Histogram {
	h := latency.New(l)
	for i, c := range counts {
		h.AddBin(l.Value(i), c)
	}
	return h
}

func TestWriterReproducesFiosLog(t *testing.T) {
	// Rows read from a log fio 3.33 wrote, written back: the same bytes.
	want, err := os.ReadFile("testdata/fio/h_clat_hist.1.log")
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(bytes.NewReader(want), "fio", ReaderOptions{})
	var got bytes.Buffer
	w, err := NewWriter(&got, 0)
	if err != nil {
		t.Fatal(err)
	}
	for rd.Scan() {
		rec := rd.Record()
		if err := w.WriteInterval(rec.Time, rec.Dir, uint32(rec.BlockSize), fioHistogram(latency.FioLayout, rec.Counts)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Errorf("written log differs from fio's:\n%s", cmp.Diff(string(want), got.String()))
	}
}

func TestWriterRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, groups := range []int{latency.FioGroups, latency.LongGroups} {
		for c := 0; c <= MaxCoarseness; c++ {
			l := latency.MustLayout(groups)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, c)
			if err != nil {
				t.Fatal(err)
			}
			type interval struct {
				time uint64
				dir  Direction
				bs   uint32
				h    *latency.Histogram
			}
			var want []interval
			for k := range 40 {
				h := latency.New(l)
				for range rng.IntN(500) {
					h.Add(uint64(rng.ExpFloat64() * 2e5 * float64(1+k%7)))
				}
				if k == 5 {
					h.Add(1 << 40) // a stall past fio's ceiling
				}
				iv := interval{uint64(1000 * (k/3 + 1)), Direction(k % 3), uint32(512 << (k % 4)), h}
				want = append(want, iv)
				if err := w.WriteInterval(iv.time, iv.dir, iv.bs, iv.h); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			// Read the log back, without telling the reader the layout when
			// the column count says it (fio's 29 groups, any coarseness; any
			// groups at coarseness 0): 36 groups at coarseness 1 have the
			// columns of 18 at coarseness 0.
			opt := ReaderOptions{}
			if groups != latency.FioGroups && c > 0 {
				opt.Groups = groups
			}
			rd := NewReader(&buf, "rt", opt)
			k := 0
			for ; rd.Scan(); k++ {
				rec, iv := rd.Record(), want[k]
				if f := rd.Format(); f != w.Format() || f.Coarseness != c || f.Layout != l {
					t.Fatalf("groups %d coarseness %d: read format %v, wrote %v", groups, c, f, w.Format())
				}
				folded := make([]uint64, l.Buckets()>>c)
				for i, n := range iv.h.Counts() {
					folded[i>>c] += n
				}
				if rec.Time != iv.time || rec.Dir != iv.dir || rec.BlockSize != uint64(iv.bs) {
					t.Errorf("row %d: %d %v %d, want %d %v %d", k, rec.Time, rec.Dir, rec.BlockSize, iv.time, iv.dir, iv.bs)
				}
				if diff := cmp.Diff(folded, rec.Counts); diff != "" {
					t.Fatalf("groups %d coarseness %d row %d counts (-want +got):\n%s", groups, c, k, diff)
				}
			}
			if err := rd.Err(); err != nil || k != len(want) {
				t.Fatalf("groups %d coarseness %d: read %d rows (%v), want %d", groups, c, k, err, len(want))
			}
		}
	}
}

func TestWriterFormat(t *testing.T) {
	h := latency.NewFio()
	h.Add(3)
	h.Add(3)
	h.Add(130) // bucket 129
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, 6)
	if err := w.WriteInterval(1023, Write, 4096, h); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	want := "1023, 1, 4096, 2, 0, 1" + strings.Repeat(", 0", 26) + "\n"
	if buf.String() != want {
		t.Errorf("row %q, want %q", buf.String(), want)
	}
	if got := FileName("h", 3); got != "h_clat_hist.3.log" {
		t.Errorf("FileName = %q", got)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterErrors(t *testing.T) {
	for _, c := range []int{-1, 7} {
		if _, err := NewWriter(io.Discard, c); err == nil {
			t.Errorf("NewWriter coarseness %d: no error", c)
		}
	}
	w, _ := NewWriter(io.Discard, 0)
	if err := w.WriteInterval(1000, All, 4096, latency.NewFio()); !errors.Is(err, ErrDirection) {
		t.Errorf("direction All: error %v, want ErrDirection", err)
	}
	if err := w.WriteInterval(2000, Read, 4096, latency.NewFio()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterval(1000, Write, 4096, latency.NewFio()); err != nil {
		t.Errorf("another direction's clock: %v", err)
	}
	if err := w.WriteInterval(1999, Read, 4096, latency.NewFio()); !errors.Is(err, ErrTimeBackwards) {
		t.Errorf("time back: error %v, want ErrTimeBackwards", err)
	}
	if err := w.WriteInterval(3000, Read, 4096, latency.New(latency.MustLayout(30))); !errors.Is(err, latency.ErrLayoutMismatch) {
		t.Errorf("other layout: error %v, want ErrLayoutMismatch", err)
	}
	fw := &failWriter{}
	w, _ = NewWriter(fw, 0)
	w.WriteInterval(1, Read, 1, latency.NewFio())
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush: error %v, want the write error", err)
	}
	if err := w.WriteInterval(2, Read, 1, latency.NewFio()); err == nil || fw.n != 1 {
		t.Errorf("after a failed write: error %v, %d writes; want the sticky error and no new write", err, fw.n)
	}
}

func TestWriterAllocatesNothingPerRow(t *testing.T) {
	h := latency.NewFio()
	for v := range uint64(5000) {
		h.Add(v * 977)
	}
	w, _ := NewWriter(io.Discard, 0)
	var tm uint64
	allocs := testing.AllocsPerRun(500, func() {
		tm += 1000
		if err := w.WriteInterval(tm, Read, 4096, h); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per row, want 0", allocs)
	}
}
