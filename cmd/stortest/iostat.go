package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"stortest.dev/iostat"
)

func init() {
	define("iostat",
		iostatUsage(),
		"CPU and block device statistics as sysstat's iostat (12.6) prints them, from its options; the first report covers the time since boot unless -y",
		iostatCmd)

	define("iostat diff",
		"A B --interval SECONDS [--json] [--raw]",
		"iostat -x figures between two saved copies of /proc/diskstats taken SECONDS apart",
		iostatDiffCmd)
}

func iostatCmd(c *command, args []string, stdout, stderr io.Writer) error {
	l, err := parseIostatLine(args)
	// sysstat checks each -j type as it reads it, so an unknown one
	// before the first mistake on the line is what it reports.
	for _, t := range l.persist {
		if !iostat.DefaultFS().WithDev(l.dev).HasPersistentNames(t) {
			return errPersistentType
		}
	}
	if err != nil {
		return errSysstatUsage
	}
	if l.version {
		fmt.Fprintln(stdout, "stortest iostat: the reports of sysstat's iostat 12.6")
		return nil
	}
	if l.help {
		fmt.Fprintf(stdout, "usage: stortest iostat %s\n%s\n\n", c.usage, c.short)
		printIostatOptions(stdout)
		return nil
	}
	f, err := iostat.NewFS(l.proc, l.sys)
	if err != nil {
		return err
	}
	f = f.WithDev(l.dev)
	if l.altDir != "" {
		f = f.WithAltDir(l.altDir, l.altToo)
	}
	l.cfg.Wait = iostatWait
	l.cfg.Notes = func(n iostat.Note) { fmt.Fprintf(stderr, "stortest iostat: note: %s\n", n.Text) }
	host, err := iostat.LocalHost(f, time.Now())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return f.Watch(ctx, l.cfg, host, stdout)
}

func iostatDiffCmd(c *command, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	opt := iostatFlags(fs)
	ivl := fs.String("interval", "", "time between the two copies: seconds (2.5) or a duration (2500ms)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: want two diskstats files, got %d", errUsage, len(pos))
	}
	if *ivl == "" {
		return fmt.Errorf("%w: --interval is required", errUsage)
	}
	interval, err := parseSeconds(*ivl)
	if err != nil {
		return fmt.Errorf("%w: --interval: %v", errUsage, err)
	}
	var snaps [2]iostat.Snapshot
	for i, name := range pos {
		fh, err := os.Open(name)
		if err != nil {
			return err
		}
		disks, notes, err := iostat.ParseDiskstats(fh, name)
		fh.Close()
		if err != nil {
			return err
		}
		snaps[i] = iostat.Snapshot{Source: iostat.FromDiskstats, Disks: disks, Notes: notes}
	}
	d, err := iostat.NewDeltaInterval(snaps[0], snaps[1], interval)
	if err != nil {
		return err
	}
	o := *opt.report
	o.Extended, o.AllDevices = true, true
	host, err := iostat.LocalHost(iostat.DefaultFS(), time.Now())
	if err != nil {
		return err
	}
	if err := writeReports(stdout, host, o, *opt.json, *opt.raw, []iostat.Delta{d}); err != nil {
		return err
	}
	if *opt.raw {
		return nil // the notes are in the counters table
	}
	for _, n := range d.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	for _, dd := range d.Disks {
		for _, n := range dd.Notes {
			if n.Kind != iostat.NoteNoFlush && n.Kind != iostat.NoteNoDiscard {
				fmt.Fprintf(stderr, "note: %s: %s\n", dd.Name, n)
			}
		}
	}
	return nil
}

// iostatOpts are the flags of "iostat diff".
type iostatOpts struct {
	report    *iostat.ReportOptions
	json, raw *bool
}

// iostatFlags binds the flags of "iostat diff".
func iostatFlags(fs *flag.FlagSet) iostatOpts {
	o := iostatOpts{report: &iostat.ReportOptions{ISO: os.Getenv("S_TIME_FORMAT") == "ISO"}}
	fs.BoolVar(&o.report.Extended, "x", false, "extended statistics (r/s, rkB/s, r_await, aqu-sz, %util, ...)")
	fs.BoolVar(&o.report.OmitIdle, "z", false, "omit devices with no I/O in the interval")
	fs.BoolVar(&o.report.Timestamp, "t", false, "print each report's time")
	o.json = fs.Bool("json", false, "sysstat's JSON (iostat -o JSON) instead of the table")
	o.raw = fs.Bool("raw", false, "also print the raw counters over each interval and sanity notes (table output only)")
	return o
}

// parseInterspersed parses flags that may follow positional arguments
// ("A B --interval 2") and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseSeconds reads "2", "2.5" (seconds) or a duration ("2500ms").
func parseSeconds(s string) (time.Duration, error) {
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q: want seconds or a duration", s)
	}
	if d < 10*time.Millisecond {
		return 0, fmt.Errorf("%q: below the 10 ms resolution of /proc/uptime", s)
	}
	return d, nil
}

// writeReports prints deltas as one document.
func writeReports(w io.Writer, host iostat.Host, o iostat.ReportOptions, asJSON, raw bool, ds []iostat.Delta) error {
	if asJSON {
		jw := iostat.NewJSONWriter(w, host, o)
		for _, d := range ds {
			if err := jw.Write(d, d.Curr); err != nil {
				return err
			}
		}
		return jw.Close()
	}
	tw := iostat.NewTextWriter(w, host, o)
	for _, d := range ds {
		if err := tw.Write(d, d.Curr); err != nil {
			return err
		}
		if raw {
			if err := iostat.WriteCounters(w, d, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// sysstatUsageText is what sysstat 12.6's iostat writes to stderr, before
// it exits with status 1, for any mistake on its command line.
const sysstatUsageText = `Usage: iostat [ options ] [ <interval> [ <count> ] ]
Options are:
[ -c ] [ -d ] [ -h ] [ -k | -m ] [ -N ] [ -s ] [ -t ] [ -V ] [ -x ] [ -y ] [ -z ]
[ { -f | +f } <directory> ] [ -j { ID | LABEL | PATH | UUID | ... } ]
[ --compact ] [ --dec={ 0 | 1 | 2 } ] [ --human ] [ --pretty ] [ -o JSON ]
[ [ -H ] -g <group_name> ] [ -p [ <device> [,...] | ALL ] ]
[ <device> [...] | ALL ]
`

// errSysstatUsage reports a mistake on the command line as sysstat's
// iostat reports every one: its usage text on stderr, status 1, so that
// scripts written against sysstat see what they expect. (--help explains
// the options, stortest's own among them.)
var errSysstatUsage = &exitError{code: 1, msg: sysstatUsageText, plain: true}

// errPersistentType is sysstat's answer to -j with a type of name that
// /dev/disk/by-<type> does not offer.
var errPersistentType = &exitError{code: 1, msg: "Invalid type of persistent device name\n", plain: true}
