package fiojob

import (
	"io"
	"os"
	"strings"

	"stortest.dev/workload"
)

// parseFioWithArgs reads a job file with a command line's options
// around it (see Parse), returning the options as given too: those of args first in the global options, as fio prints them.
func parseFioWithArgs(r io.Reader, name string, args []string) ([]workload.Job, *workload.FioGiven, error) {
	p := parser{file: "args", env: os.LookupEnv}
	global := newJobState(srcPos{})
	for i := 0; i < len(args); i++ {
		p.arg = i
		key, val, hasVal, last, ok := argOption(args, i, p.needsValue)
		if !ok {
			return nil, nil, p.errorf("", syntaxErr("%q is not an option: give one job file", args[i]))
		}
		i = last
		if key == "name" {
			return nil, nil, p.errorf("name", workload.Unsupported("--name beside a job file (a command-line job with the file's)"))
		}
		if cliOnly(key) {
			return nil, nil, p.errorf("", workload.NewMsgError("fio command-line option --"+key+" is not a job option", workload.ErrUnsupported))
		}
		if err := p.apply(global, key, strings.TrimSpace(val), hasVal, true); err != nil {
			return nil, nil, err
		}
	}
	// What the arguments set is reported at the section of each job.
	clear(global.lines)
	return parseFio(r, name, global)
}

// SplitFioArgs separates job files from job options in a fio command
// line: an argument that does not start with '-' is a job file unless it
// is the value of the option before it ("--runtime 2", for an option that
// takes a value).
func SplitFioArgs(args []string) (files, opts []string) {
	p := parser{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
			continue
		}
		opts = append(opts, a)
		key, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal && p.takesValue(key) && i+1 < len(args) {
			i++
			opts = append(opts, args[i])
		}
	}
	return files, opts
}
