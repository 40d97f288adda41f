package fiojob

import (
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// multiFileString prints MultiFile's options in job-file syntax, for
// Format.
func multiFileString(j *workload.Job) string {
	var b strings.Builder
	if j.FileService != (workload.FileService{}) {
		b.WriteString("file_service_type=" + j.FileService.String() + "\n")
	}
	if j.OpenFiles != 0 {
		b.WriteString("openfiles=" + strconv.Itoa(j.OpenFiles) + "\n")
	}
	return b.String()
}
