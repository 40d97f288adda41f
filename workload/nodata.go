package workload

import (
	"slices"
	"time"
)

// NoDataEngines are the options of fio's engines that move no data: cpuio,
// which burns the CPU, exec, which runs a program beside the other jobs,
// and the file engines filecreate, filestat and filedelete, which time
// one call per file over nrfiles files; Job embeds it, so the fields read
// as Job's. falloc and ftruncate take none.
type NoDataEngines struct {
	// NrFiles is fio's nrfiles: the files of each clone (0 means 1),
	// named as fio's jobname.clone.filenum in Directory (or
	// filename_format). Each holds FileSize bytes (else Size split over
	// the files). A file engine's I/O covers them in order, a block at a
	// time: the file's first block does the engine's call; an engine
	// that moves data picks the file of each I/O (see MultiFile).
	NrFiles int `json:"nrfiles,omitempty"`
	// CreateOnOpen (fio's create_on_open) leaves a job's files to be made
	// by the job: none is laid out before it. With the engines that move
	// data, as fio 3.33: the file is created empty when the job opens it
	// and its region is offset+size all the same, which writes fill (a
	// read past the end reads nothing).
	CreateOnOpen bool `json:"create_on_open,omitempty"`
	// Unlink (fio's unlink) removes the job's regular files when the job
	// is over.
	Unlink bool `json:"unlink,omitempty"`
	// UnlinkEachLoop (fio's unlink_each_loop) removes the job's regular
	// files before each loop after the first, as fio 3.33 does once it
	// has closed them (fsyncing them with fsync_on_close): the loop's
	// writes go to a new, empty file. A job that reads is refused (fio
	// fails its second loop: the file is gone).
	UnlinkEachLoop bool `json:"unlink_each_loop,omitempty"`
	// CPULoad is cpuio's cpuload, the percentage of one CPU the job
	// burns: each unit burns CPUChunks (fio's cpuchunks, 0 means 50 ms)
	// and the job idles CPUChunks*(100-CPULoad)/CPULoad after it. CPUMode
	// is cpumode: noop (a busy loop, the default) or qsort.
	CPULoad   int           `json:"cpuload,omitempty"`
	CPUChunks time.Duration `json:"cpuchunks_ns,omitempty"`
	CPUMode   string        `json:"cpumode,omitempty"`
	// StatType is filestat's stat_type: stat (the default), lstat or
	// statx.
	StatType string `json:"stat_type,omitempty"`
	// ExecProgram and ExecArguments are exec's program and arguments
	// (split at blanks; %r is the runtime in seconds, %n the job's
	// name). The program runs for the job's runtime, then gets SIGTERM
	// and, ExecGrace later (grace_time; nil means 1 s), SIGKILL. Its
	// output goes to <job>.stdout and <job>.stderr in the job's
	// directory unless ExecNoRedirect (std_redirect=0).
	ExecProgram    string         `json:"program,omitempty"`
	ExecArguments  string         `json:"arguments,omitempty"`
	ExecGrace      *time.Duration `json:"grace_time_ns,omitempty"`
	ExecNoRedirect bool           `json:"std_redirect_off,omitempty"`
}

// FileEngines are the engines that time one call per file; they take
// nrfiles above 1.
var FileEngines = []string{"filecreate", "filestat", "filedelete"}

// IsFileEngine reports whether the engine called name is a file engine.
func IsFileEngine(name string) bool { return slices.Contains(FileEngines, name) }

// normalizeEngines applies what an engine implies: cpuio and exec run
// for their runtime whatever time_based says, as fio's do (validate.Job
// wants the runtime).
func (j *Job) normalizeEngines() {
	if (j.Engine == "cpuio" || j.Engine == "exec") && j.Runtime > 0 {
		j.TimeBased = true
	}
}

// nrFiles is NrFiles with its default.
func (j *Job) NumFiles() int { return max(j.NrFiles, 1) }

// perFile is the bytes each file of a file-engine job stands for:
// filesize, else size split over the files, in whole blocks.
func (j *Job) PerFile() int64 {
	if j.FileSize > 0 {
		return j.FileSize
	}
	bs := j.MaxBlockSize()
	return j.Size / int64(j.NumFiles()) / bs * bs
}
