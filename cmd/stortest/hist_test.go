package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

var histData = filepath.Join("..", "..", "latency", "histlog", "testdata")

func histLogs(t *testing.T) []string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(histData, "fio", "h_clat_hist.*.log"))
	if len(logs) != 4 {
		t.Fatalf("found %d recorded logs", len(logs))
	}
	return logs
}

// `stortest hist merge --format fio` prints what fio-histo-log-pctiles.py
// printed for the same logs (testdata/pctiles, recorded by record.sh).
func TestHistMergeFioFormat(t *testing.T) {
	logs := histLogs(t)
	tests := []struct {
		recorded string
		args     []string
	}{
		{"default", nil},
		{"q2-p50-90-99", []string{"--time-quantum", "2", "--percentiles", "50,90,99"}},
		{"msec-lhm", []string{"--unit", "ms", "--log-hist-msec=1000", "--percentiles", "0:25:50:75:99.9:99.95:100"}},
	}
	for _, tc := range tests {
		t.Run(tc.recorded, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(histData, "pctiles", tc.recorded+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			_, want, _ := strings.Cut(string(b), "\n")
			// Flags may follow the files.
			args := append(append([]string{"hist", "merge", "--format", "fio"}, logs...), tc.args...)
			stdout := runOK(t, args)
			if diff := cmp.Diff(want, stdout.String()); diff != "" {
				t.Errorf("output (-tool +stortest):\n%s", diff)
			}
		})
	}
}

func TestHistMergeNative(t *testing.T) {
	logs := histLogs(t)
	var stdout, stderr bytes.Buffer
	args := append([]string{"hist", "merge", "--format", "json", "--direction", "write", "--by-input", "--unit", "ms", "--"},
		"host1="+logs[0], "host2="+logs[1])
	if code := runMain(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc struct {
		Unit   string   `json:"unit"`
		Inputs []string `json:"inputs"`
		Rows   []struct {
			Direction string    `json:"direction"`
			Samples   float64   `json:"samples"`
			ByInput   []float64 `json:"by_input"`
		} `json:"rows"`
		Quanta int `json:"quanta"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if doc.Unit != "ms" || len(doc.Rows) != doc.Quanta || doc.Quanta < 6 || cmp.Diff([]string{"host1", "host2"}, doc.Inputs) != "" {
		t.Fatalf("document %+v", doc)
	}
	for _, r := range doc.Rows {
		if r.Direction != "write" || len(r.ByInput) != 2 {
			t.Fatalf("row %+v", r)
		}
	}

	stdout.Reset()
	if code := runMain(append([]string{"hist", "merge", "--time-quantum", "0.5", "--percentiles", "50"}, logs...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if lines[0] != "time_ms,direction,inputs,samples,min,p50,max" || !strings.HasPrefix(lines[1], "0,read,4,") || !strings.HasPrefix(lines[5], "500,read,") {
		t.Errorf("CSV starts %q", lines[:6])
	}
}

func TestHistMergeUsage(t *testing.T) {
	logs := histLogs(t)
	tests := []struct {
		name string
		args []string
		text string
	}{
		{"no files", nil, "at least one"},
		{"fio per direction", []string{"--format", "fio", "--direction", "read", logs[0]}, "--direction must be all"},
		{"fio in ns", []string{"--format", "fio", "--unit", "ns", logs[0]}, "us or ms"},
		{"fio fractional quantum", []string{"--format", "fio", "--time-quantum", "1.5", logs[0]}, "whole seconds"},
		{"fio by input", []string{"--format", "fio", "--by-input", logs[0]}, "per-input"},
		{"bad percentile", []string{"--percentiles", "50,200", logs[0]}, "200"},
		{"bad quantum", []string{"--time-quantum", "-1", logs[0]}, "time-quantum"},
		{"bad unit", []string{"--unit", "s", logs[0]}, "unit"},
		{"bad direction", []string{"--direction", "up", logs[0]}, "direction"},
		{"bad format", []string{"--format", "xml", logs[0]}, "xml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(append([]string{"hist", "merge"}, tc.args...), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.text) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr.String(), tc.text)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"hist", "merge", filepath.Join(histData, "missing.log")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "missing.log") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr.String())
	}
}

// `stortest hist merge` takes a thousand logs on its command line (60 KB
// of arguments, far below ARG_MAX), flags after them included: the same
// figures as for one of them, with 1000 times the completions.
func TestHistMergeThousandFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 1000 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("node%02d", i%10), histlog.FileName("h", i/10+1)))
	}
	var log bytes.Buffer
	w, err := histlog.NewWriter(&log, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := latency.NewFio()
	for sec := uint64(1); sec <= 6; sec++ {
		for d := range histlog.Direction(2) {
			h.Reset()
			for k := range 50 * (uint64(d) + 1) {
				h.Add(20_000*(uint64(d)+1) + 700*k*sec)
			}
			if err := w.WriteInterval(sec*1000, d, 4096, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if i < 10 {
			if err := os.Mkdir(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(f, log.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := float64(len(files))
	for _, tc := range []struct {
		args             []string
		samples, inputs  int // columns; -1: none
		byInput, columns int // the first per-input column; columns of a row of one log
	}{
		{[]string{"--format", "fio"}, 1, -1, -1, 7},
		{[]string{"--by-input", "--percentiles", "50,99"}, 3, 2, 8, 9},
	} {
		var one, all, stderr bytes.Buffer
		if code := runMain(append(append([]string{"hist", "merge"}, files[0]), tc.args...), &one, &stderr); code != 0 {
			t.Fatalf("%v, one log: exit %d: %s", tc.args, code, stderr.String())
		}
		if code := runMain(append(append([]string{"hist", "merge"}, files...), tc.args...), &all, &stderr); code != 0 {
			t.Fatalf("%v, %d logs: exit %d: %s", tc.args, len(files), code, stderr.String())
		}
		ones, alls := strings.Split(one.String(), "\n"), strings.Split(all.String(), "\n")
		if len(ones) != len(alls) || len(ones) < 8 {
			t.Fatalf("%v: %d lines for one log, %d for all", tc.args, len(ones), len(alls))
		}
		rows := 0
		for k, line := range ones {
			f, g := strings.Split(line, ","), strings.Split(alls[k], ",")
			if _, err := strconv.ParseFloat(strings.TrimSpace(f[0]), 64); err != nil || len(f) != tc.columns {
				if tc.byInput > 0 && k == 0 { // the CSV header
					labels := map[string]bool{}
					for _, l := range g[tc.byInput:] {
						labels[l] = true
					}
					if len(g) != tc.byInput+len(files) || len(labels) != len(files) || !labels["samples:node03/h.17"] || line != strings.Join(g[:tc.byInput+1], ",") {
						t.Errorf("%v: header %.200q... of %d fields, %d labels", tc.args, alls[k], len(g), len(labels))
					}
				} else if line != alls[k] {
					t.Errorf("%v: line %d: %q for all logs, %q for one", tc.args, k+1, alls[k], line)
				}
				continue
			}
			rows++
			want := slices.Clone(f)
			scale := func(col int) {
				v, _ := strconv.ParseFloat(strings.TrimSpace(f[col]), 64)
				want[col] = strconv.FormatFloat(v*n, 'f', -1, 64)
			}
			scale(tc.samples)
			if tc.inputs >= 0 {
				scale(tc.inputs)
			}
			if tc.byInput > 0 {
				want = append(want, slices.Repeat(want[tc.byInput:], len(files)-1)...)
			}
			for c := range g {
				g[c] = strings.TrimSpace(g[c])
			}
			for c := range want {
				want[c] = strings.TrimSpace(want[c])
			}
			if !slices.Equal(want, g) {
				t.Errorf("%v: line %d: %.200q... for all logs, want %.200q...", tc.args, k+1, alls[k], strings.Join(want, ","))
			}
		}
		if rows < 6 {
			t.Errorf("%v: %d rows", tc.args, rows)
		}
	}
}

// histLimitChildEnv names the directory of TestHistMergePasses's child.
const histLimitChildEnv = "STORTEST_HIST_LIMIT_CHILD"

// `stortest hist merge` of more logs than its hard limit on open files
// allows (this test binary run again, its limit lowered to 64) says it
// merges in passes and prints what one pass prints, byte for byte.
func TestHistMergePasses(t *testing.T) {
	if dir := os.Getenv(histLimitChildEnv); dir != "" {
		histLimitChild(t, dir)
		return
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to count open files")
	}
	dir := t.TempDir()
	var files []string
	for i := range 120 {
		src := histLogs(t)[i%4]
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "logs", fmt.Sprintf("node%02d", i/4), filepath.Base(src))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, args := range [][]string{{"--by-input", "--percentiles", "50,99.9"}, {"--format", "fio"}} {
		args = append(append([]string{"hist", "merge"}, files...), args...)
		var want, stderr bytes.Buffer
		if code := runMain(args, &want, &stderr); code != 0 || stderr.Len() != 0 {
			t.Fatalf("%v: exit %d: %s", args[len(files)+2:], code, stderr.String())
		}
		if err := os.WriteFile(filepath.Join(dir, "args"), []byte(strings.Join(args, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHistMergePasses$")
		cmd.Env = append(os.Environ(), histLimitChildEnv+"="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: child: %v\n%s", args[len(files)+2:], err, out)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "stdout"))
		msgs, _ := os.ReadFile(filepath.Join(dir, "stderr"))
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%v: output in passes differs from one pass's (-one +passes):\n%s", args[len(files)+2:], cmp.Diff(want.String(), string(got)))
		}
		if m := regexp.MustCompile(`^stortest hist merge: merging 120 logs in [2-9] passes: room for \d+ open files \(limit 64, \d+ open\)\n`); !m.Match(msgs) {
			t.Errorf("%v: stderr %q, want the passes announced", args[len(files)+2:], msgs)
		}
		t.Logf("%v: %s", args[len(files)+2:], bytes.SplitN(msgs, []byte("\n"), 2)[0])
	}
}

// histLimitChild lowers its limit on open files to 64 (soft and hard,
// for good: it is a process of its own), runs the arguments in dir and
// leaves stdout and stderr there.
func histLimitChild(t *testing.T, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runMain(strings.Split(string(b), "\n"), &stdout, &stderr)
	os.WriteFile(filepath.Join(dir, "stdout"), stdout.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "stderr"), stderr.Bytes(), 0o644)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
