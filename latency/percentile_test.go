package latency

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fioRecordings lists the fio 3.33 json+ outputs recorded by
// testdata/fio/record.sh at the repository root.
func fioRecordings(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "fio", "*.json"))
	if err != nil || len(files) < 5 {
		t.Fatalf("recorded fio outputs: %v (%d files)", err, len(files))
	}
	return files
}

func readFioFile(t testing.TB, path string) *FioOutput {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := ReadFio(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The central promise: from fio's json+ bins, every percentile fio printed
// is reproduced exactly, for every recorded job, direction and stat.
func TestPercentilesMatchRecordedFio(t *testing.T) {
	checked := 0
	eachRecordedStat(t, func(name string, s *FioStat) {
		if len(s.Percentile) == 0 {
			return
		}
		h, err := s.Histogram(FioLayout)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := PercentileList{}
		for _, pv := range s.Percentile {
			got = append(got, PercentileValue{P: pv.P, Value: h.Percentile(pv.P)})
		}
		if diff := cmp.Diff(s.Percentile, got); diff != "" {
			t.Errorf("%s: percentiles differ from fio's (-fio +ours):\n%s", name, diff)
		}
		checked += len(got)
	})
	if checked < 100 {
		t.Fatalf("only %d percentile values checked", checked)
	}
	t.Logf("%d percentile values equal fio's", checked)
}

// Thresholds at and around integer boundaries.
func TestFioThresholdKnownCases(t *testing.T) {
	cases := []struct {
		name string
		p    float64
		n    uint64
		want uint64
	}{
		{"n25-p60", 60, 25, 15},
		// RN64(2000*C) = 20 exactly; 20 * 99.95 (a double just above
		// 99.95) = 1999.0000000000000568 in 64 bits: the 2000th value.
		// float64 p/100*n rounds to 1999.0 and would take the 1999th.
		{"n2000-p99.95", 99.95, 2000, 2000},
		{"n25-p4", 4, 25, 1},
		{"n100-p50", 50, 100, 50},
		{"n1-p100", 100, 1, 1},
		{"n0", 50, 0, 0},
		// 672846.7086 rounds up; a truncating conversion that claimed
		// exactness once made this 672846 (slat p99.99 of a recorded run).
		{"n672914-p99.99", 99.99, 672914, 672847},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FioThreshold(c.p, c.n); got != c.want {
				t.Errorf("FioThreshold(%v, %d) = %d, want %d", c.p, c.n, got, c.want)
			}
		})
	}
}

// The threshold never exceeds n for p <= 100 and never decreases in p, so
// every percentile of a non-empty histogram is found by the bucket walk.
func TestFioThresholdBounds(t *testing.T) {
	for n := uint64(1); n <= 3000; n++ {
		prev := uint64(0)
		for _, p := range append(DefaultPercentiles, 99.999, 100) {
			th := FioThreshold(p, n)
			if th > n || th < prev {
				t.Fatalf("FioThreshold(%v, %d) = %d (previous %d)", p, n, th, prev)
			}
			prev = th
		}
	}
	for _, n := range []uint64{1 << 40, 1<<63 + 12345, math.MaxUint64} {
		if th := FioThreshold(100, n); th > n {
			t.Fatalf("FioThreshold(100, %d) = %d", n, th)
		}
	}
}

func TestParsePercentileList(t *testing.T) {
	cases := []struct {
		name, in string
		want     []float64
		err      bool
	}{
		{"fio-syntax", "99:99.9:50", []float64{50, 99, 99.9}, false},
		{"cut-at-zero", "50:0:99", []float64{50}, false},
		{"commas", "1,5", []float64{1, 5}, false},
		{"too-big", "101", nil, true},
		{"negative", "-1", nil, true},
		{"not-a-number", "5:x", nil, true},
		{"nan", "NaN", nil, true},
		{"empty", "", nil, true},
		{"too-many", "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePercentileList(c.in)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if diff := cmp.Diff(c.want, got); !c.err && diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPercentileKey(t *testing.T) {
	for p, want := range map[float64]string{99.9: "99.900000", 1: "1.000000", 33.333: "33.333000", 100: "100.000000"} {
		if got := PercentileKey(p); got != want {
			t.Errorf("PercentileKey(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestPercentileInterpolated(t *testing.T) {
	h := NewFio()
	for v := uint64(1000); v < 2000; v++ {
		h.Add(v)
	}
	// Uniform values: interpolation lands within a bucket width of the truth.
	for _, p := range []float64{1, 25, 50, 90, 99} {
		truth := 1000 + p/100*1000
		got := h.PercentileInterpolated(p)
		if math.Abs(got-truth) > 1000.0/64 {
			t.Errorf("p%v = %v, true %v", p, got, truth)
		}
	}
	if got := h.PercentileInterpolated(100); got != 1999 {
		t.Errorf("p100 = %v, want the max 1999", got)
	}
	one := NewFio()
	one.Add(5000)
	if got := one.PercentileInterpolated(50); got != 5000 {
		t.Errorf("single value p50 = %v", got)
	}
	if NewFio().PercentileInterpolated(50) != 0 {
		t.Error("empty histogram p50 != 0")
	}
}

// The recordings must keep cases where plain float64 arithmetic picks
// another bucket than fio did, or TestPercentilesMatchRecordedFio would not
// be testing the long-double threshold at all.
func TestRecordingsDiscriminateFloat64(t *testing.T) {
	discriminating := 0
	eachRecordedStat(t, func(name string, s *FioStat) {
		if len(s.Bins) == 0 {
			return
		}
		h, err := s.Histogram(FioLayout)
		if err != nil {
			t.Fatal(err)
		}
		for _, pv := range s.Percentile {
			naive := valueAtCount(h, uint64(math.Ceil(pv.P/100*float64(h.Count()))))
			if naive != pv.Value && h.Percentile(pv.P) == pv.Value {
				discriminating++
			}
		}
	})
	if discriminating < 3 {
		t.Fatalf("%d recorded percentiles tell fio's arithmetic from float64's, want >= 3", discriminating)
	}
}

func valueAtCount(h *Histogram, want uint64) uint64 {
	var sum uint64
	for i, c := range h.Counts() {
		sum += c
		if c != 0 && sum >= want {
			return h.Layout().Value(i)
		}
	}
	return 0
}

// eachRecordedStat calls fn for every latency stat of every job and
// direction of the recorded fio outputs, named file/job/direction/stat.
func eachRecordedStat(t *testing.T, fn func(name string, s *FioStat)) {
	t.Helper()
	for _, path := range fioRecordings(t) {
		for _, job := range readFioFile(t, path).Jobs {
			job.EachStat(func(dir, stat string, s *FioStat) {
				fn(filepath.Base(path)+"/"+job.Name+"/"+dir+"/"+stat, s)
			})
		}
	}
}
