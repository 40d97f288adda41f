package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

// fioCLI are fio's own command-line options that `stortest run` takes
// beside a job file or job options, so that scripts written for fio run
// it unchanged.
type fioCLI struct {
	// maxJobs is --max-jobs: fio's cap on jobs. It is accepted and
	// checked only for syntax, as fio 3.33 does: its limit stays
	// workload.MaxJobs whatever --max-jobs says.
	maxJobs    int
	parseOnly  bool // --parse-only: parse the jobs, run nothing
	debugParse bool // --debug=parse: print what the steady-state options set, as fio does
	minimal    bool // --minimal: terse output
}

func (c *fioCLI) set(name, val string, hasVal bool) error {
	switch name {
	case "max-jobs":
		n, err := strconv.Atoi(val)
		if !hasVal || err != nil || n < 1 {
			return fmt.Errorf("%w: --max-jobs=%q: want a positive number", errUsage, val)
		}
		c.maxJobs = n
	case "parse-only":
		c.parseOnly = true
	case "minimal":
		c.minimal = true
	case "debug":
		for _, d := range strings.Split(val, ",") {
			switch d {
			case "parse":
				c.debugParse = true
			case "", "?":
				return fmt.Errorf("%w: --debug: stortest prints fio's parse debug only (--debug=parse)", errUsage)
			}
			// fio's other debug classes trace its internals; stortest
			// has nothing to print for them.
		}
	case "terse-version":
		if val != "3" {
			return fmt.Errorf("%w: --terse-version=%q: stortest writes fio's terse version 3", errUsage, val)
		}
	case "warnings-fatal":
	}
	return nil
}

// Output formats, combinable as fio's --output-format=terse,json+.
const (
	outNormal = 1 << iota
	outTerse
	outJSON
	outJSONPlus
)

func parseOutputFormats(s string) (int, error) {
	var f int
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "normal":
			f |= outNormal
		case "terse":
			f |= outTerse
		case "json":
			f |= outJSON
		case "json+":
			f |= outJSONPlus
		default:
			return 0, fmt.Errorf("%w: --output-format %q: want normal, terse, json or json+, or several joined by commas", errUsage, s)
		}
	}
	return f, nil
}

// writeOutputs writes res in each of the formats, in fio's order: terse,
// then JSON (json+ when both are asked), then the normal summary.
func writeOutputs(w io.Writer, res *workload.Result, formats string, now time.Time) error {
	f, err := parseOutputFormats(formats)
	if err != nil {
		return err
	}
	if f&outTerse != 0 {
		if err := fioout.WriteTerse(w, res); err != nil {
			return err
		}
	}
	switch {
	case f&outJSONPlus != 0:
		err = fioout.WriteFioJSON(w, res, fioout.FormatJSONPlus, now)
	case f&outJSON != 0:
		err = fioout.WriteFioJSON(w, res, fioout.FormatJSON, now)
	}
	if err != nil {
		return err
	}
	if f&outNormal != 0 {
		return fioout.WriteSummary(w, res)
	}
	return nil
}

// parseOnlyArgs returns fio-style job arguments for --parse-only: fio
// parses global options alone, stortest's parser wants a job, so one is
// added after them when no --name starts one.
func parseOnlyArgs(args []string) []string {
	for _, a := range args {
		if strings.HasPrefix(strings.TrimLeft(a, "-"), "name") && strings.HasPrefix(a, "-") {
			return args
		}
	}
	return append(args[:len(args):len(args)], "--name=parse-only")
}

// printParseDebug prints the lines fio's --debug=parse prints about
// what each job's steadystate option sets, with fio's "parse <pid>"
// prefix.
func printParseDebug(w io.Writer, jobs []workload.Job) {
	for _, j := range jobs {
		if j.SS == "" {
			continue
		}
		if msg := steadyParseDebug(j.SS); msg != "" {
			fmt.Fprintf(w, "%-8s %-5d %s\n", "parse", os.Getpid(), msg)
		}
	}
}

// steadyParseDebug is fio's debug message for a steadystate value: the
// threshold as a percentage, or in IOPS, or in bytes/s for bandwidth.
func steadyParseDebug(ss string) string {
	crit, limit, ok := strings.Cut(ss, ":")
	if !ok {
		return ""
	}
	if l, pct := strings.CutSuffix(limit, "%"); pct {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("set steady state threshold to %f%%", v)
	}
	if strings.HasPrefix(crit, "iops") {
		v, err := strconv.ParseFloat(limit, 64)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("set steady state IOPS threshold to %f", v)
	}
	v, err := fiojob.ParseSize(limit)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("set steady state BW threshold to %d", v)
}
