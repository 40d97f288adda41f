package workload

import (
	"cmp"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Placement are fio's options about where a job's file is and how much
// the job moves; Job embeds it, so the fields read as Job's.
type Placement struct {
	// Directory is fio's directory: a relative Filename, and fio's default
	// file name, are made in it.
	Directory string `json:"directory,omitempty"`
	// FilenameFormat is fio's filename_format: the name of a job's files
	// when it gives no Filename, with $jobname, $jobnum (the clone,
	// from 0) and $filenum (from 0) replaced, in any case, and
	// $clientuid by nothing (fio's client address, empty when it runs
	// alone); "" means fio's default, $jobname.$jobnum.$filenum. The
	// directories of a name with '/' are made (mode 0700), as fio makes
	// them.
	FilenameFormat string `json:"filename_format,omitempty"`
	// SizePercent is fio's size=N% (1-100; "N%%" is the same): with Size
	// 0, the job moves N% of its file or device past Offset (the
	// file's or device's size times N/100, at most what lies past
	// Offset, rounded down to the smallest block size), as fio sizes it
	// once the file is open. The file must exist.
	SizePercent int `json:"size_percent,omitempty"`
	// OffsetPercent is fio's offset=N% (0-100): the job's region starts
	// N% into its file or device (plus the clone's offset_increment),
	// rounded up to OffsetAlign, else to the smallest block size, as fio
	// places it once the file is open. Offset is then 0.
	OffsetPercent int `json:"offset_percent,omitempty"`
	// OffsetAlign is fio's offset_align: the alignment of an
	// OffsetPercent offset (fio aligns no other).
	OffsetAlign int64 `json:"offset_align,omitempty"`
	// FileSize is fio's filesize: the file is laid out to this many bytes,
	// and a job without size moves this much (the parser sets Size). As
	// in fio, the job's offsets are drawn in [Offset, FileSize), and Size
	// only bounds the bytes it moves.
	FileSize int64 `json:"filesize,omitempty"`
	// FileSizeMax is the top of fio's filesize=A-B range (FileSize is
	// A): each file of a job of several files gets a size drawn between
	// them, a multiple of the smallest block size, as fio 3.33 draws it
	// (iogen.DrawFileSizes); 0 for one size.
	FileSizeMax int64 `json:"filesize_max,omitempty"`
	// FileSizesDrawn are the sizes the runner drew for a clone's files
	// (FileSizeMax); not part of the workload.
	FileSizesDrawn []int64 `json:"-"`
	// IOSize is fio's io_size (io_limit): the bytes the job moves, in as
	// many passes over its region as that takes (the last one partial);
	// 0 means Size times Loops.
	IOSize int64 `json:"io_size,omitempty"`
}

// Ordering are fio's options about when a job starts against the other
// jobs and at what pace it runs beside them; Job embeds it, so the
// fields read as Job's.
type Ordering struct {
	// Stonewall (fio's stonewall, wait_for_previous) starts the job once
	// every job before it has finished; WaitFor (wait_for) once the named
	// job has. NewGroup (new_group) starts a new reporting group, as
	// Stonewall does too.
	Stonewall bool   `json:"stonewall,omitempty"`
	WaitFor   string `json:"wait_for,omitempty"`
	NewGroup  bool   `json:"new_group,omitempty"`
	// StartDelay is fio's startdelay: the job starts this long after the
	// run (or the jobs it waits for).
	StartDelay time.Duration `json:"startdelay_ns,omitempty"`
	// Flow holds the job's I/O in a ratio to other jobs' (fio's flow,
	// flow_id, flow_sleep; see Flow).
	Flow Flow `json:"flow,omitzero"`
}

// dirFile returns name in the job's directory unless it is absolute.
func (j *Job) DirFile(name string) string {
	if j.Directory == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(j.Directory, name)
}

// FileName returns the name of file filenum of clone, fio's
// filename_format (FilenameFormat) filled in, in the job's directory.
func (j *Job) FileName(clone, filenum int) string {
	f := j.FilenameFormat
	if f == "" {
		return j.DirFile(cmp.Or(j.Section, j.Name) + "." + strconv.Itoa(clone) + "." + strconv.Itoa(filenum))
	}
	// fio replaces each keyword in turn, every occurrence, matching
	// case-insensitively.
	for _, k := range [...]struct{ key, v string }{
		{"$jobname", cmp.Or(j.Section, j.Name)}, {"$jobnum", strconv.Itoa(clone)}, {"$filenum", strconv.Itoa(filenum)}, {"$clientuid", ""},
	} {
		var b strings.Builder
		for {
			i := indexFold(f, k.key)
			if i < 0 {
				break
			}
			b.WriteString(f[:i])
			b.WriteString(k.v)
			f = f[i+len(k.key):]
		}
		b.WriteString(f)
		f = b.String()
	}
	return j.DirFile(f)
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func containsFold(s, sub string) bool { return indexFold(s, sub) >= 0 }

// FormatNamesClones reports whether FilenameFormat gives each clone a
// name of its own: it holds $jobnum, in any case, as FileName matches it.
func (j *Job) FormatNamesClones() bool { return containsFold(j.FilenameFormat, "$jobnum") }
