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
	live := &command{
		name:  "iostat",
		usage: "[-x] [--json] [-p ALL] [-y] [-z] [-t] [--raw] [DEVICE...] [INTERVAL [COUNT]]",
		short: "block device statistics like sysstat's iostat -d, with the same figures; the first report covers the time since boot unless -y",
	}
	live.run = func(args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(live, stderr)
		opt := iostatFlags(fs)
		all := fs.String("p", "", "ALL: read /proc/diskstats and list every device and partition (sysstat's -p ALL)")
		skip := fs.Bool("y", false, "omit the first report (statistics since boot)")
		procRoot := fs.String("proc", "/proc", "proc root (a fixture directory with diskstats and uptime)")
		sysRoot := fs.String("sys", "/sys", "sys root")
		pos, err := parseInterspersed(fs, args)
		if err != nil {
			return err
		}
		if *all != "" && *all != "ALL" {
			return fmt.Errorf("%w: -p takes ALL only", errUsage)
		}
		var devices, nums []string
		for _, a := range pos {
			if _, err := strconv.ParseFloat(a, 64); err == nil {
				nums = append(nums, a)
			} else if len(nums) > 0 {
				return fmt.Errorf("%w: device %q after the interval", errUsage, a)
			} else {
				devices = append(devices, a)
			}
		}
		var interval time.Duration
		count := 1
		if len(nums) > 2 {
			return fmt.Errorf("%w: too many numbers: want INTERVAL [COUNT]", errUsage)
		}
		if len(nums) >= 1 {
			if interval, err = parseSeconds(nums[0]); err != nil {
				return fmt.Errorf("%w: interval: %v", errUsage, err)
			}
			count = -1 // until interrupted
		}
		if len(nums) == 2 {
			if count, err = strconv.Atoi(nums[1]); err != nil || count < 1 {
				return fmt.Errorf("%w: count %q: want a positive integer", errUsage, nums[1])
			}
		}
		cfg := liveConfig{opt: *opt.report, json: *opt.json, raw: *opt.raw, devices: devices,
			interval: interval, count: count, skipFirst: *skip && interval > 0, src: iostat.FromSysBlock}
		if *all == "ALL" {
			cfg.src = iostat.FromDiskstats
		}
		// sysstat lists devices that never did I/O only with -p ALL or
		// named devices.
		cfg.opt.AllDevices = *all == "ALL" || len(devices) > 0
		f, err := iostat.NewFS(*procRoot, *sysRoot)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return runLive(ctx, f, cfg, stdout)
	}
	register(live)

	diff := &command{
		name:  "iostat diff",
		usage: "A B --interval SECONDS [--json] [--raw]",
		short: "iostat -x figures between two saved copies of /proc/diskstats taken SECONDS apart",
	}
	diff.run = func(args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(diff, stderr)
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
	register(diff)
}

type iostatOpts struct {
	report    *iostat.ReportOptions
	json, raw *bool
}

// iostatFlags binds the flags both subcommands share.
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

type liveConfig struct {
	opt       iostat.ReportOptions
	json, raw bool
	src       iostat.Source
	devices   []string
	interval  time.Duration
	count     int // reports to print; -1 until ctx is done
	skipFirst bool
}

func runLive(ctx context.Context, f iostat.FS, cfg liveConfig, stdout io.Writer) error {
	host, err := iostat.LocalHost(f, time.Now())
	if err != nil {
		return err
	}
	var emit func(iostat.Delta) error
	var finish func() error
	if cfg.json {
		w := iostat.NewJSONWriter(stdout, host, cfg.opt)
		emit = func(d iostat.Delta) error { return w.Write(d, d.Curr) }
		finish = w.Close
	} else {
		w := iostat.NewTextWriter(stdout, host, cfg.opt)
		emit = func(d iostat.Delta) error {
			if err := w.Write(d, d.Curr); err != nil {
				return err
			}
			if cfg.raw {
				return iostat.WriteCounters(stdout, d, cfg.opt)
			}
			return nil
		}
		finish = func() error { return nil }
	}
	prev := iostat.Zero
	var tick *time.Ticker
	if cfg.interval > 0 {
		tick = time.NewTicker(cfg.interval)
		defer tick.Stop()
	}
	for printed, first := 0, true; cfg.count < 0 || printed < cfg.count; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return finish() // interrupted: end the JSON document properly
			case <-tick.C:
			}
		}
		curr, err := f.Snapshot(cfg.src, cfg.devices...)
		if err != nil {
			finish()
			return err
		}
		if !(first && cfg.skipFirst) {
			d := iostat.NewDelta(prev, curr)
			if err := emit(d); err != nil {
				return err
			}
			printed++
		}
		prev = curr
	}
	return finish()
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
