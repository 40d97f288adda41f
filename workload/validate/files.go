package validate

import (
	"fmt"
	"strconv"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// FileService returns why fs is not one fio takes, or "".
func FileService(fs workload.FileService) string {
	switch {
	case fs.Kind > workload.ServiceNormal:
		return "unknown kind " + fs.Kind.String()
	case fs.Nr < 0:
		return "negative N"
	case fs.Kind == workload.ServiceZipf && fs.Param != 0 && (fs.Param <= 0 || fs.Param == 1):
		return "zipf's theta must be above 0 and not 1"
	case fs.Kind == workload.ServicePareto && fs.Param != 0 && (fs.Param <= 0 || fs.Param >= 1):
		return "pareto's h must be between 0 and 1"
	case fs.Kind == workload.ServiceNormal && (fs.Param < 0 || fs.Param >= 100):
		return "normal's deviation must be from 0 to below 100"
	case fs.HasCenter && (fs.Center < 0 || fs.Center > 1):
		return "the center must be from 0 to 1"
	case !fs.Kind.NonUniform() && (fs.Param != 0 || fs.HasCenter):
		return fs.Kind.String() + " takes no distribution parameter"
	}
	return ""
}

// engineTraits are the traits of the engine called name (none for a
// name engines does not know).
func engineTraits(name string) engines.Traits {
	t, _ := engines.TraitsOf(name)
	return t
}

// validateMultiFile checks MultiFile's fields and what a job of several
// files cannot combine with.
func validateMultiFile(j *workload.Job) error {
	bad := func(field, format string, args ...any) error {
		return &workload.FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if msg := FileService(j.FileService); msg != "" {
		return bad("file_service_type", "%s", msg)
	}
	if j.OpenFiles < 0 {
		return bad("openfiles", "negative (%d)", j.OpenFiles)
	}
	if !j.MultiFiles() {
		if j.FileSizeMax != 0 {
			return unsupportedField(j.Name, "filesize", "filesize="+workload.FormatSize(j.FileSize)+"-"+workload.FormatSize(j.FileSizeMax)+": a range of file sizes for one file")
		}
		return nil
	}
	un := func(field, what string) error {
		return unsupportedField(j.Name, field, what+" with nrfiles="+strconv.Itoa(j.NrFiles))
	}
	switch {
	case !engineTraits(j.Engine).MultiFile:
		return unsupportedField(j.Name, "nrfiles", "nrfiles="+strconv.Itoa(j.NrFiles)+" with ioengine="+j.Engine+
			" (several files per job with ioengine "+workload.OrList(append(engines.NamesWith(func(t engines.Traits) bool { return t.MultiFile }), workload.FileEngines...))+")")
	case j.Verify != workload.VerifyNone:
		return un("verify", "verify")
	case j.RW.Trims():
		return un("rw", "rw="+j.RW.String())
	case j.RWModifier != 0:
		return un("rw", "an offset modifier (rw=...:N)")
	case j.PercentSequential != [3]int64{}:
		return un("percentage_random", "percentage_random")
	case j.Strided():
		return un("zonemode", "zonemode=strided")
	case j.ReadIOLog != "":
		return un("read_iolog", "read_iolog")
	case j.FileAppend:
		return un("file_append", "file_append")
	case j.FillDevice:
		return un("fill_device", "fill_device")
	case j.SizePercent != 0:
		return un("size", "size=N%")
	case j.OffsetPercent != 0:
		return un("offset", "offset=N%")
	case j.SyncFileRange.Every > 0:
		return un("sync_file_range", "sync_file_range")
	case j.CreateOnOpen:
		return un("create_on_open", "create_on_open")
	case j.FileSizeMax > 0 && (j.FileSize < j.MinBlockSize() || j.OffsetIncrement != 0 || j.Offset != 0):
		return un("filesize", "filesize="+workload.FormatSize(j.FileSize)+"-"+workload.FormatSize(j.FileSizeMax)+" from below a block, or with offset")
	case j.Size == 0 && j.FileSize == 0:
		return bad("nrfiles", "a job of %d files needs size or filesize (fio: \"you need to specify size=\")", j.NrFiles)
	}
	for i, s := range j.FileSizes() {
		if s < j.MinBlockSize() {
			return bad("nrfiles", "file %d of %d gets %s, less than a block (%s)", i, j.NrFiles, workload.FormatSize(s), workload.FormatSize(j.MinBlockSize()))
		}
	}
	return nil
}
