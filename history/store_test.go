package history

import (
	"bytes"
	"errors"
	"os"
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
