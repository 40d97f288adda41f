// Command stortest runs storage workloads and works with their results:
// fio-compatible percentiles, histogram logs, steady state, iostat and
// baselines. It only binds flags to the library's config structs; all the
// work is done by the packages under stortest.dev.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand, possibly with subcommands of its own
// ("stortest fio pctiles").
type command struct {
	name  string
	usage string // one line: arguments after the command's name
	short string // one line: what it does
	// run executes the command with the arguments after its name. It
	// returns errUsage (possibly wrapped) when the arguments are wrong.
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

// register adds a command under a space-separated path such as "fio pctiles".
// It is called from init functions of the files that implement commands.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("stortest: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// define registers a command whose run is fn given the command itself
// (for its flag set and usage).
func define(name, usage, short string, fn func(c *command, args []string, stdout, stderr io.Writer) error) {
	c := &command{name: name, usage: usage, short: short}
	c.run = func(args []string, stdout, stderr io.Writer) error { return fn(c, args, stdout, stderr) }
	register(c)
}

// errUsage marks an error in the command line; main prints the usage and
// exits with status 2, as the flag package does.
var errUsage = errors.New("usage")

// exitError carries an exit status other than 1 (e.g. "baseline diff" exits 1
// on a regression without an error message).
type exitError struct {
	code int
	msg  string
	// plain: msg is written to stderr as it is, without the "stortest
	// <command>: " prefix or a newline added (another tool's message,
	// reproduced to the byte).
	plain bool
}

func (e *exitError) Error() string { return e.msg }

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is main without os.Exit, so tests can call it.
func runMain(args []string, stdout, stderr io.Writer) int {
	c, rest := lookup(args)
	if c == nil {
		// A command group ("stortest baseline") lists its commands.
		group, rest := groupOf(args)
		help := len(rest) == 0 || rest[0] == "help" || rest[0] == "-h" || rest[0] == "--help"
		if !help {
			fmt.Fprintf(stderr, "stortest: unknown command %q\n\n", strings.Join(args, " "))
			printUsage(stderr, group)
			return 2
		}
		printUsage(stdout, group)
		return 0
	}
	err := c.run(rest, stdout, stderr)
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "stortest %s: %v\nusage: stortest %s %s\n", c.name, err, c.name, c.usage)
		return 2
	case errors.As(err, &ee):
		if ee.plain {
			io.WriteString(stderr, ee.msg)
		} else if ee.msg != "" {
			fmt.Fprintf(stderr, "stortest %s: %s\n", c.name, ee.msg)
		}
		return ee.code
	default:
		fmt.Fprintf(stderr, "stortest %s: %v\n", c.name, err)
		return 1
	}
}

// lookup finds the longest registered command path that prefixes args.
func lookup(args []string) (*command, []string) {
	for n := len(args); n > 0; n-- {
		if c, ok := commands[strings.Join(args[:n], " ")]; ok {
			return c, args[n:]
		}
	}
	return nil, args
}

// groupOf returns the longest run of leading arguments that prefixes a
// registered command's path ("baseline" for "baseline -h"), and the rest.
func groupOf(args []string) (string, []string) {
	for n := len(args); n > 0; n-- {
		prefix := strings.Join(args[:n], " ") + " "
		for name := range commands {
			if strings.HasPrefix(name, prefix) {
				return strings.TrimSpace(prefix), args[n:]
			}
		}
	}
	return "", args
}

// printUsage lists the commands, or those of a group ("baseline").
func printUsage(w io.Writer, group string) {
	fmt.Fprintln(w, "stortest: storage regression testing with fio-grade measurement")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		if group == "" || strings.HasPrefix(n, group+" ") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  stortest %s %s\n      %s\n", n, c.usage, c.short)
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its defaults after the command's usage line on -h.
func newFlagSet(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("stortest "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: stortest %s %s\n%s\n", c.name, c.usage, c.short)
		fs.PrintDefaults()
	}
	return fs
}
