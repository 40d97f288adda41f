package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"stortest.dev/internal/durable"
)

// TestRunReport: `stortest run --report FILE.html` writes the run's page
// beside its usual output, with the job's charts and the iostat of the
// target's disk.
func TestRunReport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.html")
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress", "off", "--report", path, "--name=rep", "--rw=randrw", "--bs=4k", "--size=4m",
		"--ioengine=psync", "--runtime=2s", "--time_based", "--filename=" + filepath.Join(dir, "data")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "rep: (clone=0") {
		t.Errorf("the summary is still printed: %s", stdout.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, s := range []string{"<title>stortest run: rep</title>", `id="job0-iops"`, `id="job0-clat"`, `id="job0-exceed"`,
		`id="iostat-cpu"`, "<title>read</title>", "<title>write</title>", "rw=randrw"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not hold %q", s)
		}
	}
}

// TestRunReportEIO: a page that cannot be written (EIO at its sync) fails
// the command naming it, and leaves no file, half or temporary.
func TestRunReportEIO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.html")
	defer durable.Inject(func(op durable.Op, p string) error {
		if op == durable.OpSync && strings.Contains(p, "run.html") {
			return syscall.EIO
		}
		return nil
	})()
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress", "off", "--report", path, "--name=rep", "--rw=read", "--bs=4k", "--size=1m",
		"--ioengine=psync", "--runtime=200ms", "--time_based", "--filename=" + filepath.Join(dir, "data")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), path) || !strings.Contains(stderr.String(), "input/output error") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "data" {
			t.Errorf("left %s", e.Name())
		}
	}
}
