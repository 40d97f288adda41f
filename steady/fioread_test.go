package steady

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorded returns the fio 3.33 outputs recorded by testdata/record.sh.
func recorded(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fio_*.json"))
	if err != nil || len(files) < 6 {
		t.Fatalf("want the recorded fio outputs in testdata (see record.sh), found %d", len(files))
	}
	return files
}

// fioBlocks returns the text of every "steadystate" object in a fio JSON
// output, from its opening brace to its closing one, as fio printed it.
func fioBlocks(t *testing.T, text string) []string {
	t.Helper()
	const key = `      "steadystate" : {`
	var blocks []string
	for {
		i := strings.Index(text, key)
		if i < 0 {
			return blocks
		}
		text = text[i+len(key)-1:]
		end := strings.Index(text, "\n      }")
		if end < 0 {
			t.Fatal("unterminated steadystate object")
		}
		blocks = append(blocks, text[:end+len("\n      }")])
		text = text[end:]
	}
}

// For every recorded job, the recomputed object prints exactly as fio
// printed it: every line of fio's "steadystate" object, data included.
// fio_iops_slope_free.json shows the floor of the mean at work: fio
// printed 5.911681% (100*39508/668304), the exact mean 668304.8 would
// give 5.911674%.
func TestRecordedFioRecomputes(t *testing.T) {
	jobs := 0
	seen := map[string]bool{}
	for _, path := range recorded(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := ReadFio(bytes.NewReader(raw), path)
			if err != nil {
				t.Fatal(err)
			}
			checks, err := CheckFio(out)
			if err != nil {
				t.Fatal(err)
			}
			blocks := fioBlocks(t, string(raw))
			if len(blocks) != len(checks) {
				t.Fatalf("%d steadystate objects in the text, %d checks", len(blocks), len(checks))
			}
			for i, c := range checks {
				jobs++
				if !c.Matches {
					t.Errorf("job %q: recomputed %+v, fio printed %+v", c.JobName, c.Computed, c.Reported)
				}
				got := string(c.Computed.AppendFio(nil, 3, true))
				if got != blocks[i] {
					t.Errorf("job %q: recomputed object\n%s\nfio printed\n%s", c.JobName, got, blocks[i])
				}
				if c.Computed.Attained == 1 != c.Result.Attained {
					t.Errorf("job %q: attained %d but result %v", c.JobName, c.Computed.Attained, c.Result.Attained)
				}
				kind := c.Criterion.Name()
				if c.Criterion.Percent {
					kind += "%"
				}
				if c.Computed.Attained == 0 {
					kind += " not attained"
				}
				if !c.WindowFull {
					kind += " window not full"
				}
				seen[kind] = true
			}
		})
	}
	// The recordings cover what the tests claim.
	for _, k := range []string{"iops%", "iops not attained", "iops_slope%", "bw%", "bw_slope", "bw_slope not attained", "iops_slope% not attained", "iops% not attained window not full"} {
		if !seen[k] {
			t.Errorf("no recorded job of kind %q (have %v)", k, seen)
		}
	}
	if jobs < 9 {
		t.Errorf("%d recorded jobs", jobs)
	}
}

// The job option as given (bw_slope:20k) takes precedence over the "ss"
// string, whose limit fio prints through a float32.
func TestRecomputeUsesJobOption(t *testing.T) {
	y := []uint64{100, 200, 300}
	job := FioJob{JobName: "j", Options: map[string]string{"steadystate": "bw_slope:123456789"},
		SteadyState: &FioSteadyState{SS: "bw_slope:123456792.000000", Duration: 3, Data: FioSteadyStateData{IOPS: y, BW: y}}}
	c, err := RecomputeFio(&job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Criterion.Limit != 123456789 {
		t.Errorf("limit %v, want the option's 123456789", c.Criterion.Limit)
	}
	// Without the option, the global one, then the printed one.
	job.Options = nil
	c, _ = RecomputeFio(&job, map[string]string{"ss": "bw_slope:1k"})
	if c.Criterion.Limit != 1024 {
		t.Errorf("limit %v, want the global 1024", c.Criterion.Limit)
	}
	c, _ = RecomputeFio(&job, nil)
	if c.Criterion.Limit != 123456792 {
		t.Errorf("limit %v, want the printed 123456792", c.Criterion.Limit)
	}
	// An option that names another criterion is ignored.
	c, _ = RecomputeFio(&job, map[string]string{"ss": "iops:5%"})
	if c.Criterion.Metric != BW || c.Criterion.Limit != 123456792 {
		t.Errorf("criterion %v", c.Criterion)
	}
}

func TestReadFioNonFinite(t *testing.T) {
	// fio prints a slope of a one-second window as -nan: not JSON.
	in := "fio: some note on stdout\n{\n  \"jobs\" : [\n    {\n      \"jobname\" : \"nan\",\n      \"steadystate\" : {\n" +
		"        \"ss\" : \"iops_slope:1.000000%\",\n        \"duration\" : 1,\n        \"attained\" : 0,\n" +
		"        \"criterion\" : \"-nan%\",\n        \"max_deviation\" : 0.000000,\n        \"slope\" : -nan,\n" +
		"        \"data\" : {\n          \"bw_mean\" : 5,\n          \"iops_mean\" : 5,\n          \"iops\" : [\n            5\n          ],\n" +
		"          \"bw\" : [\n            5\n          ]\n        }\n      }\n    }\n  ]\n}\n"
	out, err := ReadFio(strings.NewReader(in), "nan.json")
	if err != nil {
		t.Fatal(err)
	}
	checks, err := CheckFio(out)
	if err != nil {
		t.Fatal(err)
	}
	c := checks[0]
	if !c.Matches || c.Computed.Criterion != "-nan%" || FormatFloat(c.Computed.Slope) != "-nan" {
		t.Errorf("check %+v", c)
	}
}

func TestReadFioErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "no JSON object"},
		{"syntax", "{\n  \"jobs\" : [\n    {,\n", "f.json: line 3 column 6"},
		{"type", "\n\n{\"jobs\" : [{\"steadystate\" : {\"duration\" : \"five\"}}]}", "f.json: line 3 column"},
		{"truncated", "{\"jobs\" : [", "unexpected end of JSON input"},
		{"window length", `{"jobs":[{"jobname":"x","steadystate":{"ss":"iops:5%","duration":3,"data":{"iops":[1,2],"bw":[1,2,3]}}}]}`, "duration 3 with 2 iops and 3 bw samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFio(strings.NewReader(tt.in), "f.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "steady: ") {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	out, err := ReadFio(strings.NewReader(`{"jobs":[{"jobname":"plain"}]}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckFio(out); !errors.Is(err, ErrNoSteadyState) {
		t.Errorf("CheckFio without steadystate: %v", err)
	}
	out, _ = ReadFio(strings.NewReader(`{"jobs":[{"jobname":"x","steadystate":{"ss":"lat:5%","duration":1,"data":{"iops":[1],"bw":[1]}}}]}`), "f.json")
	if _, err := CheckFio(out); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), `job 0 ("x")`) {
		t.Errorf("CheckFio with a bad ss: %v", err)
	}
}

func TestAppendFioCheck(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "fio_iops_pct.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := ReadFio(f, "fio_iops_pct.json")
	if err != nil {
		t.Fatal(err)
	}
	checks, _ := CheckFio(out)
	got := string(AppendFioCheck(nil, checks[0]))
	for _, line := range []string{
		"{\n  \"jobname\" : \"iops-pct\",\n  \"steadystate\" : {\n    \"ss\" : \"iops:5.000000%\",\n",
		"    \"criterion\" : \"0.029979%\",\n    \"max_deviation\" : 0.600000,\n    \"slope\" : 0.000000\n  },\n",
		"    \"matches_fio\" : true,\n    \"window_full\" : true,\n",
		"    \"value\" : 0.029979014689712653,\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("output lacks %q:\n%s", line, got)
		}
	}
}
