package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"

	"stortest.dev/engines"
	"stortest.dev/internal/owner"
	"stortest.dev/workload"
)

// Scratch is a throw-away target: a file filled with data, optionally
// behind a loop device. Close detaches the loop device and removes the
// file.
type Scratch struct {
	Path    string // what to run I/O on: the loop device, or the file
	File    string // the backing file
	Loop    *engines.Loop
	removed bool
}

// ScratchOptions configure NewScratch.
type ScratchOptions struct {
	Dir  string // where the backing file goes; "" means os.TempDir()
	Size int64  // bytes; rounded down to 1 MiB, at least 1 MiB
	// Loop attaches a loop device over the file (needs root).
	Loop bool
	// DirectIO makes the loop device use direct I/O on its backing file,
	// so its I/O reaches the disk below instead of the page cache.
	DirectIO  bool
	BlockSize uint32 // loop device logical block size; 0 for 512
	// Keep marks a file kept on purpose past this process (for
	// inspection, STORTEST_NOCLEANUP=1): its name carries no owner tag,
	// so CleanOrphans never takes it for an orphan.
	Keep bool
}

// scratchPrefix begins every scratch file's name (owner.ScratchPrefix).
const scratchPrefix = owner.ScratchPrefix

// scratchPattern is the os.CreateTemp pattern of a scratch file.
func scratchPattern(keep bool) string {
	tag := owner.Tag()
	if keep || tag == "" {
		return scratchPrefix + "*.img"
	}
	return scratchPrefix + tag + "-*.img"
}

// NewScratch creates the backing file, writes every byte (so reads hit
// real data, not holes, as fio lays out files before reading), and
// attaches a loop device when asked. Unless kept, the file is named after
// this process, so that if the process dies before Close, CleanOrphans in
// a later process finds and removes it.
func NewScratch(o ScratchOptions) (*Scratch, error) {
	size := max(o.Size&^(1<<20-1), 1<<20)
	f, err := os.CreateTemp(o.Dir, scratchPattern(o.Keep))
	if err != nil {
		return nil, fmt.Errorf("workload: scratch file: %w", err)
	}
	s := &Scratch{Path: f.Name(), File: f.Name()}
	if err := fill(context.Background(), f, size, true); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("workload: scratch file %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	if o.Loop {
		l, err := engines.AttachLoop(s.File, engines.LoopOptions{DirectIO: o.DirectIO, BlockSize: o.BlockSize})
		if err != nil {
			os.Remove(s.File)
			return nil, fmt.Errorf("workload: scratch loop device over %s: %w", s.File, err)
		}
		s.Loop = l
		s.Path = l.Path()
	}
	return s, nil
}

// fill writes size bytes of pseudo-random data (incompressible, so
// devices that compress or deduplicate do real work) and syncs when
// asked (fio's create_fsync).
func fill(ctx context.Context, f *os.File, size int64, sync bool) error {
	buf := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(uint64(size), 0x5eed))
	for off := int64(0); off < size; off += int64(len(buf)) {
		// A signal stops a layout of gigabytes as it stops the I/O:
		// within a MiB, not when the file is whole.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stopped after %d of %d bytes: %w", off, size, err)
		}
		for i := 0; i+8 <= len(buf); i += 8 {
			v := r.Uint64()
			for k := range 8 {
				buf[i+k] = byte(v >> (8 * k))
			}
		}
		n := min(int64(len(buf)), size-off)
		if _, err := f.Write(buf[:n]); err != nil {
			return err
		}
	}
	if !sync {
		return nil
	}
	return f.Sync()
}

// Close detaches the loop device and removes the file. It is safe to
// call more than once.
func (s *Scratch) Close() error {
	var errs []error
	if s.Loop != nil {
		if err := s.Loop.Detach(); err != nil {
			errs = append(errs, err)
		}
	}
	if !s.removed {
		if err := os.Remove(s.File); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		s.removed = true
	}
	return errors.Join(errs...)
}

// prepareTarget lays out a regular file the job names when it is missing
// or smaller than the job's region, as fio does before reading it.
// Devices are left alone.
func prepareTarget(ctx context.Context, job workload.Job) error {
	if opensNoFile(&job) {
		return nil // no file: null, cpuio; the file engines lay out their own
	}
	if job.Filename == "" {
		return fmt.Errorf("workload: job %s: no filename (give filename=, a file or block device)", job.Name)
	}
	st, err := os.Stat(job.Filename)
	switch {
	case err == nil && st.IsDir():
		// fio fails such a job with EISDIR, whatever its direction and
		// size (err=21, "error=Is a directory"): laying it out, opening it
		// for writing or reading it. Read as a 4096-byte file it gave a
		// puzzling "past the end of the file".
		return fmt.Errorf("workload: job %s: %w (fio: \"error=Is a directory\"): give a file or a block device, or directory= for files in it",
			job.Name, &fs.PathError{Op: "filename", Path: job.Filename, Err: syscall.EISDIR})
	case err == nil && !st.Mode().IsRegular():
		return nil // a device
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	if err != nil && job.NoFileCreate {
		return fmt.Errorf("workload: job %s: %s does not exist (fio: \"file creation disallowed by allow_file_create=0\")", job.Name, job.Filename)
	}
	if err != nil {
		// fio makes the directories of a file name with '/' (mode
		// 0700), as filename_format's "$jobname/$jobnum" needs.
		if err := os.MkdirAll(filepath.Dir(job.Filename), 0o700); err != nil {
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	if job.FillDevice || job.FileAppend || job.CreateOnOpen {
		// fill_device writes the file until the file system is full,
		// file_append after its end, create_on_open makes it when it
		// opens it (fio adds O_CREAT then, mode 0600): nothing is laid
		// out first.
		mode := os.FileMode(0o644)
		if job.CreateOnOpen {
			mode = 0o600
		}
		f, err := os.OpenFile(job.Filename, os.O_RDWR|os.O_CREATE, mode)
		if err != nil {
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
		return f.Close()
	}
	want := job.Offset + job.Size
	if job.FileSize > 0 {
		want = job.FileSize // fio lays out filesize, whatever the size
	}
	if job.Size == 0 && job.FileSize == 0 {
		if err != nil {
			return fmt.Errorf("workload: job %s: %s does not exist and the job gives no size", job.Name, job.Filename)
		}
		return nil
	}
	if err == nil && st.Size() >= want {
		return nil
	}
	f, err := os.OpenFile(job.Filename, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("workload: job %s: lay out %s: %w", job.Name, job.Filename, err)
	}
	defer f.Close()
	if job.NoOverwrite && !job.RW.Reads() {
		// overwrite=0: the job's writes lay it out.
		if err := f.Truncate(want); err != nil {
			return fmt.Errorf("workload: job %s: lay out %s: %w", job.Name, job.Filename, err)
		}
		return nil
	}
	have := int64(0)
	if st != nil {
		have = st.Size()
	}
	if _, err := f.Seek(have, io.SeekStart); err != nil {
		return err
	}
	if err := fill(ctx, f, want-have, !job.NoCreateFsync); err != nil {
		return fmt.Errorf("workload: job %s: lay out %s: %w", job.Name, job.Filename, err)
	}
	return nil
}

// fileLater reports whether the job takes its size from a regular file
// that does not exist yet or is empty: a job that waits for earlier ones
// is then set up when it starts.
func fileLater(j workload.Job) bool {
	if j.Size != 0 || j.Filename == "" {
		return false
	}
	st, err := os.Stat(j.Filename)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return st.Mode().IsRegular() && st.Size() <= j.Offset
}
