package durable

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Log is a file of lines, each ending in '\n', opened to add one: an
// exclusive flock(2) on the file keeps other writers (other test
// binaries, other hosts' commands on a local file system) out until
// Close.
//
// A log whose last bytes lack their newline holds an entry cut short (an
// append that failed or crashed half way, as versions that appended
// without Log did on a full disk). Append writes its line over that
// partial entry rather than after it: a line written after it would be
// glued to it and neither could ever be read, while the partial entry
// itself is unreadable and, as the write it came from failed, what it
// held is still where it was being copied from. Partial says how many
// bytes Append drops.
type Log struct {
	f    *os.File
	path string
	// size is the file's length, end the offset after its last newline
	// (0 without one): the bytes between are a partial entry.
	size, end int64
	tail      []byte // the partial entry, kept to put back
	last      []byte // the last whole line, without its newline; nil if none or longer than MaxTail
	created   bool   // Open made the file, and no Append has been kept
	gone      bool   // the file Open made was removed again
	undo      *Log   // the state before the last Append, for Undo
}

// Open opens (creating it, with mode perm) and locks the log at path,
// and reads its end: its last line and a partial entry after it. Close
// releases it.
func Open(path string, perm os.FileMode) (*Log, error) {
	for {
		l, err := lock(path, perm)
		if err != nil || l != nil {
			return l, err
		}
		// The file was removed (an append to a new log that failed)
		// while this waited for the lock: open it anew.
	}
}

// lock opens and locks path, or returns nil, nil when the name no longer
// leads to the file locked.
func lock(path string, perm os.FileMode) (*Log, error) {
	created := true
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		created = false
		f, err = os.OpenFile(path, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // removed in between
		}
	}
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, path); err != nil {
		return nil, err
	}
	fi, ferr := f.Stat()
	pi, perr := os.Stat(path)
	if ferr == nil && (perr != nil || !os.SameFile(fi, pi)) {
		f.Close()
		return nil, nil
	}
	l := &Log{f: f, path: path, created: created}
	if err := l.readEnd(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// readEnd finds the file's last newline and the one before it, reading
// backwards at most MaxTail bytes, and reads the last line and the
// partial entry after it.
func (l *Log) readEnd() error {
	fi, err := l.f.Stat()
	if err != nil {
		return err
	}
	l.size = fi.Size()
	buf := make([]byte, 64<<10)
	nl, err := l.lastNewline(buf, l.size, MaxTail)
	if err != nil {
		return err
	}
	if nl < 0 && l.size > MaxTail {
		return fmt.Errorf("%s: %w (%d bytes)", l.path, ErrNotLines, MaxTail)
	}
	l.end = nl + 1
	if l.tail, err = l.read(l.end, l.size); err != nil {
		return err
	}
	if nl < 0 {
		return nil
	}
	prev, err := l.lastNewline(buf, nl, MaxTail-(l.size-nl))
	if err != nil || prev < 0 && nl > MaxTail-(l.size-nl) {
		return err // no room to read the last line back: none
	}
	l.last, err = l.read(prev+1, nl)
	return err
}

// lastNewline returns the offset of the last newline before offset
// before and at most limit bytes before it, or -1, reading backwards
// through buf.
func (l *Log) lastNewline(buf []byte, before, limit int64) (int64, error) {
	for off := before; off > 0 && before-off < limit; {
		n := min(int64(len(buf)), off, limit-(before-off))
		off -= n
		if _, err := l.f.ReadAt(buf[:n], off); err != nil {
			return 0, fmt.Errorf("read %s: %w", l.path, err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i), nil
		}
	}
	return -1, nil
}

// read returns the file's bytes from off to end.
func (l *Log) read(off, end int64) ([]byte, error) {
	b := make([]byte, end-off)
	if _, err := l.f.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("read %s: %w", l.path, err)
	}
	return b, nil
}

// Partial returns the length of the partial entry at the log's end,
// which Append replaces: 0 when the log ends in a newline.
func (l *Log) Partial() int { return len(l.tail) }

// Last returns the log's last whole line, without its newline (nil for
// none, or one too long to read back).
func (l *Log) Last() []byte { return l.last }

// Append adds line (which must end in '\n' and hold no other) in one
// write over a partial entry at the end (an empty line only drops it), syncs the file and, for a new
// file, its directory. On any failure the log is put back as it was
// (the partial entry too) and the error names the file.
func (l *Log) Append(line []byte) error {
	if len(line) > 0 && bytes.IndexByte(line, '\n') != len(line)-1 {
		return fmt.Errorf("append %s: not one line ending in a newline", l.path)
	}
	before := *l
	end := l.end + int64(len(line))
	var err error
	if len(line) > 0 {
		err = writeAt(l.f, line, l.end)
	}
	if err == nil && end < l.size {
		err = l.truncate(end)
	}
	if err == nil {
		err = syncFile(l.f)
	}
	if err == nil && l.created {
		err = SyncDir(filepath.Dir(l.path))
	}
	if err != nil {
		if rerr := l.restore(&before); rerr != nil {
			return fmt.Errorf("append %s: %w (and putting it back as it was: %v)", l.path, err, rerr)
		}
		return fmt.Errorf("append %s: %w", l.path, err)
	}
	l.undo = &before
	l.size, l.end, l.tail, l.created = end, end, nil, false
	if len(line) > 0 {
		l.last = bytes.TrimSuffix(line, []byte("\n"))
	}
	return nil
}

// Undo takes back the last Append, putting the log back as it was
// before it (synced): for a change of two files, of which the other
// failed after the append.
func (l *Log) Undo() error {
	if l.undo == nil {
		return errors.New("durable: nothing to undo")
	}
	if err := l.restore(l.undo); err != nil {
		return fmt.Errorf("undo the append to %s: %w", l.path, err)
	}
	gone := l.gone
	*l = *l.undo
	l.gone = gone
	return nil
}

// restore puts the file back to s: its length, then its partial entry,
// synced. Neither step needs space the file did not hold before.
func (l *Log) restore(s *Log) error {
	if s.created {
		// The log did not exist: it does not now. Waiters on its lock
		// see the name gone and open it anew.
		if err := os.Remove(l.path); err != nil {
			return err
		}
		l.gone = true
		return SyncDir(filepath.Dir(l.path))
	}
	if err := l.truncate(s.size); err != nil {
		return err
	}
	if len(s.tail) > 0 {
		if err := writeAt(l.f, s.tail, s.end); err != nil {
			return err
		}
	}
	return syncFile(l.f)
}

func (l *Log) truncate(n int64) error {
	if err := fault(OpTruncate, l.path); err != nil {
		return err
	}
	return l.f.Truncate(n)
}

// Close releases the lock and the file. A log that Open made and that
// holds no line is removed: opening a log and adding nothing to it
// leaves things as they were.
func (l *Log) Close() error {
	if l.created && !l.gone {
		os.Remove(l.path) // under the lock: waiters see the name gone
	}
	return l.f.Close() // closing the last descriptor releases the flock
}
