package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fioSteadyLines returns, per steadystate object of a fio JSON output, its
// ss, duration, attained, criterion, max_deviation and slope lines
// without indentation, exactly as printed.
func fioSteadyLines(t *testing.T, text string) [][]string {
	t.Helper()
	var objs [][]string
	var cur []string
	keys := regexp.MustCompile(`^\s*"(ss|duration|attained|criterion|max_deviation|slope)" : .*$`)
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == `"steadystate" : {` {
			cur = []string{}
			continue
		}
		if cur != nil && keys.MatchString(line) {
			cur = append(cur, strings.TrimSuffix(trimmed, ","))
			if len(cur) == 6 {
				objs = append(objs, cur)
				cur = nil
			}
		}
	}
	return objs
}

// `stortest steady fio F.json` prints fio's six steady-state fields
// exactly as fio printed them, for every recorded job.
func TestSteadyFioReproducesRecordedFio(t *testing.T) {
	files := recordedFio(t, 6, "steady/testdata/fio_*.json")
	jobs := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			stdout := runOK(t, []string{"steady", "fio", "--strict", path})
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := fioSteadyLines(t, string(raw))
			got := fioSteadyLines(t, stdout.String())
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%d objects printed, fio has %d:\n%s", len(got), len(want), stdout.String())
			}
			for i := range want {
				jobs++
				if strings.Join(got[i], "\n") != strings.Join(want[i], "\n") {
					t.Errorf("job %d:\nstortest:\n%s\nfio:\n%s", i, strings.Join(got[i], "\n"), strings.Join(want[i], "\n"))
				}
			}
			// The output is a stream of valid JSON objects.
			dec := json.NewDecoder(stdout)
			for dec.More() {
				var obj struct {
					SteadyState map[string]any `json:"steadystate"`
					Stortest    struct {
						MatchesFio bool `json:"matches_fio"`
					} `json:"stortest_steadystate"`
				}
				if err := dec.Decode(&obj); err != nil {
					t.Fatal(err)
				}
				if !obj.Stortest.MatchesFio || len(obj.SteadyState) != 6 {
					t.Errorf("object %+v", obj)
				}
			}
		})
	}
	if jobs < 8 {
		t.Errorf("checked %d jobs", jobs)
	}
}

func TestSteadyFioErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"jobs\" : [\n    {\"jobname\" : }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte(`{"jobs":[{"jobname":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []cliCase{
		{"no file", []string{"steady", "fio"}, 2, "want at least one fio JSON output"},
		{"missing file", []string{"steady", "fio", filepath.Join(dir, "nope.json")}, 1, "no such file"},
		{"syntax", []string{"steady", "fio", bad}, 1, "bad.json: line 3 column 18"},
		{"no steadystate", []string{"steady", "fio", plain}, 1, "no job has a steadystate object"},
	}
	runCLICases(t, tests)
}

func TestSteadyCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stepped := write("stepped", "1000\n1000\n1000\n1500\n1000\n1000\n1000\n")
	trend := write("trend", "100\n200\n300\n400\n")
	broken := write("broken", "1000\n1000\nlots\n")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"text final", []string{"--criterion", "iops:10%", "--window", "3", stepped}, 0, []string{
			"criteria: iops:10%\n", "samples: 7 (window 3s, ramp 0s)\n", "attained at sample 2 (3s)\n",
			"lost at sample 3 (4s): iops:10% value 28.5714, worst 28.5714, limit 10; regained at sample 6 (7s)\n",
			"final: sample 6 at 7s: steady state regained after 3 samples out (worst 28.5714, limit 10): iops 0% < 10%",
		}},
		{"stop like fio", []string{"--criterion", "iops:10%", "--window", "3", "--stop", stepped}, 0, []string{
			"samples: 3 (window 3s, ramp 0s)\n",
		}},
		{"each text", []string{"--criterion", "iops:10%", "--window", "3", "--each", stepped}, 0, []string{
			"sample 0 at 1s: window filling, 1 of 3 samples: iops:10%: window not full\n",
			"sample 3 at 4s: steady state lost: iops 28.5714% >= 10%",
		}},
		{"not attained exits 1", []string{"--criterion", "iops_slope:1%", "--window", "3", trend}, 1, []string{"never attained\n"}},
		{"ramp", []string{"--criterion", "iops:1%", "--window", "2", "--ramp", "2", "--each", trend}, 1, []string{"sample 1 at 2s: ramp, not counted\n", "sample 2 at 3s: window filling"}},
		{"bad sample", []string{"--criterion", "iops:1%", broken}, 1, []string{"steady: " + broken + " line 3: bad sample \"lots\""}},
		{"no criterion", []string{stepped}, 2, []string{"--criterion is required"}},
		{"bad criterion", []string{"--criterion", "iops:10k"}, 2, []string{"--criterion: steady: bad criterion"}},
		{"bad window", []string{"--criterion", "iops:1%", "--window", "1.5s"}, 2, []string{"--window"}},
		{"bad format", []string{"--criterion", "iops:1%", "--format", "xml"}, 2, []string{"--format"}},
		{"two files", []string{"--criterion", "iops:1%", stepped, trend}, 2, []string{"at most one input file"}},
		{"empty", []string{"--criterion", "iops:1%", write("empty", "# nothing\n")}, 1, []string{"no samples"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(append([]string{"steady", "check"}, tt.args...), &stdout, &stderr)
			out := stdout.String() + stderr.String()
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestSteadyCheckJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, []byte("1000\n1001\n999\n1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := runOK(t, []string{"steady", "check", "--criterion", "iops_slope:0.3%", "--window", "3", "--each", "--format", "json", p})
	dec := json.NewDecoder(stdout)
	var verdicts []map[string]any
	var final struct {
		SteadyState map[string]any `json:"steadystate"`
		Stortest    struct {
			AttainedSample int `json:"attained_sample"`
		} `json:"stortest_steadystate"`
	}
	for i := 0; dec.More(); i++ {
		if i < 4 {
			var v map[string]any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			verdicts = append(verdicts, v)
			continue
		}
		if err := dec.Decode(&final); err != nil {
			t.Fatal(err)
		}
	}
	if len(verdicts) != 4 || verdicts[2]["event"] != "attained" || verdicts[3]["attained"] != true {
		t.Errorf("verdicts %v", verdicts)
	}
	if final.SteadyState["ss"] != "iops_slope:0.300000%" || final.SteadyState["criterion"] != "-0.050000%" || final.Stortest.AttainedSample != 2 {
		t.Errorf("final %+v", final)
	}
}
