package runner

import (
	"context"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// Jobs of several files (nrfiles above 1 with an engine that moves
// data): the clone's files named, laid out and opened, one engine
// serving them all (engines.Unit.File); the pattern picks each I/O's
// file (iogen's files_gen.go).

// fileNames returns the files of a job of several files' clone as fio
// 3.33 adds them: FileName(clone, i) for each of NrFiles. A name that
// repeats (filename_format without $filenum) is a file of its own to
// fio each time, with its own region over the same bytes: fio 3.33
// keeps the repeats in every clone.
func fileNames(j *workload.Job, clone int) []string {
	names := make([]string, j.NumFiles())
	for i := range names {
		names[i] = j.FileName(clone, i)
	}
	return names
}

// multiClone returns the clone (fio thread number thread) of a job of
// several files with its files' sizes drawn (a filesize range) and its
// size their sum when it gives none, and the files' names; a job of one
// file as it is, and nil.
func multiClone(j workload.Job, clone, thread int) (workload.Job, []string) {
	if !j.MultiFiles() {
		return j, nil
	}
	if j.FileSizeMax != 0 {
		j.FileSizesDrawn = iogen.DrawFileSizes(&j, thread)
	}
	if j.Size == 0 {
		j.Size = j.TotalSize()
	}
	return j, fileNames(&j, clone)
}

// fileJob returns job as the single-file code sees file i of names: its
// name and its region's size.
func fileJob(job workload.Job, names []string, sizes []int64, i int) workload.Job {
	job.Filename, job.Size, job.FileSize, job.NrFiles = names[i], sizes[i], 0, 0
	return job
}

// prepareFiles lays out each file of a job of several files' clone (its
// region past the offset), as fio lays out each of a job's files.
func prepareFiles(ctx context.Context, job workload.Job, names []string) error {
	sizes := job.FileSizes()
	for i := range names {
		if err := prepareTarget(ctx, fileJob(job, names, sizes, i)); err != nil {
			return err
		}
	}
	return nil
}

// openFiles opens the files of a job of several files: the first as
// the worker's file, the others as its more.
func (w *worker) openFiles(job *workload.Job, names []string) error {
	for i, name := range names {
		f, err := engines.OpenFileFlags(name, writes(job), job.Direct, syncFlag(job))
		if err != nil {
			return fmt.Errorf("workload: job %s: %w", job.Name, err)
		}
		if i == 0 {
			w.file = f
		} else {
			w.more = append(w.more, f)
		}
	}
	return nil
}

// closeMore closes the further files of a job of several files.
func (w *worker) closeMore() {
	for _, f := range w.more {
		f.Close()
	}
	w.more = nil
}

// unlinkNames returns the regular files unlink removes of a job of
// several files.
func unlinkNames(names []string) []string {
	var paths []string
	for _, p := range names {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// prepareCaches is prepareCache over each of the job's files: a file of
// size bytes, or a job of several files' regions.
func (w *worker) prepareCaches(size int64) error {
	if w.names == nil {
		return w.prepareCache(size)
	}
	sizes := w.job.FileSizes()
	for i, f := range append([]*os.File{w.file}, w.more...) {
		var st unix.Stat_t
		fd := int(f.Fd())
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		j := fileJob(w.job, w.names, sizes, i)
		if err := prepareCache(&j, &st, fd, j.Offset, j.Size); err != nil {
			return err
		}
	}
	return nil
}
