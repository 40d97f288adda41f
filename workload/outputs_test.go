package workload

import (
	"io"
	"time"
)

// fio's outputs of a result live in package workload/fioout, which
// imports this one; this package's tests that check a run's output
// reach them through these, which hooks_test.go sets.
var (
	WriteFioJSON               func(w io.Writer, r *Result, format OutputFormat, now time.Time) error
	WriteSummary, WriteTerse   func(w io.Writer, r *Result) error
	FormatJSON, FormatJSONPlus OutputFormat
)

// OutputFormat stands for fioout.OutputFormat.
type OutputFormat int
