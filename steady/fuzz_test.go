package steady

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ReadSamples never panics and either accepts a value per number line or
// names the line of its error.
func FuzzReadSamples(f *testing.F) {
	for _, s := range []string{"1000\n1001\n", "# c\n\n1.5\n", "-1\n", "1 2\n", "NaN\n", "1e30\n", "\xff\n", "0x10\n", "9999999999999999999999\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines := 0
		err := ReadSamples(strings.NewReader(in), "fuzz", func(line int, v uint64) error {
			if line <= lines {
				t.Fatalf("line %d after %d", line, lines)
			}
			lines = line
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "line ") {
			t.Fatalf("error without a line: %v", err)
		}
		// The same input through a detector never panics either.
		d, _ := NewDetector(Config{Criteria: MustParseSet("iops:5%,bw_slope:1%,clat_p99:5%,pts:iops:1s"), Window: 3 * time.Second, Continue: true})
		_ = ReadSamples(strings.NewReader(in), "fuzz", func(_ int, v uint64) error {
			d.Add(Sample{IOPS: v, BW: v, Lat: []time.Duration{time.Duration(v >> 1)}})
			return nil
		})
		_ = d.Report()
	})
}

// ReadFio never panics; what it accepts recomputes without panicking and
// prints valid text.
func FuzzReadFio(f *testing.F) {
	// Seeds: the recorded outputs cut down to what ReadFio reads (whole
	// files, ~7 KB each, make the fuzzer crawl).
	files, _ := filepath.Glob(filepath.Join("testdata", "fio_*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var out struct {
			Jobs []struct {
				JobName     string            `json:"jobname"`
				Options     map[string]string `json:"job options"`
				SteadyState json.RawMessage   `json:"steadystate"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			f.Fatal(err)
		}
		seed, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	f.Add([]byte(`{"jobs":[{"jobname":"x","steadystate":{"ss":"iops_slope:1%","duration":1,"criterion":"-nan%","slope": -nan,"data":{"iops":[0],"bw":[0]}}}]}`))
	f.Add([]byte(`{"jobs":[{"steadystate":{"ss":"bw:1","duration":2,"data":{"iops":[1,2],"bw":[18446744073709551615,5]}}}]}`))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := ReadFio(bytes.NewReader(in), "fuzz.json")
		if err != nil {
			return
		}
		checks, err := CheckFio(out)
		if err != nil {
			return
		}
		for _, c := range checks {
			_ = AppendFioCheck(nil, c)
			if _, err := c.Computed.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Parse never panics, and what it accepts round-trips through String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"iops_slope:0.3%", "bw:20m", "bw:3KiB", "clat_p99.9:200us", "lat_p50_slope:1%", "pts:iops:30s", "iops:1e-3", "bw:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse(%q) gave an invalid criterion: %v", s, err)
		}
		again, err := Parse(c.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, c.String(), err)
		}
		if again.String() != c.String() {
			t.Fatalf("%q -> %q -> %q", s, c.String(), again.String())
		}
	})
}
