package validate

import (
	"fmt"
	"time"

	"stortest.dev/workload"
)

// unsupportedField is a FieldError for what stortest does not do.
func unsupportedField(job, field, what string) error {
	return &workload.FieldError{Job: job, Field: field, Reason: what + " is not supported by stortest", Err: workload.ErrUnsupported}
}

// validateEngines checks NoDataEngines' fields of the normalized job, and
// what the engines that move no data need of the others.
func validateEngines(j *workload.Job) error {
	bad := func(field, format string, args ...any) error {
		return &workload.FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	fileEng := workload.IsFileEngine(j.Engine)
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
	case j.UnlinkEachLoop && (workload.IsFileEngine(j.Engine) || j.Engine == "cpuio" || j.Engine == "exec" || j.Engine == "mmap"):
		return unsupportedField(j.Name, "unlink_each_loop", "unlink_each_loop with ioengine="+j.Engine)
	case j.UnlinkEachLoop && j.RW.Reads():
		return unsupportedField(j.Name, "unlink_each_loop", "unlink_each_loop with rw="+j.RW.String()+" (fio fails the second loop's reads: the file is gone)")
	case j.UnlinkEachLoop && (j.RegisterFiles || j.Offload || j.Verify != workload.VerifyNone || j.ReadIOLog != ""):
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
	case j.RW != workload.Read && j.RW != workload.Write && j.RW != workload.ReadWrite:
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
		return bad("filesize", "%s per file is less than the block size %s", workload.FormatSize(j.PerFile()), workload.FormatSize(j.BlockSize))
	case j.PerFile()%j.BlockSize != 0:
		return bad("filesize", "%s per file is not a multiple of the block size %s (ioengine=%s calls once per file, on its first block)",
			workload.FormatSize(j.PerFile()), workload.FormatSize(j.BlockSize), e)
	}
	return nil
}
