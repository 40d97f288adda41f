package validate

import (
	"fmt"
	"strconv"
	"strings"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// validateMore checks Placement's and Ordering's fields of the normalized job: the option
// and why, or "".
func validateMore(j *workload.Job) (string, string) {
	switch {
	case j.FileSize < 0:
		return "filesize", fmt.Sprintf("negative (%d)", j.FileSize)
	case j.FileSizeMax != 0 && j.FileSizeMax < j.FileSize:
		return "filesize", fmt.Sprintf("range %s-%s ends below its start", workload.FormatSize(j.FileSize), workload.FormatSize(j.FileSizeMax))
	case j.SizePercent < 0 || j.SizePercent > 100:
		return "size", fmt.Sprintf("%d%% is not a percentage from 1 to 100", j.SizePercent)
	case j.SizePercent > 0 && j.Size != 0:
		return "size", "a size and a percentage"
	case j.OffsetPercent < 0 || j.OffsetPercent > 100:
		return "offset", fmt.Sprintf("%d%% is not a percentage from 0 to 100", j.OffsetPercent)
	case j.OffsetPercent > 0 && j.Offset != 0:
		return "offset", "an offset and a percentage"
	case j.OffsetAlign < 0:
		return "offset_align", fmt.Sprintf("negative (%d)", j.OffsetAlign)
	case j.IOSize < 0:
		return "io_size", fmt.Sprintf("negative (%d)", j.IOSize)
	case j.IOSize > 0 && j.IOSize < j.MinBlockSize():
		return "io_size", fmt.Sprintf("%s is smaller than the block size %s", workload.FormatSize(j.IOSize), workload.FormatSize(j.MinBlockSize()))
	case j.VerifyBacklog < 0:
		return "verify_backlog", fmt.Sprintf("negative (%d)", j.VerifyBacklog)
	case j.VerifyOnly && j.TimeBased && j.RW.Writes():
		return "verify_only", "not with time_based (fio 3.33 does not support it: its dry run moves the size, then it reads back one block)"
	case j.VerifyOnly && j.RW.Writes() && j.RW.Random() && (j.RW.Mixed() || j.NoRandomMap || j.RandomDistribution != (workload.Distribution{}) ||
		(j.IOSize > 0 && j.IOSize < j.Size) || j.NumberIOs > 0):
		return "verify_only", "random writes that need not cover the region (mixed with reads, norandommap, random_distribution, io_size or number_ios): stortest draws random offsets with its own generator, so it cannot know which blocks an earlier fio run wrote, and would report blocks fio never wrote as lost"
	case j.StartDelay < 0:
		return "startdelay", fmt.Sprintf("negative (%v)", j.StartDelay)
	case j.WaitFor == j.Name && j.WaitFor != "":
		return "wait_for", "a job cannot wait for itself"
	}
	if opt, reason := validateFlow(&j.Flow); opt != "" {
		return opt, reason
	}
	for _, s := range [...]struct{ name, v string }{{"directory", j.Directory}, {"wait_for", j.WaitFor}, {"filename_format", formatChars(j.FilenameFormat)}} {
		if err := checkValue(s.v); err != "" {
			return s.name, err
		}
	}
	return "", ""
}

// validateFileNames refuses a filename_format that gives every clone the
// same name: fio gives it to the first clone and no file to the others,
// which then move nothing.
func validateFileNames(j *workload.Job) error {
	if j.FilenameFormat != "" && j.Filename == "" && j.NumJobs > 1 && !j.FormatNamesClones() && engines.NeedsFile(j.Engine) {
		return unsupportedField(j.Name, "filename_format", "filename_format="+j.FilenameFormat+" without $jobnum and numjobs="+strconv.Itoa(j.NumJobs)+
			" (fio runs the later clones without a file)")
	}
	return nil
}

// formatChars is a filename_format as checkValue is to see it: its
// '$'s are fio's keywords, or stay as they are, but "${" would be
// expanded in a job file.
func formatChars(f string) string {
	if strings.Contains(f, "${") {
		return f
	}
	return strings.ReplaceAll(f, "$", "")
}
