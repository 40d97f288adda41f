package workload

import (
	"fmt"
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
// for their runtime whatever time_based says, as fio's do (Validate
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

// unsupportedField is a FieldError for what stortest does not do.
func unsupportedField(job, field, what string) error {
	return &FieldError{Job: job, Field: field, Reason: what + " is not supported by stortest", Err: ErrUnsupported}
}

// validateEngines checks NoDataEngines' fields of the normalized job, and
// what the engines that move no data need of the others.
func (j *Job) validateEngines() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	fileEng := IsFileEngine(j.Engine)
	switch {
	case j.NrFiles < 0:
		return bad("nrfiles", "negative (%d)", j.NrFiles)
	case j.CPULoad != 0 && j.Engine != "cpuio":
		return bad("cpuload", "ioengine=%s does not take it (only cpuio)", j.Engine)
	case j.CPUChunks != 0 && j.Engine != "cpuio":
		return bad("cpuchunks", "ioengine=%s does not take it (only cpuio)", j.Engine)
	case j.CPUMode != "" && j.Engine != "cpuio":
		return bad("cpumode", "ioengine=%s does not take it (only cpuio)", j.Engine)
	case j.CPUMode != "" && j.CPUMode != "noop" && j.CPUMode != "qsort":
		return bad("cpumode", "unknown mode %q (want noop or qsort)", j.CPUMode)
	case j.CPUChunks < 0 || j.CPUChunks%time.Microsecond != 0:
		return bad("cpuchunks", "%v is not a whole positive number of microseconds", j.CPUChunks)
	case j.UnlinkEachLoop && (IsFileEngine(j.Engine) || j.Engine == "cpuio" || j.Engine == "exec" || j.Engine == "mmap"):
		return unsupportedField(j.Name, "unlink_each_loop", "unlink_each_loop with ioengine="+j.Engine)
	case j.UnlinkEachLoop && j.RW.Reads():
		return unsupportedField(j.Name, "unlink_each_loop", "unlink_each_loop with rw="+j.RW.String()+" (fio fails the second loop's reads: the file is gone)")
	case j.UnlinkEachLoop && (j.RegisterFiles || j.Offload || j.Verify != VerifyNone || j.ReadIOLog != ""):
		return unsupportedField(j.Name, "unlink_each_loop", "unlink_each_loop with registerfiles, io_submit_mode=offload, verify or read_iolog")
	case j.StatType != "" && j.Engine != "filestat":
		return bad("stat_type", "ioengine=%s does not take it (only filestat)", j.Engine)
	case j.StatType != "" && j.StatType != "stat" && j.StatType != "lstat" && j.StatType != "statx":
		return bad("stat_type", "unknown %q (want stat, lstat or statx)", j.StatType)
	}
	for _, o := range [...]struct {
		name string
		set  bool
	}{{"program", j.ExecProgram != ""}, {"arguments", j.ExecArguments != ""}, {"grace_time", j.ExecGrace != nil}, {"std_redirect", j.ExecNoRedirect}} {
		if o.set && j.Engine != "exec" {
			return bad(o.name, "ioengine=%s does not take it (only exec)", j.Engine)
		}
	}
	if j.Engine == "exec" {
		switch {
		case j.ExecProgram == "":
			return bad("program", "ioengine=exec needs a program")
		case j.Runtime == 0:
			return bad("runtime", "ioengine=exec runs its program for the runtime: give one")
		case j.ExecGrace != nil && (*j.ExecGrace < 0 || *j.ExecGrace%time.Microsecond != 0):
			return bad("grace_time", "%v is not a whole positive number of microseconds", *j.ExecGrace)
		}
		for _, f := range []struct{ name, v string }{{"program", j.ExecProgram}, {"arguments", j.ExecArguments}} {
			if err := checkValue(f.v); err != "" {
				return bad(f.name, "%s", err)
			}
		}
	}
	if j.Engine == "cpuio" {
		switch {
		case j.CPULoad < 1 || j.CPULoad > 100:
			return bad("cpuload", "ioengine=cpuio needs cpuload, a percentage from 1 to 100 (got %d)", j.CPULoad)
		case j.Runtime == 0:
			return bad("runtime", "ioengine=cpuio runs for its runtime: give one")
		}
	}
	if !fileEng {
		return nil
	}
	e := j.Engine
	switch {
	case j.RW != Read && j.RW != Write && j.RW != ReadWrite:
		return unsupportedField(j.Name, "rw", "rw="+j.RW.String()+" with ioengine="+e+" (read, write or rw: each file's call is on its first block)")
	case len(j.BlockSizeSplit) > 0 || !j.BlockSizeRange.IsZero():
		return unsupportedField(j.Name, "bs", "several block sizes with ioengine="+e)
	case j.Offset != 0:
		return unsupportedField(j.Name, "offset", "offset with ioengine="+e)
	case j.Filename != "" && j.NumFiles() > 1:
		return unsupportedField(j.Name, "nrfiles", "filename with nrfiles above 1 (ioengine="+e+" names its files jobname.clone.filenum)")
	case j.Size == 0 && j.FileSize == 0:
		return bad("filesize", "ioengine=%s needs filesize (or size): the bytes each file stands for", e)
	case j.PerFile() < j.BlockSize:
		return bad("filesize", "%s per file is less than the block size %s", FormatSize(j.PerFile()), FormatSize(j.BlockSize))
	case j.PerFile()%j.BlockSize != 0:
		return bad("filesize", "%s per file is not a multiple of the block size %s (ioengine=%s calls once per file, on its first block)",
			FormatSize(j.PerFile()), FormatSize(j.BlockSize), e)
	}
	return nil
}
