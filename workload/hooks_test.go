package workload_test

import (
	"io"
	"time"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

func init() {
	workload.WriteFioJSON = func(w io.Writer, r *workload.Result, format workload.OutputFormat, now time.Time) error {
		return fioout.WriteFioJSON(w, r, fioout.OutputFormat(format), now)
	}
	workload.WriteSummary, workload.WriteTerse = fioout.WriteSummary, fioout.WriteTerse
	workload.FormatJSON, workload.FormatJSONPlus = workload.OutputFormat(fioout.FormatJSON), workload.OutputFormat(fioout.FormatJSONPlus)
	workload.ParseJobs = func(r io.Reader, name string, args []string) ([]workload.Job, *workload.FioGiven, error) {
		return fiojob.Parse(r, name, fiojob.Config{Args: args})
	}
}
