package latency

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadFio: any input gives a result or an error, never a panic, and
// any histogram rebuilt from it answers percentiles.
func FuzzReadFio(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "fio", "tiny-n25.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"jobs":[{"jobname":"a","read":{"clat_ns":{"N":2,"percentile":{"50.000000":129},"bins":{"129":1,"17112760320":1}}}}]}`))
	f.Add([]byte(`{"jobs":[{"read":{"clat_ns":{"bins":{"18446744073709551615":18446744073709551615,"1":1}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ReadFio(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for _, job := range out.Jobs {
			job.EachStat(func(dir, stat string, s *FioStat) {
				if h, err := s.Histogram(FioLayout); err == nil {
					h.Percentiles(s.Percentile.Percentiles())
					h.PercentileInterpolated(99)
				}
			})
		}
	})
}

func FuzzParsePercentileList(f *testing.F) {
	for _, s := range []string{"99:99.9", "1,5,0,7", "", "101", "1e2", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePercentileList(s)
		if err != nil {
			return
		}
		if len(ps) > MaxPercentiles {
			t.Fatalf("%q: %d entries", s, len(ps))
		}
		for i, p := range ps {
			if p <= 0 || p > 100 || (i > 0 && p < ps[i-1]) {
				t.Fatalf("%q: bad list %v", s, ps)
			}
		}
	})
}
