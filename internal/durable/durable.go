// Package durable writes the files stortest keeps (baselines, their
// histories, the run history, artifacts, reports) so that a full or
// failing disk (ENOSPC, EIO) leaves each of them whole or as it was,
// never half written, and says which file failed.
//
// Whole files go through a hidden temporary file in the same directory,
// synced, renamed (or linked) into place, the directory synced: a reader
// or a crash sees the old file or the new one. Line logs (a .jsonl
// history) grow by one write of a whole line under an exclusive flock,
// synced, and a failure puts the file back as it was (Log). Readers of a
// directory of such files list it with VisibleFiles, which passes over
// the hidden temporary files of writes under way.
package durable

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Op names a step that puts bytes on disk, for Inject.
type Op string

// The steps Inject sees.
const (
	OpWrite    Op = "write"
	OpSync     Op = "sync"
	OpRename   Op = "rename"
	OpTruncate Op = "truncate"
	OpSyncDir  Op = "syncdir"
)

var inject atomic.Pointer[func(op Op, path string) error]

// Inject sets the fault injector and returns the function that removes
// it: before each step, f is called with the step and the file (the
// temporary file for writes of whole files, the directory for OpSyncDir)
// and an error it returns is that step's, as a failing device's (EIO)
// would be. An OpWrite that fails writes the first half of its bytes
// first, as a write cut short by a full or failing device does. It is for
// tests, where a real device cannot be made to fail on cue; nil f removes
// it.
func Inject(f func(op Op, path string) error) (restore func()) {
	old := inject.Load()
	if f == nil {
		inject.Store(nil)
	} else {
		inject.Store(&f)
	}
	return func() { inject.Store(old) }
}

func fault(op Op, path string) error {
	if f := inject.Load(); f != nil {
		return (*f)(op, path)
	}
	return nil
}

// writeAt writes p to f at off whole, or fails.
func writeAt(f *os.File, p []byte, off int64) error {
	if err := fault(OpWrite, f.Name()); err != nil {
		f.WriteAt(p[:len(p)/2], off)
		return err
	}
	_, err := f.WriteAt(p, off)
	return err
}

func syncFile(f *os.File) error {
	if err := fault(OpSync, f.Name()); err != nil {
		return err
	}
	return f.Sync()
}

// faultWriter is a file's writer with the injector in front.
type faultWriter struct{ f *os.File }

func (w faultWriter) Write(p []byte) (int, error) {
	if err := fault(OpWrite, w.f.Name()); err != nil {
		n, _ := w.f.Write(p[:len(p)/2])
		return n, err
	}
	return w.f.Write(p)
}

// SyncDir makes a rename, link or creation in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := fault(OpSyncDir, dir); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Staged is a file written in full beside its place and not yet moved
// there: Commit moves it, Abort removes it.
type Staged struct {
	path, tmp string
}

// A File is a file being written beside its place (Create): what is
// written goes to a hidden temporary file, which Close syncs and moves
// into place, or Abort removes.
type File struct {
	f    *os.File
	path string
	perm os.FileMode
	err  error // the first write's error
}

// Create starts writing the file at path: the bytes go to a hidden
// temporary file beside it (".<name>.tmp-*", which readers of a
// directory skip), in a directory that must exist. Nothing is at path
// until Close.
func Create(path string, perm os.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Name returns the path the file goes to.
func (f *File) Name() string { return f.path }

// Write writes p to the temporary file. After an error every write
// fails with it.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := faultWriter{f.f}.Write(p)
	if err != nil {
		f.err = fmt.Errorf("write %s: %w", f.path, err)
	}
	return n, f.err
}

// stage syncs and closes the temporary file; on failure it removes it.
func (f *File) stage() (*Staged, error) {
	err := f.err
	if err == nil {
		err = f.f.Chmod(f.perm) // CreateTemp makes 0600
	}
	if err == nil {
		err = syncFile(f.f)
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.f.Name())
		if err == f.err {
			return nil, err
		}
		return nil, fmt.Errorf("write %s: %w", f.path, err)
	}
	return &Staged{path: f.path, tmp: f.f.Name()}, nil
}

// Close syncs the file and renames it into place, replacing a file
// there (Staged.Commit). On any failure (a write's before, too) the
// temporary file is removed, what was at path stays, and the error names
// path.
func (f *File) Close() error {
	s, err := f.stage()
	if err != nil {
		return err
	}
	return s.Commit()
}

// Abort drops what was written: nothing is left.
func (f *File) Abort() {
	f.f.Close()
	os.Remove(f.f.Name())
}

// Stage writes what fill writes to a synced hidden temporary file beside
// path, with mode perm, to be committed. On any failure nothing is left and the error names path.
func Stage(path string, perm os.FileMode, fill func(w io.Writer) error) (*Staged, error) {
	f, err := Create(path, perm)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Abort()
		if f.err != nil {
			return nil, f.err
		}
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f.stage()
}

// ErrUnsynced is matched by the error of a write whose file is in place
// but whose directory could not be synced: the new file is what readers
// see, though a crash might yet bring the old one back.
var ErrUnsynced = errors.New("in place, but its directory not synced")

// Commit renames the staged file over its path (replacing a file there)
// and syncs the directory. A failed rename removes the staged file and
// leaves the old one; a failed directory sync leaves the new file in
// place, possibly not yet durable, and is an error matching ErrUnsynced.
func (s *Staged) Commit() error {
	err := fault(OpRename, s.path)
	if err == nil {
		err = os.Rename(s.tmp, s.path)
	}
	if err != nil {
		os.Remove(s.tmp)
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return unsynced(s.path, SyncDir(filepath.Dir(s.path)))
}

func unsynced(path string, err error) error {
	if err != nil {
		return fmt.Errorf("write %s: %w: %w", path, ErrUnsynced, err)
	}
	return nil
}

// CommitNew links the staged file to its path only if nothing is there:
// link(2) fails atomically with an error matching fs.ErrExist otherwise.
// The staged file is removed in every case.
func (s *Staged) CommitNew() error {
	err := fault(OpRename, s.path)
	if err == nil {
		err = os.Link(s.tmp, s.path)
	}
	os.Remove(s.tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return unsynced(s.path, SyncDir(filepath.Dir(s.path)))
}

// Name returns the staged file's name.
func (s *Staged) Name() string { return s.tmp }

// Abort removes the staged file.
func (s *Staged) Abort() { os.Remove(s.tmp) }

// WriteFile writes what fill writes to path atomically (Stage, Commit):
// afterwards path holds all of it, or, on error, what it held before.
func WriteFile(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	s, err := Stage(path, perm, fill)
	if err != nil {
		return err
	}
	return s.Commit()
}

// WriteBytes is WriteFile of data.
func WriteBytes(path string, perm os.FileMode, data []byte) error {
	return WriteFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ErrNotLines is matched by Open's error for a file whose last MaxTail
// bytes hold no newline: not a line log, or one damaged beyond repair.
var ErrNotLines = errors.New("no newline in the file's last bytes: not a log of lines")

// MaxTail bounds what Open reads from a log's end: its last whole line
// and a partial one after it.
const MaxTail = 64 << 20
