package baselines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDir is where tests keep baselines, relative to the package
// directory: testdata/baselines/<TestName>/<job>.json.
const DefaultDir = "testdata/baselines"

// Path returns the file of a test's job baseline: dir/<TestName>/<job>.json.
// A subtest's name "TestX/sub" becomes the directories TestX/sub. Each name
// element is made a safe file name: bytes other than letters, digits and
// "-_.+=,@" are written %XX (so "a:b" and "a?b" stay distinct), and a
// leading '.' is escaped so no element is hidden, "." or "..". An empty
// testName puts the file in dir itself.
func Path(dir, testName, jobName string) string {
	elems := []string{dir}
	if testName != "" {
		for _, e := range strings.Split(testName, "/") {
			elems = append(elems, escapeName(e))
		}
	}
	return filepath.Join(append(elems, escapeName(jobName)+".json")...)
}

func escapeName(s string) string {
	if s == "" {
		return "%"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-_+=,@", c) >= 0 || (c == '.' && i > 0)
		if safe {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// HistoryPath returns the history file kept beside a baseline:
// <job>.history.jsonl for <job>.json.
func HistoryPath(path string) string {
	return strings.TrimSuffix(path, ".json") + ".history.jsonl"
}

// IsBaselineFile reports whether a directory entry's name is a baseline:
// *.json, not hidden (temporary files are hidden), not a history file.
func IsBaselineFile(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".")
}

// WriteFile writes b to path atomically, replacing any file there: the
// bytes go to a hidden temporary file in the same directory, which is
// synced, renamed over path, and the directory synced. A crash leaves
// either the old file or the new one, never a mix (at worst a stale
// hidden temporary file). Missing directories are created.
func WriteFile(path string, b *Baseline) error {
	return writeAtomic(path, b, os.Rename)
}

// Create writes b to path atomically like WriteFile but never replaces
// anything: if path exists (a valid or a corrupt baseline) it fails with
// an error matching fs.ErrExist. The first run of a test records its
// baseline with Create, so a concurrent or earlier one is never lost.
func Create(path string, b *Baseline) error {
	return writeAtomic(path, b, func(tmp, path string) error {
		// link(2) fails if path exists, atomically; then drop the name
		// of the temporary file.
		if err := os.Link(tmp, path); err != nil {
			return err
		}
		return os.Remove(tmp)
	})
}

// Update replaces the baseline at path with b: the explicit update a test
// run with -stortest.update asks for. With history, the baseline being
// replaced is first appended to HistoryPath(path) (when it is valid: a
// corrupt file is replaced, not kept).
func Update(path string, b *Baseline, history bool) error {
	if history {
		old, err := Load(path)
		switch {
		case err == nil:
			if err := AppendHistory(HistoryPath(path), old); err != nil {
				return err
			}
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrCorrupt), errors.Is(err, ErrSchema):
		default:
			return err
		}
	}
	return WriteFile(path, b)
}

// commitFunc moves the synced temporary file into place.
type commitFunc func(tmp, path string) error

func writeAtomic(path string, b *Baseline, commit commitFunc) error {
	data, err := Marshal(b)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := commit(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("baselines: write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// writeTemp writes data to a synced hidden temporary file beside path and
// returns its name.
func writeTemp(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("baselines: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("baselines: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600; baselines are shared files
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("baselines: write %s: %w", path, err)
	}
	return f.Name(), nil
}

// syncDir makes a rename or link in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("baselines: sync %s: %w", dir, err)
	}
	return nil
}

// AppendHistory appends b, without its per-second samples, as one JSON line
// to the history file at path (created if missing). One write with
// O_APPEND, then fsync: a crash can leave at most a partial last line,
// which ReadHistory skips.
func AppendHistory(path string, b *Baseline) error {
	short := *b
	short.Seconds = nil
	data, err := Marshal(&short)
	if err != nil {
		return err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, data); err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	line.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	_, err = f.Write(line.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("baselines: append %s: %w", path, err)
	}
	return nil
}

// ReadHistory reads a history file: the replaced baselines, oldest first.
// A last line without its newline (a crash during an append) is skipped;
// any other bad line is an *Error naming it.
func ReadHistory(r io.Reader, name string) ([]*Baseline, error) {
	br := bufio.NewReader(r)
	var out []*Baseline
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a partial last line, or none
		}
		if err != nil {
			return out, fmt.Errorf("baselines: read %s: %w", name, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		b, derr := decode(data, name)
		if derr != nil {
			var e *Error
			if errors.As(derr, &e) {
				e.Line = line
			}
			return out, derr
		}
		out = append(out, b)
	}
}
