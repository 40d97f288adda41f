package runner

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// The engines that move no data while a job runs: files laid out and
// removed, the CPU duty cycle, the program of exec.

// setupNoFile prepares a worker that opens no file: the size of its
// region, the job with its size fitted to it, and for the file engines
// the files (laid out unless filecreate or create_on_open).
func (w *worker) setupNoFile(job workload.Job, clone int) (workload.Job, int64, error) {
	switch {
	case job.Engine == "null" && job.FileSize > 0:
		// fio's null engine has no file size of its own but the
		// size's: with filesize alone its I/O may run past the region
		// (a size given beside it, which the job cannot tell from the
		// one filesize sets, would end the file with the region).
		return job, math.MaxInt64, nil
	case job.Engine == "null":
		return job, job.Offset + job.Size, nil
	case job.Engine == "cpuio" || job.Engine == "exec":
		return job, job.Offset + max(job.Size, job.MaxBlockSize()), nil
	case workload.IsNetEngine(job.Engine):
		return job, job.Offset + job.Size, nil // a stream: the region is the amount
	}
	per := job.PerFile()
	w.files = engines.FileSet{Name: job.Filename, N: job.NumFiles(), Size: per}
	if job.Filename == "" {
		w.files.Names = make([]string, w.files.N)
		for i := range w.files.Names {
			w.files.Names[i] = job.FileName(clone, i)
		}
	}
	size := per * int64(w.files.N)
	if job.Size == 0 || job.Size > size {
		job.Size = size
	}
	if job.Engine != "filecreate" && !job.CreateOnOpen {
		if err := layoutFiles(w.files); err != nil {
			return job, 0, fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
	}
	return job, size, nil
}

// layoutFiles writes each file of the set that is missing or short, as
// fio lays out a job's files before it starts: its bytes written and
// synced.
func layoutFiles(s engines.FileSet) error {
	buf := make([]byte, min(s.Size, 1<<20))
	for i := range buf {
		buf[i] = byte(i*7 + i>>8)
	}
	for i := range s.N {
		p := s.Path(i)
		if st, err := os.Stat(p); err == nil && (!st.Mode().IsRegular() || st.Size() >= s.Size) {
			continue
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("lay out %s: %w", p, err)
		}
		for off := int64(0); off < s.Size && err == nil; off += int64(len(buf)) {
			_, err = f.Write(buf[:min(int64(len(buf)), s.Size-off)])
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("lay out %s: %w", p, err)
		}
	}
	return nil
}

// unlinkFiles removes the job's regular files (unlink=1): a file
// engine's set, or the file it named.
func (w *worker) unlinkFiles() error {
	var paths []string
	switch {
	case w.names != nil:
		paths = unlinkNames(w.names)
	case w.files.N > 0:
		for i := range w.files.N {
			paths = append(paths, w.files.Path(i))
		}
	case w.job.Filename != "":
		if st, err := os.Stat(w.job.Filename); err == nil && st.Mode().IsRegular() {
			paths = append(paths, w.job.Filename)
		}
	}
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cpuDuty is cpuio's duty cycle: after each unit the job idles
// CPUChunks*(100-CPULoad)/CPULoad (fio's cpuio sets that thinktime), so
// the thread is busy CPULoad percent of the time. An exec job idles as
// long as its units wait on the program, 50 ms: fio's exec job makes
// 10 units a second of about 50 ms each.
type cpuDuty struct {
	idle  int64 // ns after each unit
	until int64 // ns: the next unit starts then
	armed bool  // a unit was issued: start the idle at the next call
}

func newCPUDuty(j *workload.Job) *cpuDuty {
	if j.Engine == "exec" {
		return &cpuDuty{idle: int64(50 * time.Millisecond)}
	}
	if j.Engine != "cpuio" || j.CPULoad <= 0 || j.CPULoad >= 100 {
		return nil
	}
	chunk := j.CPUChunks
	if chunk == 0 {
		chunk = engines.DefaultCPUChunk
	}
	return &cpuDuty{idle: int64(chunk) * int64(100-j.CPULoad) / int64(j.CPULoad)}
}

// wait returns how long the next unit must wait at now (ns): the idle
// after the unit issued last, counted from the first call after it (its
// completion, for cpuio's synchronous units).
func (c *cpuDuty) wait(now int64) int64 {
	if c.armed {
		c.until, c.armed = now+c.idle, false
	}
	return max(c.until-now, 0)
}

// execSpec is the program of an exec job, its arguments split at blanks
// with fio's %r (the runtime in whole seconds) and %n (the job's name)
// replaced; nil for other engines.
func execSpec(j *workload.Job) *engines.ExecSpec {
	if j.Engine != "exec" {
		return nil
	}
	r := strconv.FormatInt(int64(j.Runtime/time.Second), 10)
	args := strings.Fields(strings.NewReplacer("%r", r, "%n", j.Name).Replace(j.ExecArguments))
	s := &engines.ExecSpec{Path: j.ExecProgram, Args: args, Grace: time.Second}
	if j.ExecGrace != nil {
		s.Grace = *j.ExecGrace
	}
	if !j.ExecNoRedirect {
		s.Stdout, s.Stderr = j.DirFile(j.Name+".stdout"), j.DirFile(j.Name+".stderr")
	}
	return s
}

// stopEngine ends what the engine runs beside the job once the job's
// I/O is over: exec's program gets its signals at the job's end, not
// when every job is.
func (w *worker) stopEngine() {
	if s, ok := w.eng.(interface{ Stop() error }); ok {
		if err := s.Stop(); err != nil && w.res.Err == nil {
			w.res.Err = err
		}
	}
}

// opensNoFile reports whether the job's worker opens no file: null
// without a filename, cpuio, and the file engines, which name their own.
func opensNoFile(j *workload.Job) bool {
	return (j.Engine == "null" && j.Filename == "") || (j.Engine != "null" && !engines.NeedsFile(j.Engine))
}

// unlinkLoop is unlink_each_loop at the first I/O of a loop after the
// first, as fio 3.33 does between its loops: with nothing in flight,
// each of the job's regular files is fsynced (fsync_on_close, as fio
// closes it), removed and made again, empty (O_CREAT, mode 0600, as fio
// opens a file it writes), at the descriptor the engine holds. false
// when the job stalled or failed.
func (w *worker) unlinkLoop() bool {
	if !w.drainInFlight() {
		return false
	}
	files := append([]*os.File{w.file}, w.more...)
	names := w.names
	if names == nil {
		names = []string{w.job.Filename}
	}
	for i, f := range files {
		if f == nil || !isRegular(f) {
			continue
		}
		if err := w.reopenEmpty(f, names[i]); err != nil {
			w.fail(fmt.Errorf("unlink_each_loop: %w", err))
			return false
		}
	}
	if r, ok := w.eng.(interface{ FilesReopened() }); ok {
		r.FilesReopened()
	}
	return true
}

// reopenEmpty fsyncs f (fsync_on_close), removes name and makes it again
// at f's descriptor.
func (w *worker) reopenEmpty(f *os.File, name string) error {
	if w.job.FsyncOnClose {
		if err := unix.Fsync(int(f.Fd())); err != nil {
			return fmt.Errorf("fsync %s: %w", name, err)
		}
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	flags := unix.O_RDWR | unix.O_CREAT | unix.O_CLOEXEC | syncFlag(&w.job)
	if w.job.Direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(name, flags, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer unix.Close(fd)
	if err := unix.Dup3(fd, int(f.Fd()), unix.O_CLOEXEC); err != nil {
		return fmt.Errorf("dup3 %s: %w", name, err)
	}
	return nil
}
