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

	"stortest.dev/internal/durable"
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
// synced, renamed over path, and the directory synced. A crash or a full
// or failing disk leaves either the old file or the new one, never a mix
// (a crash at worst a stale hidden temporary file), and the error names
// path. Missing directories are created.
func WriteFile(path string, b *Baseline) error {
	return write(path, b, (*durable.Staged).Commit)
}

// Create writes b to path atomically like WriteFile but never replaces
// anything: if path exists (a valid or a corrupt baseline) it fails with
// an error matching fs.ErrExist. The first run of a test records its
// baseline with Create, so a concurrent or earlier one is never lost.
func Create(path string, b *Baseline) error {
	// link(2) fails if path exists, atomically.
	return write(path, b, (*durable.Staged).CommitNew)
}

// write stages b beside path and puts it in place with commit.
func write(path string, b *Baseline, commit func(*durable.Staged) error) error {
	s, err := stage(path, b)
	if err != nil {
		return err
	}
	if err := commit(s); err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	return nil
}

// Lock locks the baseline at path against other processes that lock it
// (an exclusive flock on its directory, made if missing), for a read,
// change and rewrite of it such as Grow's: two go test processes adding
// their sessions to one baseline at once then each add theirs, one
// after the other, instead of the later write dropping the earlier
// one's. It waits while another holds it; unlock releases it.
func Lock(path string) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	unlock, err = durable.LockDir(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	return unlock, nil
}

// stage writes b to a synced hidden temporary file beside path.
func stage(path string, b *Baseline) (*durable.Staged, error) {
	data, err := Marshal(b)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	s, err := durable.Stage(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	return s, nil
}

// Updated says what Update did besides writing the baseline.
type Updated struct {
	// Kept is whether the replaced baseline went into the history (not
	// when there was none, it was corrupt, history was not asked for, or
	// it is the history's last entry already).
	Kept bool
	// Dropped is the length of a partial entry at the end of the history
	// (left by an append that failed or crashed, as earlier versions
	// left one on a full disk) that the kept baseline replaced.
	Dropped int
}

// Update replaces the baseline at path with b: the explicit update a test
// run with -stortest.update asks for. With history, the baseline being
// replaced is kept as the last line of HistoryPath(path) (when it is
// valid: a corrupt file is replaced, not kept).
//
// The update is all or nothing: the new baseline is written to a synced
// temporary file first, then the old one appended to the history
// (AppendHistory), then the new one renamed into place; a failure of any
// step (a full disk, ENOSPC; a failing one, EIO) undoes the steps before
// it, so the baseline and its history are as they were, and the error
// names the file. (A failed sync of the directory after the rename is
// an error too, but leaves the update done: the new baseline is what
// readers see, the old one kept.) A crash can leave the old baseline both in place and
// in the history: the next update does not append it twice.
func Update(path string, b *Baseline, history bool) (Updated, error) {
	var up Updated
	var old *Baseline
	if history {
		var err error
		old, err = Load(path)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrCorrupt), errors.Is(err, ErrSchema):
			old = nil
		default:
			return up, err
		}
	}
	s, err := stage(path, b)
	if err != nil {
		return up, err
	}
	var log *durable.Log
	if old != nil {
		log, up, err = appendHistory(HistoryPath(path), old)
		if err != nil {
			s.Abort()
			return Updated{}, err
		}
		defer log.Close()
	}
	if err := s.Commit(); err != nil {
		err = fmt.Errorf("baselines: %w", err)
		if up != (Updated{}) && !errors.Is(err, durable.ErrUnsynced) {
			if uerr := log.Undo(); uerr != nil {
				err = fmt.Errorf("%w; the history keeps the baseline all the same: %v", err, uerr)
			}
		}
		return Updated{}, err
	}
	return up, nil
}

// AppendHistory appends b, without its per-second samples, as one JSON
// line to the history file at path (created if missing): one write under
// an exclusive flock, then fsync; on any failure the file is put back as
// it was and the error names it, so a full disk leaves no partial line.
// A partial line at the end (an append that crashed, or failed in an
// earlier version) is replaced (durable.Log says why); an entry equal to
// the last one is not appended again.
func AppendHistory(path string, b *Baseline) (Updated, error) {
	log, up, err := appendHistory(path, b)
	if err != nil {
		return up, err
	}
	if err := log.Close(); err != nil {
		return up, fmt.Errorf("baselines: append %s: %w", path, err)
	}
	return up, nil
}

// appendHistory appends b to the history at path and returns it still
// open and locked, so that the append can be undone.
func appendHistory(path string, b *Baseline) (*durable.Log, Updated, error) {
	line, err := historyLine(b)
	if err != nil {
		return nil, Updated{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, Updated{}, fmt.Errorf("baselines: %w", err)
	}
	log, err := durable.Open(path, 0o644)
	if err != nil {
		return nil, Updated{}, fmt.Errorf("baselines: append %s: %w", path, err)
	}
	up := Updated{Kept: true, Dropped: log.Partial()}
	if bytes.Equal(log.Last(), line[:len(line)-1]) {
		// Kept already, by an update cut short: only a partial entry
		// after it goes.
		line, up.Kept = nil, false
		if up.Dropped == 0 {
			return log, up, nil
		}
	}
	if err := log.Append(line); err != nil {
		log.Close()
		return nil, Updated{}, fmt.Errorf("baselines: %w", err)
	}
	return log, up, nil
}

// historyLine is b as a line of a history: compact JSON without the
// per-second samples, and a newline.
func historyLine(b *Baseline) ([]byte, error) {
	short := *b
	short.Seconds = nil
	data, err := Marshal(&short)
	if err != nil {
		return nil, err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, data); err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	line.WriteByte('\n')
	return line.Bytes(), nil
}

// A Skipped is a stretch of a history file that ReadHistory passed over:
// an entry cut short by an append that failed or crashed.
type Skipped struct {
	File   string
	Line   int // 1-based
	Bytes  int // the bytes passed over
	Reason string
}

func (s Skipped) String() string {
	return fmt.Sprintf("%s:%d: skipped %d bytes: %s", s.File, s.Line, s.Bytes, s.Reason)
}

// entryStart begins every history line: Marshal writes the schema first.
var entryStart = []byte(`{"schema"`)

// ReadHistory reads a history file: the replaced baselines, oldest first,
// and what it skipped. Appends leave two kinds of damage, which are
// skipped and each described in a Skipped (file, line, bytes, why):
//
//   - a last line without its newline: an append cut short (a crash, or
//     a full disk in an earlier version); the next append replaces it;
//   - a line that begins with such a partial entry and goes on with a
//     whole one: an earlier version appended after a partial entry
//     without ending it. The whole entry at the line's end is read; the
//     partial one before it is skipped.
//
// Any other bad line is an *Error naming it: a history is evidence, and
// damage that no append leaves is not passed over.
func ReadHistory(r io.Reader, name string) ([]*Baseline, []Skipped, error) {
	br := bufio.NewReader(r)
	var out []*Baseline
	var skipped []Skipped
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if err == io.EOF {
			if len(bytes.TrimSpace(data)) > 0 {
				skipped = append(skipped, Skipped{File: name, Line: line, Bytes: len(data),
					Reason: "no newline at the end: an entry cut short by an append that failed or crashed (the next update replaces it)"})
			}
			return out, skipped, nil
		}
		if err != nil {
			return out, skipped, fmt.Errorf("baselines: read %s: %w", name, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if at := gluedEntry(data); at > 0 {
			skipped = append(skipped, Skipped{File: name, Line: line, Bytes: at,
				Reason: "an entry cut short, with the next entry appended to it on the same line (an append that failed, then one by an earlier version); the entry after it is read"})
			data = data[at:]
		}
		b, derr := decode(data, name)
		if derr != nil {
			var e *Error
			if errors.As(derr, &e) {
				e.Line = line
			}
			return out, skipped, derr
		}
		out = append(out, b)
	}
}

// gluedEntry returns where the whole entry of a line begins when the
// line is one or more partial entries (the start of an entry, not valid
// JSON) followed by a whole one, else 0.
func gluedEntry(data []byte) int {
	if !bytes.HasPrefix(data, entryStart) || json.Valid(data) {
		return 0
	}
	// The first start of an entry after which the line is valid JSON:
	// the partial entries before it are skipped together.
	for off := 1; off < len(data); {
		i := bytes.Index(data[off:], entryStart)
		if i < 0 {
			return 0
		}
		off += i
		if json.Valid(data[off:]) && !json.Valid(data[:off]) {
			return off
		}
		off++
	}
	return 0
}
