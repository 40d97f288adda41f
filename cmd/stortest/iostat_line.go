package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"stortest.dev/internal/kernelfs"
	"stortest.dev/iostat"
)

// iostatWait replaces the sleep between samples of "stortest iostat" when
// set: tests step through recorded samples with it.
var iostatWait func(ctx context.Context) error

// iostatLine is sysstat's iostat command line as read so far.
type iostatLine struct {
	cfg             iostat.WatchConfig
	reportSet       bool // -c or -d given
	cpu, disk       bool
	unfiltered      bool // devices named, ALL, -p with a value
	kilo, mega      bool
	altDir          string // -f or +f
	altToo          bool   // +f
	proc, sys, dev  string
	interval, count string
	help, version   bool
	// persist are the types given with -j, in order, up to where the
	// line was read: sysstat checks each as it reads it.
	persist []string
}

// iostatLetter is one of sysstat's one-letter flags, which combine
// ("-dxz").
type iostatLetter struct {
	letter byte
	help   string
	set    func(*iostatLine) error
}

// iostatWord is an option that stands alone, with a value unless arg is
// empty; optional values are taken when the next argument is neither a
// number nor an option. A long option's value may follow "="; with
// joined, only so (sysstat's --dec=N).
type iostatWord struct {
	name, arg, help  string
	optional, joined bool
	set              func(l *iostatLine, v string) error
}

var iostatLetters = []iostatLetter{
	{'c', "the CPU report (avg-cpu); with neither -c nor -d both are printed", func(l *iostatLine) error { l.cpu, l.reportSet = true, true; return nil }},
	{'d', "the device report", func(l *iostatLine) error { l.disk, l.reportSet = true, true; return nil }},
	{'H', "with -g: only the groups' totals, not their devices", func(l *iostatLine) error { l.cfg.Monitor.GroupsOnly = true; return nil }},
	{'h', "human: sizes with a unit (k, M, G), device names last (--human --pretty)", func(l *iostatLine) error {
		l.cfg.Report.Human, l.cfg.Report.Pretty = true, true
		return nil
	}},
	{'k', "sizes in kB (the default unless POSIXLY_CORRECT is set)", func(l *iostatLine) error {
		if l.mega {
			return fmt.Errorf("%w: -k and -m together", errUsage)
		}
		l.kilo = true
		return nil
	}},
	{'m', "sizes in MB", func(l *iostatLine) error {
		if l.kilo {
			return fmt.Errorf("%w: -k and -m together", errUsage)
		}
		l.mega = true
		return nil
	}},
	{'N', "device-mapper devices by their names under /dev/mapper", func(l *iostatLine) error { l.cfg.Monitor.DMNames = true; return nil }},
	{'p', "every device and partition, from /proc/diskstats (as -p ALL, but hiding those never used)", func(l *iostatLine) error {
		l.cfg.Monitor.AllPartitions = true
		return nil
	}},
	{'s', "short report: fewer, wider columns", func(l *iostatLine) error { l.cfg.Report.Short = true; return nil }},
	{'t', "print each report's time (ISO 8601 when S_TIME_FORMAT=ISO)", func(l *iostatLine) error { l.cfg.Report.Timestamp = true; return nil }},
	{'V', "print which sysstat's iostat this one reproduces, and exit", func(l *iostatLine) error { l.version = true; return nil }},
	{'x', "extended statistics (r/s, rkB/s, r_await, aqu-sz, %util, ...)", func(l *iostatLine) error {
		l.cfg.Report.Extended, l.cfg.Monitor.Extended = true, true
		return nil
	}},
	{'y', "omit the first report (statistics since boot)", func(l *iostatLine) error { l.cfg.SkipFirst = true; return nil }},
	{'z', "omit devices with no I/O in the interval", func(l *iostatLine) error { l.cfg.Monitor.OmitIdle = true; return nil }},
}

var iostatWords = []iostatWord{
	{"-p", "DEV[,DEV...]|ALL", "these devices and all their partitions, or every device and partition (ALL, read from /proc/diskstats)", true, false,
		func(l *iostatLine, v string) error {
			if v == "" {
				l.cfg.Monitor.AllPartitions = true
				return nil
			}
			l.unfiltered = true
			for _, d := range strings.Split(v, ",") {
				if d == "ALL" {
					l.cfg.Monitor.AllPartitions = true
				} else if d != "" {
					l.cfg.Monitor.Items = append(l.cfg.Monitor.Items, iostat.Item{Name: d, Partitions: true})
				}
			}
			return nil
		}},
	{"-g", "NAME", "a group: the devices named after it are also shown summed under NAME", false, false, func(l *iostatLine, v string) error {
		l.cfg.Monitor.Items = append(l.cfg.Monitor.Items, iostat.Item{Group: v})
		return nil
	}},
	{"-j", "ID|LABEL|PATH|UUID|...", "persistent device names of this type (from /dev/disk/by-*), for the devices shown and those named", false, false,
		func(l *iostatLine, v string) error {
			// sysstat's buffer for the type holds 510 bytes.
			if len(v) >= maxPersistentType {
				return fmt.Errorf("%w: -j: a type of %d bytes", errUsage, len(v))
			}
			t := strings.ToLower(v)
			l.cfg.Monitor.Persistent, l.cfg.Report.Pretty = t, true
			l.persist = append(l.persist, t)
			return nil
		}},
	{"-o", "JSON", "sysstat's JSON output", false, false, func(l *iostatLine, v string) error {
		if v != "JSON" {
			return fmt.Errorf("%w: -o %s: only JSON", errUsage, v)
		}
		l.cfg.JSON = true
		return nil
	}},
	{"-f", "DIR", "read the devices' counters from DIR (its diskstats, block/ and dev/block/) instead of /proc and /sys", false, false,
		func(l *iostatLine, v string) error { return l.setAltDir(v, false) }},
	{"+f", "DIR", "read the devices' counters from /proc and /sys and from DIR as well", false, false,
		func(l *iostatLine, v string) error { return l.setAltDir(v, true) }},
	{"--dec", "0|1|2", "digits after the decimal point (--dec=N; as in sysstat 12.6, a character that is no digit reads as 0)", false, true,
		func(l *iostatLine, v string) error {
			// sysstat 12.6 takes one character, read with atoi.
			if len(v) != 1 {
				return fmt.Errorf("%w: --dec=%s: want 0, 1 or 2", errUsage, v)
			}
			n := 0
			if v[0] >= '0' && v[0] <= '9' {
				n = int(v[0] - '0')
			}
			if n > 2 {
				return fmt.Errorf("%w: --dec=%s: want 0, 1 or 2", errUsage, v)
			}
			l.cfg.Report.Decimals = iostat.Dec0 + iostat.Decimals(n)
			return nil
		}},
	{"--human", "", "sizes with a unit (k, M, G) and percentages with %", false, false, func(l *iostatLine, _ string) error { l.cfg.Report.Human = true; return nil }},
	{"--pretty", "", "device names last; -x split into four tables", false, false, func(l *iostatLine, _ string) error { l.cfg.Report.Pretty = true; return nil }},
	{"--compact", "", "with --pretty -x: one table", false, false, func(l *iostatLine, _ string) error { l.cfg.Report.Compact = true; return nil }},
	{"--json", "", "the same as -o JSON", false, false, func(l *iostatLine, _ string) error { l.cfg.JSON = true; return nil }},
	{"--raw", "", "stortest: also print the raw counters over each interval and notes (plain output only)", false, false, func(l *iostatLine, _ string) error {
		l.cfg.Counters = true
		return nil
	}},
	{"--proc", "DIR", "stortest: proc root (a fixture with diskstats, uptime and stat)", false, false, func(l *iostatLine, v string) error { l.proc = v; return nil }},
	{"--sys", "DIR", "stortest: sys root", false, false, func(l *iostatLine, v string) error { l.sys = v; return nil }},
	{"--dev", "DIR", "stortest: dev root, for the numbers of named partitions and for -N and -j", false, false, func(l *iostatLine, v string) error { l.dev = v; return nil }},
	{"--help", "", "print this help", false, false, func(l *iostatLine, _ string) error { l.help = true; return nil }},
}

func (l *iostatLine) setAltDir(v string, too bool) error {
	name := "-f"
	if too {
		name = "+f"
	}
	if l.altDir != "" {
		return fmt.Errorf("%w: %s %s: -f or +f given twice", errUsage, name, v)
	}
	st, err := os.Stat(v)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, name, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s %s: not a directory", errUsage, name, v)
	}
	l.altDir, l.altToo = v, too
	return nil
}

// maxPersistentType bounds the length of -j's type, as sysstat's
// 512-byte buffer does (longer is a usage error there).
const maxPersistentType = 511

// iostatUsage is the usage line, from the tables.
func iostatUsage() string {
	var letters strings.Builder
	for _, f := range iostatLetters {
		letters.WriteByte(f.letter)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[-%s]", letters.String())
	for _, w := range iostatWords {
		switch {
		case w.arg == "":
			fmt.Fprintf(&b, " [%s]", w.name)
		case strings.HasPrefix(w.name, "--dec"):
			fmt.Fprintf(&b, " [%s={%s}]", w.name, w.arg)
		case w.optional:
			fmt.Fprintf(&b, " [%s [%s]]", w.name, w.arg)
		default:
			fmt.Fprintf(&b, " [%s %s]", w.name, w.arg)
		}
	}
	b.WriteString(" [DEVICE...|ALL] [INTERVAL [COUNT]]")
	return b.String()
}

// printIostatOptions lists the options, from the tables.
func printIostatOptions(w io.Writer) {
	for _, f := range iostatLetters {
		fmt.Fprintf(w, "  -%c\n\t%s\n", f.letter, f.help)
	}
	for _, o := range iostatWords {
		switch {
		case o.arg == "":
			fmt.Fprintf(w, "  %s\n\t%s\n", o.name, o.help)
		case strings.HasPrefix(o.name, "--dec"):
			fmt.Fprintf(w, "  %s=%s\n\t%s\n", o.name, o.arg, o.help)
		default:
			fmt.Fprintf(w, "  %s %s\n\t%s\n", o.name, o.arg, o.help)
		}
	}
	fmt.Fprint(w, "  DEVICE\n\ta device (sda, sda1, /dev/sdb, cciss/c0d0p2, a persistent name with -j), or ALL for every one under /sys/block\n")
	fmt.Fprint(w, "  INTERVAL [COUNT]\n\tseconds between reports (0: one report; stortest also takes fractions like 0.5), and how many\n")
	fmt.Fprint(w, "Environment: S_TIME_FORMAT=ISO for ISO 8601 dates, POSIXLY_CORRECT for 512-byte blocks instead of kB.\n")
	fmt.Fprint(w, "The reports are those of sysstat 12.6, to the character: with -y an empty line stands for the report left out,\n"+
		"as 12.6 prints it (12.7.7 does not). Notes on what was skipped (a malformed line, a device gone) go to stderr.\n"+
		"A mistake on the command line gets what sysstat 12.6 answers: its usage text (or, for -j, \"Invalid type of\n"+
		"persistent device name\") on stderr and exit status 1.\n")
}

// isAllDigits is sysstat's test for a number on its command line.
func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isInterval is an interval or a count: digits, or (stortest's
// extension) a decimal number of seconds such as 0.5.
func isInterval(s string) bool {
	if isAllDigits(s) {
		return true
	}
	a, b, ok := strings.Cut(s, ".")
	return ok && (a == "" || isAllDigits(a)) && isAllDigits(b)
}

// parseIostatLine reads iostat's command line as sysstat 12.6 does:
// options, devices and numbers in any order. It stops at the first
// mistake, with an errUsage error and the line as read up to there (whose
// -j types the caller checks, as sysstat does while reading).
func parseIostatLine(args []string) (*iostatLine, error) {
	l := &iostatLine{proc: kernelfs.Proc, sys: kernelfs.Sys, dev: kernelfs.Dev}
	words := map[string]*iostatWord{}
	for i := range iostatWords {
		words[iostatWords[i].name] = &iostatWords[i]
	}
	letters := map[byte]*iostatLetter{}
	for i := range iostatLetters {
		letters[iostatLetters[i].letter] = &iostatLetters[i]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if w, ok := words[name]; ok && strings.HasPrefix(a, "--") && w.arg != "" && hasValue {
			if err := w.set(l, value); err != nil {
				return l, err
			}
			continue
		}
		if w, ok := words[a]; ok && !w.joined {
			v := ""
			switch {
			case w.arg == "":
			case w.optional:
				if i+1 < len(args) && !isAllDigits(args[i+1]) && !strings.HasPrefix(args[i+1], "-") {
					i++
					v = args[i]
				}
			case i+1 < len(args):
				i++
				v = args[i]
			default:
				return l, fmt.Errorf("%w: %s wants %s", errUsage, a, w.arg)
			}
			if err := w.set(l, v); err != nil {
				return l, err
			}
			continue
		}
		switch {
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				f, ok := letters[a[j]]
				if !ok {
					return l, fmt.Errorf("%w: unknown option -%c in %s", errUsage, a[j], a)
				}
				if err := f.set(l); err != nil {
					return l, err
				}
				if l.version {
					return l, nil // sysstat prints its version at once and exits
				}
			}
		case isInterval(a):
			switch {
			case l.interval == "":
				l.interval = a
			case l.count == "":
				l.count = a
			default:
				return l, fmt.Errorf("%w: %s: want INTERVAL [COUNT]", errUsage, a)
			}
		default:
			l.unfiltered = true
			if a == "ALL" {
				l.cfg.Monitor.AllDevices = true
			} else {
				l.cfg.Monitor.Items = append(l.cfg.Monitor.Items, iostat.Item{Name: a})
			}
		}
	}
	return l, l.finish()
}

// finish applies sysstat's defaults and checks what goes together.
func (l *iostatLine) finish() error {
	c := &l.cfg
	if !l.reportSet {
		l.cpu, l.disk = true, true
	}
	if c.Monitor.AllPartitions || c.Report.Extended || l.unfiltered {
		l.disk = true
	}
	c.Report.CPU, c.Report.NoDisk, c.Monitor.CPU = l.cpu, !l.disk, l.cpu
	c.Monitor.ShowIdle = l.unfiltered
	if !l.unfiltered {
		c.Monitor.AllDevices = true
	}
	groups := false
	for _, it := range c.Monitor.Items {
		groups = groups || it.Group != ""
	}
	if c.Monitor.GroupsOnly && !groups {
		return fmt.Errorf("%w: -H needs -g", errUsage)
	}
	switch {
	case l.mega:
		c.Report.Unit = iostat.UnitMB
	case l.kilo:
		c.Report.Unit = iostat.UnitKB
	default:
		if _, set := os.LookupEnv("POSIXLY_CORRECT"); set {
			c.Report.Unit = iostat.UnitBlocks
		}
	}
	c.Report.ISO = os.Getenv("S_TIME_FORMAT") == "ISO"
	if l.interval != "" {
		sec, err := strconv.ParseFloat(l.interval, 64)
		if err != nil {
			return fmt.Errorf("%w: interval %q", errUsage, l.interval)
		}
		c.Interval = time.Duration(sec * float64(time.Second))
		if c.Interval > 0 && c.Interval < 10*time.Millisecond {
			return fmt.Errorf("%w: interval %s: below the 10 ms resolution of /proc/uptime", errUsage, l.interval)
		}
	}
	if l.count != "" {
		n, err := strconv.Atoi(l.count)
		if err != nil || n < 1 || c.Interval == 0 {
			return fmt.Errorf("%w: count %q: want a positive integer after a positive interval", errUsage, l.count)
		}
		c.Count = n
	}
	return nil
}
