package stortest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/iostat"
	"stortest.dev/report"
)

// Main runs a package's tests, for TestMain:
//
//	func TestMain(m *testing.M) { stortest.Main(m) }
//
// When -stortest.junit or STORTEST_JUNIT names a file, Main then writes
// the JUnit report of every workload run of the package into it (see
// package report): the package is one testsuite, replacing its earlier
// one and keeping other packages' suites, so "go test ./..." with one
// absolute path collects every package in one file. A relative path is
// relative to the package's directory, where go test runs the test
// binary. The file is replaced atomically.
//
// At the end Main prints to stderr every baseline comparison of the
// package's tests that was not a plain pass (an inconclusive one, an
// improvement, a regression), one line each with the reasons indented
// below: go test prints the log of a passing test only with -v, and an
// inconclusive comparison must not pass unseen. In package-list mode
// ("go test ./pkg") go test hides the whole output of a passing package,
// this summary too; -stortest.strict fails the tests on an inconclusive
// comparison instead (see CheckBaseline).
//
// SIGINT or SIGTERM (Ctrl-C in a terminal, a CI job cancelled or timed
// out) does not kill the test binary at once. On the first, Main prints
// a line to stderr and cancels the workloads under way in Run: each
// returns its partial results, recorded as usual with an error of type
// "cancelled", and fails its test. A Run called after the signal does
// not start its workload: the test skips ("cancelled by SIGINT"), or
// fails if it ran one already. The tests end through their cleanups,
// which detach their loop devices. Main writes the report once the
// cancelled runs have returned, in case a second signal comes, and again
// when the tests have ended, then exits with 128 plus the signal's
// number, as shells do: 130 for SIGINT, 143 for SIGTERM. A second signal
// kills the binary at once. A test that runs long without Run does not
// see the signal unless it watches Interrupted. Under go test -fuzz the
// signals are left to the fuzzer, which stops on SIGINT on its own.
//
// go test -timeout (the test binary's -test.timeout, 10m by default)
// ends the binary with a panic that writes no report. So Main, a margin
// before the timeout (see timeoutMargin: 5% of it, at least 1 s and at
// most 30 s), prints a line to stderr and cancels the workloads under
// way as a signal does: each returns its partial results, recorded with
// an error of type "cancelled" ("cancelled after 41.2s as the test
// binary's -timeout (10m0s) is about to expire: results are partial"),
// and later Runs do not start theirs. Main writes the report once the
// cancelled runs have returned (half the margin at most), and again half
// the margin before the timeout, with the tests ended meanwhile. The report's suite then has the property
// "stortest.cancelled" saying why, as after a signal. Testing's panic
// still ends the binary, unless the tests end first, with their own
// status. Without a timeout (-timeout 0), and under go test -fuzz, Main
// arms nothing.
//
// Main does not return: it exits with the tests' status, or 1 when the
// tests passed but the report could not be written, or 130 or 143 after
// a signal.
func Main(m *testing.M) {
	pkg := callerPackage()
	start := time.Now()
	// The report's path is a flag: parsed here, as testing documents for
	// a TestMain that reads flags, to be known when a signal comes.
	if !flag.Parsed() {
		flag.Parse()
	}
	path := JUnitSetting()
	var (
		flushMu sync.Mutex // one write of the report at a time
		final   bool       // the last write has begun: no more
	)
	flush := func(last bool) error {
		flushMu.Lock()
		defer flushMu.Unlock()
		if final {
			return nil
		}
		final = last
		return writeJUnit(path, pkg, start, time.Since(start))
	}

	sigs := make(chan os.Signal, 1)
	// Fuzzing stops on SIGINT as it should, on its own (testing's
	// coordinator and its workers): leave the signals to it.
	if !fuzzing() {
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	}
	go func() {
		sig := (<-sigs).(syscall.Signal)
		// A second signal takes the default action: the binary dies.
		signal.Reset(syscall.SIGINT, syscall.SIGTERM)
		name := unix.SignalName(sig)
		if path == "" {
			fmt.Fprintf(os.Stderr, "stortest: %s: cancelling the running workloads, ending the tests with partial results; a second signal kills\n", name)
		} else {
			fmt.Fprintf(os.Stderr, "stortest: %s: cancelling the running workloads, flushing partial results to %s; a second signal kills\n", name, path)
		}
		interrupt(interruptError{sig})
		// Write the runs cut short as soon as they have returned, in case
		// a second signal (CI escalating to SIGTERM, then SIGKILL) ends the
		// binary before the tests do; the final write reports errors.
		if path != "" {
			waitRuns(interimWait)
			flush(false)
		}
	}()

	var timer *time.Timer
	if timeout := testTimeout(); timeout > 0 && !fuzzing() {
		timer = armTimeout(timeout, path, flush)
	}
	code := m.Run()
	if timer != nil {
		timer.Stop()
	}
	writeComparisons(os.Stderr, notedComparisons())
	if path != "" {
		if err := flush(true); err != nil {
			fmt.Fprintf(os.Stderr, "stortest: JUnit report: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	if sig, ok := interruptSignal(); ok {
		code = 128 + int(sig)
	}
	os.Exit(code)
}

// testTimeout returns the test binary's -test.timeout, 0 for none.
func testTimeout() time.Duration {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return 0
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return 0
	}
	d, _ := g.Get().(time.Duration)
	return d
}

// timeoutMargin is how long before the test binary's timeout Main
// cancels the workloads under way: timeout/20, at least 1 s, at most
// 30 s, and at most half the timeout. The margin is time the tests give
// up, hence a small fraction of it: 5% of go test's default 10m is the
// most, 30 s. A cancelled run stops issuing I/O at once and drains what
// is in flight, so on a working device it returns within milliseconds:
// half the margin, at least 500 ms, allows for a loaded CI host and a
// slow device, and the other half is for writing the report
// (milliseconds, a few hundred when the host's disk is busy). A run that
// has not returned after 15 s is stuck in the kernel, and waiting longer
// would not bring it back. A timeout under 2 s, which leaves no workload
// time anyway, is split in half.
func timeoutMargin(timeout time.Duration) time.Duration {
	return min(max(timeout/20, time.Second), 30*time.Second, timeout/2)
}

// armTimeout arms a timer that cuts the runs short a margin before the
// test binary's timeout (Main's doc says what happens), writing the
// report to path, when there is one, with flush. Testing's own alarm
// starts later, in m.Run, so the margin is the least that is left.
func armTimeout(timeout time.Duration, path string, flush func(last bool) error) *time.Timer {
	margin := timeoutMargin(timeout)
	return time.AfterFunc(timeout-margin, func() {
		fired := time.Now()
		// After a signal the runs are cancelled already, and its line
		// said so; the report is still written again before the panic.
		if interrupted.Err() == nil {
			if path == "" {
				fmt.Fprintf(os.Stderr, "stortest: the test binary's -timeout (%v) expires in %v: cancelling the running workloads, ending the tests with partial results\n", timeout, margin)
			} else {
				fmt.Fprintf(os.Stderr, "stortest: the test binary's -timeout (%v) expires in %v: cancelling the running workloads, flushing partial results to %s\n", timeout, margin, path)
			}
			interrupt(timeoutError{timeout})
		}
		if path == "" {
			return
		}
		waitRuns(margin / 2)
		flush(false)
		// Once more with the tests that ended meanwhile (a later Run
		// refused), half the margin before the panic: a write under way
		// when it comes is lost, and on a loaded host the fsyncs of one
		// take a few hundred milliseconds.
		if d := time.Until(fired.Add(margin / 2)); d > 0 {
			time.Sleep(d)
			flush(false)
		}
	})
}

// fuzzing reports whether the binary runs go test -fuzz, as its
// coordinator or as one of its workers.
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// interimWait bounds how long Main waits, after a signal, for the
// workloads under way to return before it writes the report a first time.
const interimWait = 5 * time.Second

// runsInFlight counts the calls of Run under way.
var runsInFlight atomic.Int64

// waitRuns waits until no Run is under way, for at most limit.
func waitRuns(limit time.Duration) {
	for deadline := time.Now().Add(limit); runsInFlight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// interrupted is done once Main's binary got SIGINT or SIGTERM, or its
// timeout is about to expire, with an interruptCause as its cause:
// interruptError or timeoutError. Without Main it is never done.
var interrupted, interrupt = context.WithCancelCause(context.Background())

// interruptCause is why Main cancelled the workloads.
type interruptCause interface {
	error // "cancelled by SIGINT"
	// by names what cut the runs short: "SIGINT", "the test binary's
	// -timeout (5s)".
	by() string
	// after says that a run was cancelled after d of it, for the error
	// of its testcase: "cancelled by SIGINT after 1.2s".
	after(d time.Duration) string
}

var (
	_ interruptCause = interruptError{}
	_ interruptCause = timeoutError{}
)

// interruptError is the cause of interrupted after a signal.
type interruptError struct{ sig syscall.Signal }

func (e interruptError) Error() string { return "cancelled by " + e.by() }
func (e interruptError) by() string    { return unix.SignalName(e.sig) }
func (e interruptError) after(d time.Duration) string {
	return fmt.Sprintf("cancelled by %s after %v", e.by(), d)
}

// timeoutError is the cause of interrupted when the test binary's
// -test.timeout is about to expire.
type timeoutError struct{ timeout time.Duration }

func (e timeoutError) Error() string { return "cancelled as " + e.by() + " is about to expire" }
func (e timeoutError) by() string {
	return fmt.Sprintf("the test binary's -timeout (%v)", e.timeout)
}
func (e timeoutError) after(d time.Duration) string {
	return fmt.Sprintf("cancelled after %v as %s is about to expire", d, e.by())
}

// interruptedBy returns why the binary was interrupted, or nil.
func interruptedBy() interruptCause {
	c, _ := context.Cause(interrupted).(interruptCause)
	return c
}

// Interrupted returns a channel closed when the test binary, run by
// Main, gets SIGINT or SIGTERM or its -timeout is about to expire: Run's
// workloads stop on their own, and a test that runs for long otherwise
// can watch it to end early. Without Main it is never closed.
func Interrupted() <-chan struct{} { return interrupted.Done() }

// interruptSignal returns the signal that interrupted the binary, if one
// did.
func interruptSignal() (syscall.Signal, bool) {
	var ie interruptError
	if errors.As(context.Cause(interrupted), &ie) {
		return ie.sig, true
	}
	return 0, false
}

// withInterrupt returns a context done when parent is, or when the
// binary is interrupted, with the signal as its cause; stop releases it.
func withInterrupt(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	unhook := context.AfterFunc(interrupted, func() { cancel(context.Cause(interrupted)) })
	return ctx, func() {
		unhook()
		cancel(context.Canceled)
	}
}

// callerPackage returns the import path of the package whose TestMain
// called Main (for an external test package, the package it tests).
func callerPackage() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return "unknown"
	}
	f := runtime.FuncForPC(pc)
	if f == nil {
		return "unknown"
	}
	return packageOf(f.Name())
}

// packageOf extracts the package path from a function's full name:
// "stortest.dev/examples/randread_test.TestMain" gives
// "stortest.dev/examples/randread". The linker writes dots in the last
// path element as %2e ("stortest%2edev.TestMain"), so the first dot
// after the last slash ends the path.
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	pkg := fn
	if dot >= 0 {
		pkg = fn[:slash+1+dot]
	}
	pkg = strings.ReplaceAll(pkg, "%2e", ".")
	return strings.TrimSuffix(pkg, "_test")
}

// writeJUnit merges the package's suite, of every run collected, into
// the JUnit file at path. A run that cannot be made into a testcase is
// reported, but does not keep the others out of the file.
func writeJUnit(path, pkg string, start time.Time, elapsed time.Duration) error {
	cs, cerr := cases()
	hostname, _ := os.Hostname()
	props := hostProperties(iostat.DefaultFS())
	if c := interruptedBy(); c != nil {
		// Why runs are cut short, and tests ended without one.
		props = append(props, report.Property{Name: "stortest.cancelled", Value: c.Error()})
	}
	s := report.Suite{
		Name: pkg, Hostname: hostname, Timestamp: start, Time: elapsed,
		Properties: props, Cases: cs,
	}
	return errors.Join(cerr, report.MergeFile(path, s))
}
