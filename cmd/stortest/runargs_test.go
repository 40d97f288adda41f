package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunHelpExitsZero(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"run", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("stortest run --help exited %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "usage: stortest run ") {
		t.Errorf("stdout %q, want the usage", out.String())
	}
}

// fio applies job options given beside a job file as defaults of its
// jobs, which the file overrides: `fio --runtime=3 --time_based a.fio`
// runs a job without runtime for 3 s and one with runtime=1 for 1 s.
func TestRunJobOptionsBesideAJobFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.fio")
	if err := os.WriteFile(file, []byte("[global]\nioengine=null\nsize=1g\n[a]\n[b]\nruntime=100ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"run", "--max-jobs=16", "--runtime", "300ms", "--time_based", "--output-format=json", file}
	if code := runMain(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Jobs []struct {
			Name    string `json:"jobname"`
			Runtime int64  `json:"job_runtime"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a": 300, "b": 100}
	for _, j := range doc.Jobs {
		if j.Runtime < want[j.Name] || j.Runtime > want[j.Name]+50 {
			t.Errorf("job %s ran %d ms, want %d", j.Name, j.Runtime, want[j.Name])
		}
	}
	errb.Reset()
	if code := runMain([]string{"run", "--donorname=x", file}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "args[0]: fio option donorname (ioengine e4defrag) is not supported by stortest") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
