package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"stortest.dev/latency/histlog"
)

func init() {
	define("hist merge",
		"[--time-quantum S] [--percentiles 50,95,99,99.9] [--direction read|write|trim|all|each] [--format csv|json|fio|text|html] [--log-hist-msec MS] [--unit ns|us|ms] [--by-input] [--summary] [LABEL=]FILE|[HOST=]DIR ...",
		"merge fio/stortest histogram logs of many jobs and hosts into percentiles over time (--format fio: exactly what fio-histo-log-pctiles.py prints); a directory is a host's logs; --summary: whole-run figures per host and for the fleet",
		histMergeCmd)
}

func histMergeCmd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	quantum := fs.String("time-quantum", "1", "time quantum in seconds (whole seconds with --format fio)")
	pcts := fs.String("percentiles", "", "percentiles, comma-separated, 0 (min) to 100 (max); default 50,95,99,99.9 (with --format fio the tool's 0,50,95,99,100, order kept)")
	dir := fs.String("direction", "", "series per quantum: read, write, trim, all (combined) or each (read, write, trim and all); default each (all with --format fio)")
	format := fs.String("format", "csv", "output: csv, json, fio (fio-histo-log-pctiles.py's output, to the bit) or html (a page: the percentiles over time, one faint line per host or job under the merge of all)")
	lhm := fs.Int64("log-hist-msec", 0, "the logs' log_hist_msec (default: inferred per log; with --format fio, the tool's option)")
	unitFlag := fs.String("unit", "us", "latency unit: ns, us or ms (fio: us or ms)")
	byInput := fs.Bool("by-input", false, "add each input's completions to every row (csv: one samples:<label> column per input)")
	fioVersion := fs.Int("fio-version", 0, "2 for fio 2 logs (19 groups of microseconds); default: detected from the column count")
	groups := fs.Int("groups", 0, "histogram groups of the logs (default: detected; 29 for fio 3)")
	workers := fs.Int("workers", 0, "logs read in parallel (default: GOMAXPROCS)")
	summary := fs.Bool("summary", false, "whole-run figures per host and for the fleet (the hosts' histograms summed), naming the slowest host; --format text (default), csv or json")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: want at least one histogram log", errUsage)
	}
	inputs, hosts, err := histInputs(files)
	if err != nil {
		return err
	}
	ps, err := parsePercentiles(*pcts)
	if err != nil {
		return fmt.Errorf("%w: --percentiles: %v", errUsage, err)
	}
	unit, err := histlog.ParseUnit(*unitFlag)
	if err != nil {
		return fmt.Errorf("%w: --unit: %v", errUsage, err)
	}
	q, err := strconv.ParseFloat(*quantum, 64)
	if err != nil || !(q > 0) || q > 1e9 {
		return fmt.Errorf("%w: --time-quantum %q: want a positive number of seconds", errUsage, *quantum)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	progress := func(p histlog.Pass) { printPass(stderr, p) }

	if *summary {
		f := *format
		if !flagGiven(fs, "format") {
			f = "text"
		}
		if f != "text" && f != "csv" && f != "json" {
			return fmt.Errorf("%w: --summary: --format %q: want text, csv or json", errUsage, f)
		}
		cfg := histlog.Config{Percentiles: ps, LogHistMsec: *lhm, Reader: histlog.ReaderOptions{FioVersion: *fioVersion, Groups: *groups},
			Workers: *workers, Progress: progress}
		if *dir != "" && *dir != "each" {
			d, err := histlog.ParseDirection(*dir)
			if err != nil {
				return fmt.Errorf("%w: --direction: %v", errUsage, err)
			}
			cfg.Directions = []histlog.Direction{d}
		}
		return histSummary(ctx, stdout, hosts, cfg, f, unit)
	}
	if *format == "fio" {
		if *dir != "" && *dir != "all" {
			return fmt.Errorf("%w: --format fio sums all directions, as the tool does: --direction must be all", errUsage)
		}
		if q != math.Trunc(q) {
			return fmt.Errorf("%w: --format fio: --time-quantum must be whole seconds", errUsage)
		}
		if unit == histlog.Nanosecond {
			return fmt.Errorf("%w: --format fio: --unit must be us or ms", errUsage)
		}
		if *byInput {
			return fmt.Errorf("%w: --format fio has no per-input columns", errUsage)
		}
		opt := histlog.FioOptions{FioVersion: *fioVersion, BucketGroups: *groups, Percentiles: ps,
			TimeQuantum: int(q), LogHistMsec: int(*lhm), OutputUnit: map[histlog.Unit]string{histlog.Microsecond: "usec", histlog.Millisecond: "msec"}[unit],
			Workers: *workers, Progress: progress}
		return histlog.FioPctiles(ctx, stdout, inputs, opt)
	}

	cfg := histlog.Config{Quantum: time.Duration(math.Round(q*1000)) * time.Millisecond, Percentiles: ps,
		LogHistMsec: *lhm, Reader: histlog.ReaderOptions{FioVersion: *fioVersion, Groups: *groups},
		ByInput: *byInput, Workers: *workers, Progress: progress}
	if cfg.Quantum <= 0 {
		return fmt.Errorf("%w: --time-quantum %q: below a millisecond", errUsage, *quantum)
	}
	switch *dir {
	case "", "each":
	default:
		d, err := histlog.ParseDirection(*dir)
		if err != nil {
			return fmt.Errorf("%w: --direction: %v", errUsage, err)
		}
		cfg.Directions = []histlog.Direction{d}
	}
	if *format == "html" {
		return histMergeHTML(ctx, stdout, inputs, cfg)
	}
	var sink histlog.Sink
	switch *format {
	case "csv":
		sink = histlog.NewCSVSink(stdout, unit)
	case "json":
		sink = histlog.NewJSONSink(stdout, unit)
	default:
		return fmt.Errorf("%w: --format %q: want csv, json, fio or html", errUsage, *format)
	}
	sum, err := histlog.Merge(ctx, inputs, cfg, sink)
	if err != nil {
		return err
	}
	if sum.Late > 0 {
		fmt.Fprintf(stderr, "stortest hist merge: %d rows came out of time order; their counts for quanta already written went to the next quantum\n", sum.Late)
	}
	return nil
}

// printPass tells of a merge in passes: why once, then each pass.
func printPass(w io.Writer, p histlog.Pass) {
	if p.N == 1 {
		limit := "no limit known"
		if p.Limit > 0 {
			limit = fmt.Sprintf("limit %d, %d open", p.Limit, p.Open)
		}
		fmt.Fprintf(w, "stortest hist merge: merging %d logs in %d passes: room for %d open files (%s)\n", p.Inputs, p.Passes, p.Files, limit)
	}
	fmt.Fprintf(w, "stortest hist merge: pass %d of %d: logs %d to %d\n", p.N, p.Passes, p.First+1, p.First+p.Logs)
}

// parseInterleaved parses flags placed before, between or after the
// file arguments; everything after "--" is a file.
func parseInterleaved(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		files = append(files, args[0])
		args = args[1:]
	}
	return append(files, rest...), nil
}

// parsePercentiles parses "50,95,99.9" (',' ':' or spaces between), in
// the order given; "" gives nil (the defaults).
func parsePercentiles(s string) ([]float64, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' || r == ' ' })
	if len(fields) == 0 {
		if strings.TrimSpace(s) != "" {
			return nil, fmt.Errorf("no percentiles in %q", s)
		}
		return nil, nil
	}
	ps := make([]float64, len(fields))
	for i, f := range fields {
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("%q: want a number from 0 to 100", f)
		}
		ps[i] = p
	}
	return ps, nil
}
