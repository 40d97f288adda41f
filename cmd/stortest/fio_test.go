package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"stortest.dev/latency"
)

// `stortest fio pctiles F.json` prints fio's percentile objects exactly,
// for every recorded file, job, direction and stat with bins.
func TestFioPctilesReproducesRecordedFio(t *testing.T) {
	files := recordedFio(t, 5, "testdata/fio/*.json")
	total := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			stdout := runOK(t, []string{"fio", "pctiles", path})
			got, err := latency.ReadFio(stdout, "output")
			if err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(path)
			defer f.Close()
			want, err := latency.ReadFio(f, path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Jobs) != len(want.Jobs) {
				t.Fatalf("%d jobs, want %d", len(got.Jobs), len(want.Jobs))
			}
			for i, wj := range want.Jobs {
				gj := got.Jobs[i]
				if gj.Name != wj.Name {
					t.Fatalf("job %d named %q, want %q", i, gj.Name, wj.Name)
				}
				for _, dir := range latency.Directions {
					for _, stat := range latency.StatNames {
						var wp, gp latency.PercentileList
						if d := wj.Direction(dir); d != nil && d.Stat(stat) != nil && len(d.Stat(stat).Bins) > 0 {
							wp = d.Stat(stat).Percentile
						}
						if d := gj.Direction(dir); d != nil && d.Stat(stat) != nil {
							gp = d.Stat(stat).Percentile
						}
						if diff := cmp.Diff(wp, gp); diff != "" {
							t.Errorf("%s %s %s (-fio +stortest):\n%s", wj.Name, dir, stat, diff)
						}
						total += len(gp)
					}
				}
			}
		})
	}
	if total < 150 {
		t.Fatalf("compared only %d values", total)
	}
}

func TestFioPctilesKeysAndOverride(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "fio", "custom-list.json")
	stdout := runOK(t, []string{"fio", "pctiles", "--percentiles", "50:99.9", path})
	var raw map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	pct := raw["jobs"].([]any)[0].(map[string]any)["write"].(map[string]any)["clat_ns"].(map[string]any)["percentile"].(map[string]any)
	if len(pct) != 2 || pct["50.000000"] == nil || pct["99.900000"] == nil {
		t.Fatalf("override list gave keys %v", pct)
	}
}

func TestFioPctilesErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.json")
	os.WriteFile(plain, []byte(`{"jobs":[{"jobname":"a","read":{"clat_ns":{"N":1,"percentile":{"50.000000":1}}}}]}`), 0o644)
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte("{\n\"jobs\": [,\n"), 0o644)
	cases := []cliCase{
		{"no-file", []string{"fio", "pctiles"}, 2, "want one fio json+ file"},
		{"missing", []string{"fio", "pctiles", filepath.Join(dir, "nope.json")}, 1, "no such file"},
		{"plain-json", []string{"fio", "pctiles", plain}, 1, "--output-format=json+"},
		{"broken", []string{"fio", "pctiles", broken}, 1, "line 2 column 10"},
		{"bad-list", []string{"fio", "pctiles", "--percentiles", "200", plain}, 2, "--percentiles"},
	}
	runCLICases(t, cases)
}
