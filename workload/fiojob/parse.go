package fiojob

import (
	"io"

	"stortest.dev/workload"
)

// Config is what Parse takes beside a job file.
type Config struct {
	// Args are fio job options from a command line: "--key=value",
	// "--key value", and bare "--key" for booleans; one dash works as well
	// as two. Beside a job file they are defaults of every job, applied as
	// fio applies them (the file's [global] and job sections override
	// them), and a --name is refused (it would add a job of its own).
	// Without a job file they are the jobs, with fio's semantics: --name=x
	// starts job x, --name=global starts global options (as do options
	// before the first --name). fio's own options such as --output-format
	// are errors. Errors in Args name the argument's index.
	Args []string
}

// Parse reads fio jobs from a job file r (named name in errors) and the
// command-line options of c, or, when r is nil, from c.Args alone. It
// returns the jobs, validated and normalized, and the options as given
// (set them in Result.FioOptions for WriteFioJSON to print them as fio
// does).
//
// A job file has [global] and job sections, key=value and bare boolean
// keys, ';' and '#' comments (from the character to the end of the line,
// as fio strips them), ${VAR} replaced by the environment variable (empty
// if unset, as fio does; an error at a line with an unset one names it,
// in ParseError.Unset). An empty value is refused as fio refuses it.
// Global options apply to the jobs after them; a later [global] adds to
// the earlier ones for the jobs that follow it. "include FILE" in a
// section reads FILE's options there, as fio 3.33 does: FILE as written
// (relative to the working directory), else relative to the directory of
// the file that includes it; a file that includes itself, directly or
// not, is an error (a cycle), and so is a section header in it. Errors
// about an included option name the included file and its line.
//
// Options outside Job's are errors: ErrUnknownOption, or ErrUnsupported
// for fio options stortest does not implement; fio's $keywords and
// (arithmetic) are ErrUnsupported too. Errors are *ParseError: file and
// line, or the argument's index.
func Parse(r io.Reader, name string, c Config) ([]workload.Job, *workload.FioGiven, error) {
	if r == nil {
		return parseFioArgs(c.Args)
	}
	return parseFioWithArgs(r, name, c.Args)
}
