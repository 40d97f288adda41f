package history

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"stortest.dev/baselines"
)

// Appends from many goroutines at once each leave one whole file, no
// temporary file stays, and Load gives them back in the order the runs
// started.
func TestAppendConcurrent(t *testing.T) {
	root := t.TempDir()
	hist := simHistory(5, 40, 0, 1, 0.05)
	var wg sync.WaitGroup
	paths := make([]string, len(hist))
	errs := make([]error, len(hist))
	for i, b := range hist {
		wg.Go(func() { paths[i], errs[i] = Append(root, "TestX/sub", b) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if seen[paths[i]] {
			t.Fatalf("two appends wrote %s", paths[i])
		}
		seen[paths[i]] = true
		if want := filepath.Join(root, "TestX", "sub", "randread-4k"); filepath.Dir(paths[i]) != want {
			t.Errorf("%s: want it in %s", paths[i], want)
		}
	}
	ents, err := os.ReadDir(filepath.Join(root, "TestX", "sub", "randread-4k"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if len(ents) != len(hist) {
		t.Fatalf("%d files, want %d", len(ents), len(hist))
	}
	got, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(hist) {
		t.Fatalf("loaded %d runs, want %d", len(got), len(hist))
	}
	for i, e := range got {
		if e.Series != "TestX/sub/randread-4k" {
			t.Errorf("series %q", e.Series)
		}
		if !e.Baseline.Created.Equal(hist[i].Created) {
			t.Errorf("run %d: created %v, want %v (oldest first)", i, e.Baseline.Created, hist[i].Created)
		}
		if e.Baseline.Fingerprint.Hostname != "node1" {
			t.Errorf("run %d: host %q", i, e.Baseline.Fingerprint.Hostname)
		}
	}
}

// An append never replaces a file: the store's files keep their bytes
// whatever is appended after them, and a hidden temporary file of an
// append under way is not a run.
func TestAppendNeverRewrites(t *testing.T) {
	root := t.TempDir()
	hist := simHistory(6, 3, 0, 1, 0.05)
	first, err := Append(root, "TestX", hist[0])
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range hist[1:] {
		if _, err := Append(root, "TestX", b); err != nil {
			t.Fatal(err)
		}
	}
	after, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the first run's file changed")
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(first), ".x.json.tmp-1"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(root)
	if err != nil || len(got) != 3 {
		t.Fatalf("Load: %d runs, %v; want 3", len(got), err)
	}
}

// A damaged run is an error naming the file, line and field, never a run
// left out in silence; an empty store is ErrNoHistory.
func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := Load(root); !errors.Is(err, ErrNoHistory) {
		t.Errorf("empty store: %v, want ErrNoHistory", err)
	}
	b := simHistory(8, 1, 0, 1, 0.05)[0]
	path, err := Append(root, "TestX", b)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`"iops": [-0-9.e+]+`).ReplaceAllString(string(data), `"iops": "fast"`)
	badPath := filepath.Join(filepath.Dir(path), "bad.json")
	if err := os.WriteFile(badPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(root)
	if err == nil || !strings.Contains(err.Error(), badPath+":") || !strings.Contains(err.Error(), "iops") {
		t.Errorf("Load of a damaged run: %v; want its file, line and field", err)
	}
	var be *baselines.Error
	if !errors.As(err, &be) || be.Line == 0 {
		t.Errorf("error %v: want a *baselines.Error with a line", err)
	}
}

// Read refuses what is no run, naming the field.
func TestReadRefuses(t *testing.T) {
	b := simHistory(9, 1, 0, 1, 0.05)[0]
	b.Created = time.Time{}
	data, err := baselines.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(data), "x.json"); err == nil || !strings.Contains(err.Error(), "x.json:1: created:") {
		t.Errorf("a run without a time: %v", err)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"node3": "node3", "a/b c": "a_b_c", "": "host", ".x": "host.x"} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRead: any bytes are a run or an error, never a panic, and a run
// that reads can be searched.
func FuzzRead(f *testing.F) {
	b := simHistory(10, 1, 0, 1, 0.05)[0]
	good, err := baselines.Marshal(b)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(strings.Replace(string(good), `"created": "`, `"created": "x`, 1)))
	f.Add([]byte(`{"schema":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "history: ") || !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error without the package and file: %v", err)
			}
			return
		}
		es := make([]Entry, 8)
		for i := range es {
			es[i] = Entry{Path: "fuzz.json", Series: "s", Baseline: b}
		}
		if _, err := Changes(es, Config{}); err != nil {
			t.Fatal(err)
		}
	})
}

// Appends from several processes at once (this test binary started
// again, each appending 10 runs) each leave one whole file.
func TestAppendFromProcesses(t *testing.T) {
	if dir := os.Getenv("STORTEST_HISTORY_CHILD"); dir != "" {
		for _, b := range simHistory(uint64(os.Getpid()), 10, 0, 1, 0.05) {
			if _, err := Append(dir, "TestX", b); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	root := t.TempDir()
	var cmds []*exec.Cmd
	for range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendFromProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORTEST_HISTORY_CHILD="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Error(err)
		}
	}
	runs, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 40 {
		t.Fatalf("%d runs, want 40", len(runs))
	}
	pids := map[string]bool{}
	for _, e := range runs {
		parts := strings.Split(filepath.Base(e.Path), "-")
		pids[parts[len(parts)-2]] = true
	}
	if len(pids) != 4 {
		t.Errorf("runs of %d processes, want 4", len(pids))
	}
}

// Runs of two hosts in one directory are two series.
func TestChangesSeparatesHosts(t *testing.T) {
	a := simHistory(11, 20, 0, 1, 0.05)
	b := simHistory(12, 20, 10, 1.5, 0.05)
	var es []Entry
	for i := range a {
		b[i].Fingerprint.Hostname = "node2"
		es = append(es, Entry{Path: "a", Series: "s", Baseline: a[i]}, Entry{Path: "b", Series: "s", Baseline: b[i]})
	}
	rep, err := Changes(es, Config{Metrics: []string{"read.clat.p99"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 2 || rep.Series[0].Host != "node1" || rep.Series[1].Host != "node2" {
		t.Fatalf("series %+v", rep.Series)
	}
	if n := len(rep.Series[0].Metrics[0].Changes); n != 0 {
		t.Errorf("node1: %d changes, want none", n)
	}
	if c := rep.Series[1].Metrics[0].Changes; len(c) != 1 || c[0].Run != 10 {
		t.Errorf("node2: changes %+v, want one at run 10", c)
	}
}
