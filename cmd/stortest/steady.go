package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"stortest.dev/steady"
)

func init() {
	define("steady fio",
		"[--strict] FILE.json|- ...",
		"recompute fio's steady-state verdict of every job from the window in a fio JSON output (--strict: exit 1 unless it matches)",
		steadyFioCmd)

	define("steady check",
		"--criterion LIST [--window D] [--ramp D] [--stop] [--each] [--format text|json] [FILE|-]",
		"judge steady state over a column of per-second values (stdin by default); exit 1 when not in steady state at the end",
		steadyCheckCmd)
}

func steadyFioCmd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	strict := fs.Bool("strict", false, "exit with status 1 when a recomputed field differs from what fio printed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: want at least one fio JSON output (or - for stdin)", errUsage)
	}
	mismatches := 0
	for _, name := range fs.Args() {
		checks, err := steadyFioFile(name)
		if err != nil {
			return err
		}
		var b []byte
		for _, c := range checks {
			b = steady.AppendFioCheck(b, c)
			if !c.Matches {
				mismatches++
			}
		}
		if _, err := stdout.Write(b); err != nil {
			return err
		}
	}
	if *strict && mismatches > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("%d job(s) differ from fio's steadystate object", mismatches)}
	}
	return nil
}

func steadyCheckCmd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	crit := fs.String("criterion", "", "criteria that must all hold, e.g. iops_slope:0.3% or \"iops:5%,clat_p99:10%\" or pts:iops:60s (see package steady)")
	window := fs.String("window", "30", "window in fio's ss_dur syntax: seconds, or a number with us, ms, s, m, h")
	ramp := fs.String("ramp", "0", "samples before this time (fio's ss_ramp, plus the first second) are not counted")
	stop := fs.Bool("stop", false, "stop at the first attainment, as fio does (default: read all input and report losses)")
	each := fs.Bool("each", false, "print a verdict for every sample (window position), not only the final one")
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *crit == "" {
		return fmt.Errorf("%w: --criterion is required", errUsage)
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("%w: --format %q: want text or json", errUsage, *format)
	}
	set, err := steady.ParseSet(*crit)
	if err != nil {
		return fmt.Errorf("%w: --criterion: %v", errUsage, err)
	}
	cfg := steady.Config{Criteria: set, Continue: !*stop}
	if cfg.Window, err = steady.ParseFioDuration(*window); err != nil {
		return fmt.Errorf("%w: --window: %v", errUsage, err)
	}
	if cfg.Ramp, err = steady.ParseFioDuration(*ramp); err != nil {
		return fmt.Errorf("%w: --ramp: %v", errUsage, err)
	}
	in, name := io.Reader(os.Stdin), "stdin"
	switch fs.NArg() {
	case 0:
	case 1:
		if fs.Arg(0) != "-" {
			f, err := os.Open(fs.Arg(0))
			if err != nil {
				return err
			}
			defer f.Close()
			in, name = f, fs.Arg(0)
		}
	default:
		return fmt.Errorf("%w: at most one input file, got %d", errUsage, fs.NArg())
	}
	return steadyCheck(cfg, in, name, *each, *format == "json", stdout)
}

func steadyFioFile(name string) ([]steady.FioCheck, error) {
	var r io.Reader = os.Stdin
	if name == "-" {
		name = "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	out, err := steady.ReadFio(r, name)
	if err != nil {
		return nil, err
	}
	checks, err := steady.CheckFio(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return checks, nil
}

// errStopped ends the input early once the detector says stop.
var errStopped = errors.New("stopped")

func steadyCheck(cfg steady.Config, in io.Reader, name string, each, asJSON bool, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	d, last, err := steady.CheckSeries(cfg, in, name, func(v steady.Verdict) error {
		if each {
			var err error
			if asJSON {
				err = enc.Encode(v)
			} else {
				_, err = fmt.Fprintln(stdout, v.Reason())
			}
			if err != nil {
				return err
			}
		}
		if v.Stop && !cfg.Continue {
			return errStopped
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopped) {
		return err
	}
	if last.Sample < 0 {
		return fmt.Errorf("%s: no samples", name)
	}
	if asJSON {
		b, err := json.MarshalIndent(d.Report(), "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return err
		}
	} else if err := steadyText(stdout, d, last); err != nil {
		return err
	}
	if !last.Attained {
		return &exitError{code: 1}
	}
	return nil
}

// steadyText prints the final verdict for people.
func steadyText(w io.Writer, d *steady.Detector, last steady.Verdict) error {
	cfg := d.Config()
	var b strings.Builder
	fmt.Fprintf(&b, "criteria: %s\n", cfg.Criteria)
	fmt.Fprintf(&b, "samples: %d (window %v, ramp %v)\n", last.Sample+1, cfg.Window, cfg.Ramp)
	if i, el := d.AttainedAt(); i >= 0 {
		fmt.Fprintf(&b, "attained at sample %d (%v)\n", i, el)
	} else {
		b.WriteString("never attained\n")
	}
	for _, l := range d.Losses() {
		fmt.Fprintf(&b, "lost at sample %d (%v): %s value %.6g, worst %.6g, limit %.6g; ",
			l.Start, l.StartElapsed, cfg.Criteria[l.Criterion], l.Value, l.Worst, l.Limit)
		if l.End < 0 {
			b.WriteString("not regained\n")
		} else {
			fmt.Fprintf(&b, "regained at sample %d (%v)\n", l.End, l.EndElapsed)
		}
	}
	fmt.Fprintf(&b, "final: %s\n", last.Reason())
	_, err := io.WriteString(w, b.String())
	return err
}
