package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/internal/human"
	"stortest.dev/target"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/runner"
	"stortest.dev/workload/validate"
)

const runUsage = "[--output-format normal|json|json+|terse[,...]] [--output FILE] [--max-jobs N] [--parse-only] [--debug=parse] [--report FILE.html] [--progress auto|on|off] [--scratch-size SIZE] [--ss-continue] [--ss-latency-window] [--faults SPEC] [[--option=value ...] JOB.fio | --name=N --rw=RW --bs=BS --iodepth=D --ioengine=E --runtime=T --filename=F ...]"

func init() {
	define("run",
		runUsage,
		"run fio-style jobs with native engines (no arguments: a 10 s io_uring 4k randread on a scratch loop device)",
		runCmd)
}

// runFlags are the command's own options; everything else is a fio job
// option.
type runFlags struct {
	format      string
	output      string
	progress    string
	scratchSize int64
	ssContinue  bool // keep running after steady state, reporting losses
	ssLatency   bool // measure one more steady window's latency
	// faults injects errors, latency and short transfers into every job's
	// engine (engines.ParseFaults syntax), for rehearsing a failing device.
	faults *engines.Faults
	fio    fioCLI // fio's own command-line options
	report string // --report: the run's HTML page
}

func splitRunArgs(args []string) (runFlags, []string, error) {
	f := runFlags{format: "normal", progress: "auto", scratchSize: 256 << 20}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		take := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%w: %s needs a value", errUsage, a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "output-format":
			f.format, err = take()
		case "output":
			f.output, err = take()
		case "report":
			f.report, err = take()
		case "progress":
			f.progress, err = take()
		case "scratch-size":
			var s string
			if s, err = take(); err == nil {
				f.scratchSize, err = fiojob.ParseSize(s)
			}
		case "ss-continue":
			f.ssContinue = true
		case "ss-latency-window":
			f.ssLatency = true
		case "faults":
			var spec string
			if spec, err = take(); err == nil {
				var fl engines.Faults
				if fl, err = engines.ParseFaults(spec); err != nil {
					err = fmt.Errorf("%w: --faults: %w", errUsage, err)
				}
				f.faults = &fl
			}
		case "max-jobs", "parse-only", "debug", "minimal", "terse-version", "warnings-fatal":
			var v string
			if hasVal {
				v = val
			}
			err = f.fio.set(name, v, hasVal)
		case "h", "help":
			return f, nil, flag.ErrHelp
		default:
			rest = append(rest, a)
		}
		if err != nil {
			return f, nil, err
		}
	}
	if f.fio.minimal {
		f.format = "terse"
	}
	if _, err := parseOutputFormats(f.format); err != nil {
		return f, nil, err
	}
	switch f.progress {
	case "auto", "on", "off":
	default:
		return f, nil, fmt.Errorf("%w: --progress %q: want auto, on or off", errUsage, f.progress)
	}
	return f, rest, nil
}

// defaultJob is what `stortest run` runs without arguments.
func defaultJob(target string) workload.Job {
	return workload.Job{
		Name: "randread-4k-qd32", Filename: target, Engine: "io_uring", RW: workload.RandRead,
		BlockSize: 4 << 10, IODepth: 32, Direct: true, Runtime: 10 * time.Second, TimeBased: true,
	}
}

func runCmd(c *command, args []string, stdout, stderr io.Writer) error {
	flags, rest, err := splitRunArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "usage: stortest %s %s\n\n%s.\nA job file may come with fio job options, which apply to its jobs as fio's\ncommand line does: as defaults that the file overrides.\n", c.name, c.usage, c.short)
		return err
	}
	if err != nil {
		return err
	}
	files, jobOpts := fiojob.SplitFioArgs(rest)
	// SIGINT/SIGTERM stop the run; results so far are still printed. They
	// are caught from here on, so an interrupt while the scratch target is
	// laid out still detaches and removes it.
	ctx, stop, caught := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var jobs []workload.Job
	var given *workload.FioGiven // the options as given, for fio's JSON
	var scratch *runner.Scratch
	switch {
	case len(rest) == 0:
		scratch, err = newDefaultScratch(flags.scratchSize, stderr)
		if err != nil {
			return err
		}
		jobs = []workload.Job{defaultJob(scratch.Path)}
	case len(files) == 1:
		// fio applies job options given beside a job file as defaults
		// of its jobs: `stortest run --runtime=2 job.fio`.
		f, err := os.Open(files[0])
		if err != nil {
			return err
		}
		jobs, given, err = fiojob.Parse(f, files[0], fiojob.Config{Args: jobOpts})
		f.Close()
		if err != nil {
			return err
		}
	default:
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				return fmt.Errorf("%w: give one job file (with or without --option=value job options), not %q", errUsage, a)
			}
		}
		if flags.fio.parseOnly {
			rest = parseOnlyArgs(rest)
		}
		if jobs, given, err = fiojob.Parse(nil, "", fiojob.Config{Args: rest}); err != nil {
			return err
		}
	}
	if scratch != nil {
		defer scratch.Close()
	}
	if ctx.Err() != nil {
		return &exitError{code: signalStatus(caught()), msg: "interrupted before the run started"}
	}

	if f := flags.fio; f.debugParse || f.parseOnly {
		if f.debugParse {
			printParseDebug(stdout, jobs)
		}
		if f.parseOnly {
			return nil
		}
	}
	// The output is opened before the run, and a job's notices go at its
	// head, as fio puts its own ("fio: verification read phase will never
	// start ...") before its results: readers of fio's output skip such
	// lines, and fio's test harness wants stderr empty.
	out := stdout
	if flags.output != "" {
		f, err := os.Create(flags.output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	for i := range jobs {
		for _, w := range validate.Warnings(&jobs[i]) {
			fmt.Fprintf(out, "stortest: job %s: %s\n", jobs[i].Name, w)
		}
	}
	opts := workload.Options{SteadyContinue: flags.ssContinue, SteadyLatencyWindow: flags.ssLatency, Faults: flags.faults,
		CheckFile: guardWrites(target.Live())}
	if flags.faults != nil {
		fmt.Fprintf(stderr, "stortest run: injecting faults: %s\n", flags.faults)
	}
	if flags.progress == "on" || (flags.progress == "auto" && isTerminal(stderr)) {
		opts.Progress = progressPrinter(stderr)
	}
	rep := startRunReport(ctx, flags.report, jobs, stderr)
	du := startDiskUtil(jobs)
	res, err := runner.RunJobs(ctx, jobs, opts)
	if err != nil {
		return err
	}
	res.DiskUtil = du()
	res.FioOptions = given
	if err := rep.finish(res); err != nil {
		return err
	}
	if err := writeOutputs(out, res, flags.format, time.Now()); err != nil {
		return err
	}
	// A signal's run exits as a shell reports the signal (130, 143), its
	// jobs' errors (a stalled device's outstanding I/Os) said all the same.
	if ctx.Err() != nil {
		msg := "interrupted: results above are partial"
		if err := res.Err(); err != nil {
			msg = err.Error() + "\n" + msg
		}
		return &exitError{code: signalStatus(caught()), msg: msg}
	}
	return res.Err()
}

// guardWrites is fio's guard for workload.Options.CheckFile: a job that
// writes or trims a block device that is mounted, has a mounted
// partition, is held by another device or is used as swap is refused,
// before any job does I/O, unless it sets allow_mounted_write=1. fio
// looks only for a mount of the file itself; a device in use through a
// partition, a holder or swap is refused here too. A device in no use
// is written whatever it holds, as fio writes it; reads are never
// refused.
func guardWrites(g target.Guard) func(*workload.Job, string) error {
	return func(job *workload.Job, file string) error {
		if !job.RW.Modifies() || !target.IsBlockDevice(file) {
			return nil
		}
		if err := g.CheckWrite(file, target.Rules{AllowMountedWrite: job.AllowMountedWrite}); err != nil {
			return fmt.Errorf("job %s: %w", job.Name, err)
		}
		return nil
	}
}

// notifyContext is signal.NotifyContext that also tells which of sigs
// came first (caught: nil before one came).
func notifyContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, stop func(), caught func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	var first atomic.Value
	go func() {
		select {
		case s := <-ch:
			first.Store(s)
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() {
		signal.Stop(ch)
		cancel()
	}
	caught = func() os.Signal {
		s, _ := first.Load().(os.Signal)
		return s
	}
	return ctx, stop, caught
}

// signalStatus is the exit status of a run a signal stopped, as a shell
// reports a process that signal ended: 128 + its number (130 for SIGINT,
// 143 for SIGTERM).
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

// newDefaultScratch makes the default job's target: a loop device with
// direct I/O over a temp file when root, else the temp file itself. What
// earlier stortest processes that are gone left behind is cleaned up
// first, with a line on stderr for each.
func newDefaultScratch(size int64, stderr io.Writer) (*runner.Scratch, error) {
	target.CleanOrphansOnce(stderr)
	o := runner.ScratchOptions{Size: size}
	if os.Geteuid() == 0 {
		o.Loop, o.DirectIO = true, true
	}
	s, err := runner.NewScratch(o)
	if err != nil && o.Loop {
		fmt.Fprintf(stderr, "stortest run: no loop device (%v); using a temp file\n", err)
		o.Loop, o.DirectIO = false, false
		s, err = runner.NewScratch(o)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "stortest run: target %s (%d MiB scratch", s.Path, size>>20)
	if s.Loop != nil {
		fmt.Fprintf(stderr, " loop device over %s", s.File)
	}
	fmt.Fprintln(stderr, ")")
	return s, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// progressPrinter redraws one status line per second, as fio's eta line.
func progressPrinter(w io.Writer) func(workload.Progress) {
	return func(p workload.Progress) {
		var b strings.Builder
		b.WriteString("\r\033[K")
		phase := "run"
		if p.Ramp {
			phase = "ramp"
		}
		fmt.Fprintf(&b, "[%s %s]", phase, p.Elapsed.Round(time.Second))
		for d := range workload.NumDirs {
			if p.IOs[d] == 0 {
				continue
			}
			fmt.Fprintf(&b, "[%c=%s/s %s IOPS]", d.String()[0], human.Bytes(p.BW[d]), human.Count(p.IOPS[d]))
		}
		if p.ETA >= 0 {
			fmt.Fprintf(&b, "[eta %s]", p.ETA.Round(time.Second))
		}
		if p.Done {
			b.WriteString("\n")
		}
		io.WriteString(w, b.String())
	}
}
