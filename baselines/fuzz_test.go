package baselines

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecode: any input is a baseline or an *Error, never a panic, and a
// baseline that decodes encodes and decodes again to itself.
func FuzzDecode(f *testing.F) {
	b := synthBaseline(f, 1, 6, false, 9) // small: the fuzzer minimizes what it finds
	good, err := Marshal(b)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(strings.Replace(string(good), `"schema": 4`, `"schema": 7`, 1)))
	f.Add([]byte(strings.Replace(string(good), `"schema": 4`, `"schema": 1`, 1))) // clat_mean in schema 1
	// Schema 3's additions: slices, runs, tolerances, shared and a size.
	multi := synthBaseline(f, 1, 6, false, 10)
	multi.Tolerances = "*.iops=5%"
	multi.Shared = "vda moved 1MiB/s besides the run's I/O"
	multi.Fingerprint.Size = 1 << 30
	multi.SliceInterval = 100 * time.Millisecond
	multi.Slices = []Slice{{T: 100 * time.Millisecond, Dur: 100 * time.Millisecond, Dirs: [3]*SliceDir{{IOs: 3, Bytes: 12}}},
		{T: 200 * time.Millisecond, Dur: 100 * time.Millisecond}}
	if err := multi.AddRun(synthBaseline(f, 1, 5, false, 11)); err == nil {
		if enc, err := Marshal(multi); err == nil {
			f.Add(enc)
		}
	}
	// Schema 4's sessions, at the top and in the runs.
	if enc, err := Marshal(schema4Baseline(f)); err == nil {
		f.Add(enc)
	}
	f.Add([]byte(`{"schema":3,"slices":{"interval_ns":1,"dur_ns":[1,2],"read_ios":[1]},"runs":[{"read":{}}]}`))
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", "tiny-n25.json")); err == nil {
		if bs, err := ImportFio(bytes.NewReader(data), "tiny"); err == nil {
			if enc, err := Marshal(bs[0]); err == nil {
				f.Add(enc)
			}
		}
	}
	for _, name := range []string{"schema1.json", "schema2.json", "schema3.json", "schema4.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema":1,"name":"x","created":"2026-01-01T00:00:00Z","runtime_ns":1,"job":{"name":"x"},` +
		`"dirs":{"read":{"ios":1,"bytes":1,"iops":1,"bw":1,"clat":{"n":1,"min":5,"max":5,"mean":5,"stddev":0,"groups":2,"hist":{"5":1}}}},"seconds":[]}`))
	f.Add([]byte(`{"schema":1,"seconds":[{"t_ns":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		enc, err := Marshal(b)
		if err != nil {
			t.Fatalf("decoded baseline does not encode: %v", err)
		}
		back, err := Decode(bytes.NewReader(enc), "again.json")
		if err != nil {
			t.Fatalf("re-encoded baseline does not decode: %v\n%s", err, enc)
		}
		if diff := cmp.Diff(b, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzImportFio: any input gives baselines or an error, never a panic, and
// every baseline it gives encodes and loads back.
func FuzzImportFio(f *testing.F) {
	for _, name := range []string{"tiny-n25.json", "two-jobs.json"} {
		if data, err := os.ReadFile(filepath.Join("..", "testdata", "fio", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"fio version":"fio-3.33","timestamp":1,"global options":{"bs":"8k"},"jobs":[{"jobname":"j","job options":{"rw":"randwrite","iodepth":"4"},` +
		`"write":{"io_bytes":8192,"bw_bytes":8192,"iops":1,"runtime":1000,"total_ios":1,"iops_samples":1,"iops_mean":1,"iops_min":1,"iops_max":1,` +
		`"clat_ns":{"min":5,"max":5,"mean":5,"stddev":0,"N":1,"percentile":{"99.000000":5},"bins":{"5":1}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, err := ImportFio(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		for _, b := range bs {
			enc, err := Marshal(b)
			if err != nil {
				t.Fatalf("imported baseline %q does not encode: %v", b.Name, err)
			}
			if _, err := Decode(bytes.NewReader(enc), "again.json"); err != nil {
				t.Fatalf("imported baseline %q does not load back: %v", b.Name, err)
			}
		}
	})
}

// FuzzReadHistory: any input gives entries, the stretches skipped and at
// most an *Error, never a panic; every stretch skipped lies within the
// input, on a line that exists; every entry read is one a history line
// holds again (it encodes as one and reads back to itself).
func FuzzReadHistory(f *testing.F) {
	var lines [][]byte
	for i := range 2 {
		line, err := historyLine(synthBaseline(f, 1, 6, false, uint64(30+i)))
		if err != nil {
			f.Fatal(err)
		}
		lines = append(lines, line)
	}
	a, b := lines[0], lines[1]
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	f.Add(cat(a, b))
	f.Add(cat(a, b[:len(b)/2]))                 // cut short at the end
	f.Add(cat(a, b[:len(b)/3], a))              // glued: partial, then whole
	f.Add(cat(a[:40], b[:len(b)/2], b))         // two partials glued
	f.Add(cat(a, []byte("\n\n"), b))            // blank lines
	f.Add(cat([]byte(`{"schema":3}`), b))       // a bad whole line
	f.Add(cat([]byte(`{"schema"{"schema"`), a)) // starts, none whole
	f.Add(cat(b[:len(b)-1]))                    // all but the newline
	f.Fuzz(func(t *testing.T, data []byte) {
		got, skipped, err := ReadHistory(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		total := 0
		for _, s := range skipped {
			if s.Line < 1 || s.Line > lines || s.Bytes <= 0 || s.Reason == "" || s.File != "fuzz.jsonl" {
				t.Fatalf("skipped %+v in %d lines", s, lines)
			}
			total += s.Bytes
		}
		if total > len(data) {
			t.Fatalf("skipped %d bytes of %d", total, len(data))
		}
		for _, b := range got {
			line, err := historyLine(b)
			if err != nil {
				t.Fatalf("entry read does not encode: %v", err)
			}
			back, skipped, err := ReadHistory(bytes.NewReader(line), "again.jsonl")
			if err != nil || len(back) != 1 || len(skipped) != 0 {
				t.Fatalf("entry written again reads %d entries, %v skipped, error %v", len(back), skipped, err)
			}
		}
	})
}
