package history

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/internal/durable"
)

// Ext is the extension of a history file.
const Ext = ".json"

// ErrNoHistory is matched by Load's error for a directory without a run.
var ErrNoHistory = errors.New("history: no runs")

// Entry is one run kept in a history: the baseline of that run (schema
// 3 with its seconds, slices and histograms) and where it is.
type Entry struct {
	Path     string // the file
	Series   string // the series it belongs to: its directory relative to the store, slash-separated
	Baseline *baselines.Baseline
}

// Dir returns the directory of a test's job in the store at root:
// <root>/<TestName>/<job>, named as baselines.Path names a baseline
// file (a subtest "TestX/sub" is a directory; unsafe bytes are %XX).
func Dir(root, testName, jobName string) string {
	return strings.TrimSuffix(baselines.Path(root, testName, jobName), ".json")
}

// Append adds one run to the store at root, as a file of its own in
// Dir(root, testName, b.Name), and returns its path. The file name is
// the time of the append (UTC, to the nanosecond, so names sort as the
// appends happened), the host, the process and random bytes:
//
//	20261124T061502.123456789Z-node3-4242-9f86d081.json
//
// The run is written to a synced hidden temporary file in the same
// directory and linked to its name, which fails rather than replace a
// file (baselines.Create): concurrent writers, on one host or on many
// sharing the directory, never collide, and a crash leaves a whole file
// or none (at worst a hidden temporary file, which readers skip). A
// history file is never rewritten. b should hold one run; a baseline of
// several runs (Runs) is kept as it is, one entry per run in the series.
func Append(root, testName string, b *baselines.Baseline) (string, error) {
	if b == nil {
		return "", errors.New("history: append: nil baseline")
	}
	dir := Dir(root, testName, b.Name)
	// The host goes into the run's fingerprint too: a store shared by
	// several hosts keeps one series per host.
	run := *b
	if run.Fingerprint.Hostname == "" {
		run.Fingerprint.Hostname, _ = os.Hostname()
	}
	host := run.Fingerprint.Hostname
	now := time.Now().UTC()
	for range 8 {
		var rnd [4]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return "", fmt.Errorf("history: %w", err)
		}
		name := fmt.Sprintf("%s-%s-%d-%s%s", now.Format("20060102T150405.000000000Z"), safeName(host),
			os.Getpid(), hex.EncodeToString(rnd[:]), Ext)
		path := filepath.Join(dir, name)
		err := baselines.Create(path, &run)
		if errors.Is(err, fs.ErrExist) {
			continue // another writer drew the same bytes: draw again
		}
		if err != nil {
			return "", fmt.Errorf("history: append %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("history: append to %s: no free name after 8 tries", dir)
}

// safeName keeps letters, digits, '.', '_' and '-' of a host name (at
// most 64 of them); anything else becomes '_'. "" is "host".
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 || b[0] == '.' {
		return "host" + string(b)
	}
	return string(b)
}

// Read reads one history file: a baseline (baselines.Decode, whose
// errors name the file, line and field) that must hold a run with a
// creation time, a job name and at least one direction. name is used
// in errors.
func Read(r io.Reader, name string) (*baselines.Baseline, error) {
	b, err := baselines.Decode(r, name)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	switch {
	case b.Created.IsZero():
		return nil, fmt.Errorf("history: %s:1: created: no creation time: not a run", name)
	case b.Name == "":
		return nil, fmt.Errorf("history: %s:1: name: empty job name", name)
	case len(b.Dirs) == 0:
		return nil, fmt.Errorf("history: %s:1: dirs: no direction with I/O", name)
	}
	return b, nil
}

// readEntry reads the history file at p under root.
func readEntry(root, p string) (Entry, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return Entry{}, fmt.Errorf("history: %w", err)
	}
	b, err := Read(bytes.NewReader(data), p)
	if err != nil {
		return Entry{}, err
	}
	rel, err := filepath.Rel(root, filepath.Dir(p))
	if err != nil {
		return Entry{}, fmt.Errorf("history: %w", err)
	}
	return Entry{Path: p, Series: filepath.ToSlash(rel), Baseline: b}, nil
}

// Load reads every history file under root (any depth) and returns them
// in series order (by Series), each series oldest first: by the time the
// run's measurement started, then by file name (the append time). Hidden
// files (temporary files of appends under way) and directories are
// skipped, as are files not ending in Ext. A file that does not read is
// an error naming it, line and field: a history is evidence, and a
// damaged run is not silently left out. A root without runs is
// ErrNoHistory.
func Load(root string) ([]Entry, error) {
	paths, err := durable.VisibleFiles(root, func(name string) bool { return strings.HasSuffix(name, Ext) })
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// Decoding checks every field of every file (about 3 ms for a run of
	// 25 KB): spread over the CPUs, the first error in path order wins.
	out := make([]Entry, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = readEntry(root, paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w under %s", ErrNoHistory, root)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if c := strings.Compare(a.Series, b.Series); c != 0 {
			return c
		}
		if c := a.Baseline.Created.Compare(b.Baseline.Created); c != 0 {
			return c
		}
		return strings.Compare(filepath.Base(a.Path), filepath.Base(b.Path))
	})
	return out, nil
}
