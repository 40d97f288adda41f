package stortest

import (
	"bufio"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/internal/proctest"
	"stortest.dev/internal/testenv"
)

// Acceptance: SIGINT to a test binary under Main, in the middle of a
// 30-second workload, cuts the workload short, writes the JUnit file with
// its partial results, skips the test that had not started, exits 130
// (143 for SIGTERM) within seconds and leaves no target, loop device or
// temporary file behind; a second SIGINT kills it, after the report of
// the cut run is written. The binary is testdata/cancel's, built with go test -c and run
// directly: under go test the terminal's SIGINT reaches it the same way,
// as go test ignores SIGINT and waits for it.
func TestMainSIGINT(t *testing.T) {
	testenv.SkipShort(t, "builds a test binary and runs it for seconds")
	bin := buildCancelProgram(t)
	t.Run("file", func(t *testing.T) { checkSignal(t, bin, "file", syscall.SIGINT) })
	t.Run("loop", func(t *testing.T) {
		testenv.RequireRoot(t)
		checkSignal(t, bin, "loop", syscall.SIGINT)
	})
	t.Run("SIGTERM", func(t *testing.T) { checkSignal(t, bin, "file", syscall.SIGTERM) })
	t.Run("second signal", func(t *testing.T) {
		c := startCancelProgram(t, bin, "file", "CANCEL_STUCK=1")
		c.signalWhen(t, "IOPS", syscall.SIGINT)
		// The first report, once the cut run has returned; then a test
		// that ignores the signal, which a second one must end.
		c.waitFor(t, "=== RUN   TestStuck")
		c.waitFile(t, c.junit)
		c.signalWhen(t, "", syscall.SIGINT)
		st := c.wait(t, 5*time.Second)
		ws := st.Sys().(syscall.WaitStatus)
		require.True(t, ws.Signaled(), "killed by the second signal, not %v; stderr: %s", st, c.stderr.String())
		assert.Equal(t, syscall.SIGINT, ws.Signal())
		doc := readJUnitFile(t, c.junit)
		long := doc.find("TestLong", "long")
		require.NotNil(t, long, "the report written after the first signal has the cut run: %+v", doc)
		assert.True(t, long.cancelled("SIGINT"), "error: %+v", long.Errors)
		c.assertNothingLeft(t)
	})
}

// checkSignal runs the program on a kind of target, sends sig once its
// 30-second run reports I/O, and checks the exit, the report and what is
// left.
func checkSignal(t *testing.T, bin, kind string, sig syscall.Signal) {
	name := unix.SignalName(sig)
	c := startCancelProgram(t, bin, kind)
	c.signalWhen(t, "IOPS", sig) // a progress line: I/O is under way
	st := c.wait(t, 5*time.Second)
	require.Equal(t, 128+int(sig), st.ExitCode(), "stdout: %s\nstderr: %s", c.stdout.String(), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "stortest: "+name+": cancelling the running workloads, flushing partial results to "+c.junit)
	assert.Contains(t, c.stdout.String(), "--- FAIL: TestLong")
	assert.Contains(t, c.stdout.String(), "--- SKIP: TestNext")

	doc := readJUnitFile(t, c.junit)
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	assert.Equal(t, "stortest.dev/testdata/cancel", s.Name)
	assert.Equal(t, [4]int{2, 0, 1, 1}, [4]int{s.Tests, s.Failures, s.Errors, s.Skipped}, "tests, failures, errors, skipped")

	long := doc.find("TestLong", "long")
	require.NotNil(t, long, "the cut run's testcase")
	assert.True(t, long.cancelled(name), "says it was cancelled: %+v", long.Errors)
	// Its percentile limit, which no run meets, is not judged.
	assert.Contains(t, c.stdout.String(), "stortest: long: clat p99 not judged: run cut short by "+name+" after ")
	assert.Contains(t, long.Out, "read: IOPS=")
	checkPartialLong(t, &s, long, 10, "the signal")
	// The histogram log, flushed up to the signal.
	logs, _ := filepath.Glob(filepath.Join(c.out, "TestLong", "long_clat_hist.*.log"))
	require.Len(t, logs, 1)
	assert.Contains(t, long.Out, "[[ATTACHMENT|"+logs[0]+"]]")
	assert.GreaterOrEqual(t, countRows(t, logs[0]), 1)

	checkAfterCancel(t, c, doc, "the signal", "cancelled by "+name)
}

// buildCancelProgram compiles testdata/cancel's tests into a binary in a
// temporary directory.
func buildCancelProgram(t *testing.T) string {
	t.Helper()
	return proctest.GoBuild(t, "cancel.test", "test", "-c", "./testdata/cancel")
}

// cancelProgram is a running test binary of testdata/cancel.
type cancelProgram struct {
	cmd            *exec.Cmd
	stdout, stderr proctest.LockedBuffer
	exited         <-chan struct{}
	// tmp is the binary's TMPDIR, where its targets go; junit and out
	// are its report and artifact directory.
	tmp, junit, out string
	signaled        time.Time
}

// startCancelProgram starts the binary with CANCEL_TARGET=kind and the
// environment entries env, in testdata/cancel as go test would, and
// kills it, by its pid, if the test ends before it does.
func startCancelProgram(t *testing.T, bin, kind string, env ...string) *cancelProgram {
	t.Helper()
	return startCancelProgramArgs(t, bin, kind, nil, env...)
}

// startCancelProgramArgs is startCancelProgram with more arguments
// ("-test.timeout=5s") after those it always gives.
func startCancelProgramArgs(t *testing.T, bin, kind string, args []string, env ...string) *cancelProgram {
	t.Helper()
	dir := t.TempDir()
	c := &cancelProgram{
		tmp:   filepath.Join(dir, "tmp"),
		junit: filepath.Join(dir, "report", "junit.xml"),
		out:   filepath.Join(dir, "out"),
	}
	require.NoError(t, os.Mkdir(c.tmp, 0o755))
	require.NoError(t, os.Mkdir(filepath.Dir(c.junit), 0o755))
	c.cmd = exec.Command(bin, append([]string{"-test.v", "-test.count=1", "-stortest.junit=" + c.junit, "-stortest.out=" + c.out}, args...)...)
	c.cmd.Dir = filepath.Join("testdata", "cancel")
	c.cmd.Env = append(os.Environ(), "TMPDIR="+c.tmp, "CANCEL_TARGET="+kind,
		"STORTEST_DEVICE=", "STORTEST_NOCLEANUP=0", "STORTEST_JUNIT=", "STORTEST_OUT=")
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	var err error
	c.exited, err = proctest.Start(t, c.cmd)
	require.NoError(t, err)
	return c
}

// waitFor waits until stdout contains s; it stops the test (FailNow)
// when the binary exits or 20 s pass first.
func (c *cancelProgram) waitFor(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(c.stdout.String(), s); time.Sleep(10 * time.Millisecond) {
		select {
		case <-c.exited:
			t.Fatalf("the binary exited before printing %q\nstdout: %s\nstderr: %s", s, c.stdout.String(), c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in 20 s\nstdout: %s\nstderr: %s", s, c.stdout.String(), c.stderr.String())
		}
	}
}

// waitFile waits until path exists; it stops the test (FailNow) after
// 10 s.
func (c *cancelProgram) waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in 10 s\nstderr: %s", path, c.stderr.String())
		}
	}
}

// signalWhen sends sig to the binary, by its pid, once stdout contains
// ready; it stops the test (FailNow) when that does not come.
func (c *cancelProgram) signalWhen(t *testing.T, ready string, sig syscall.Signal) {
	t.Helper()
	c.waitFor(t, ready)
	c.signaled = time.Now()
	require.NoError(t, c.cmd.Process.Signal(sig))
}

// wait waits for the binary to exit, within limit of the last signal,
// and returns its state; it stops the test (FailNow) otherwise.
func (c *cancelProgram) wait(t *testing.T, limit time.Duration) *os.ProcessState {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(time.Until(c.signaled.Add(limit))):
		t.Fatalf("still running %v after the signal\nstdout: %s\nstderr: %s", limit, c.stdout.String(), c.stderr.String())
	}
	return c.cmd.ProcessState
}

// assertNothingLeft checks that the binary left no target in its TMPDIR,
// no loop device over one, and no temporary file beside the report.
func (c *cancelProgram) assertNothingLeft(t *testing.T) {
	t.Helper()
	left, _ := os.ReadDir(c.tmp)
	assert.Empty(t, left, "left in TMPDIR")
	assert.Empty(t, proctest.LoopsOver(c.tmp), "loop devices left")
	entries, _ := os.ReadDir(filepath.Dir(c.junit))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{filepath.Base(c.junit)}, names, "beside the report")
}

// junitDoc is the part of a JUnit file the test reads.
type junitDoc struct {
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Props    []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr"`
	Errors    []struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
	} `xml:"error"`
	Failures []struct {
		Message string `xml:"message,attr"`
	} `xml:"failure"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	Out string `xml:"system-out"`
}

// readJUnitFile parses the JUnit file at path; it stops the test
// (FailNow) when it is missing or not well-formed XML.
func readJUnitFile(t *testing.T, path string) *junitDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the JUnit file")
	var doc junitDoc
	require.NoError(t, xml.Unmarshal(data, &doc), "%s", data)
	return &doc
}

// find returns the testcase of a test and job, or nil.
func (d *junitDoc) find(test, job string) *junitCase {
	for _, s := range d.Suites {
		for i, c := range s.Cases {
			if c.Classname == test && c.Name == job {
				return &s.Cases[i]
			}
		}
	}
	return nil
}

func (s *junitSuite) prop(name string) string {
	for _, p := range s.Props {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// cancelled reports whether the case has the error of a run cut short
// by the signal named sig ("SIGINT").
func (c *junitCase) cancelled(sig string) bool {
	for _, e := range c.Errors {
		if e.Type == "cancelled" && strings.Contains(e.Message, "cancelled by "+sig+" after") &&
			strings.HasSuffix(e.Message, "results are partial") {
			return true
		}
	}
	return false
}

// countRows counts the complete rows of a histogram log; it stops the
// test (FailNow) when the file cannot be read or its last row is cut.
func countRows(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rows++
		require.Greater(t, strings.Count(sc.Text(), ","), 3, "row %d is complete: %q", rows, sc.Text())
	}
	require.NoError(t, sc.Err())
	return rows
}

// Acceptance: go test -timeout does not lose the report. A margin before
// the test binary's -test.timeout, Main cancels the run under way, as a
// signal would, and writes the JUnit file with its partial results and
// the timeout named; testing's panic still ends the binary (exit 2) when
// a test outlasts the timeout, and the binary ends on its own, failed,
// when none does. The binary is testdata/cancel's, whose TestLong runs
// for 30 s.
func TestMainTimeout(t *testing.T) {
	testenv.SkipShort(t, "builds a test binary and runs it for seconds")
	// 5 s: a margin of 1 s, and 4 s for the binary to start TestLong's
	// run on a loaded host.
	const timeout = 5 * time.Second
	bin := buildCancelProgram(t)
	t.Run("panic", func(t *testing.T) {
		// TestStuck sleeps past the timeout, without Run.
		c := checkTimeout(t, bin, timeout, "CANCEL_STUCK=1")
		st := c.wait(t, timeout+10*time.Second)
		assert.Equal(t, 2, st.ExitCode(), "testing's panic ends the binary; stderr: %s", c.stderr.String())
		assert.Contains(t, c.stderr.String(), "panic: test timed out after 5s")
		checkTimeoutReport(t, c)
	})
	t.Run("tests end first", func(t *testing.T) {
		c := checkTimeout(t, bin, timeout)
		st := c.wait(t, timeout+10*time.Second)
		assert.Equal(t, 1, st.ExitCode(), "the tests' own status; stderr: %s", c.stderr.String())
		assert.NotContains(t, c.stderr.String(), "panic:")
		assert.Contains(t, c.stdout.String(), "--- SKIP: TestNext")
		checkTimeoutReport(t, c)
	})
}

// checkTimeout starts the program with -test.timeout and env, and checks
// that its run is cut short a second before the timeout, saying so.
func checkTimeout(t *testing.T, bin string, timeout time.Duration, env ...string) *cancelProgram {
	t.Helper()
	c := startCancelProgramArgs(t, bin, "file", []string{"-test.timeout=" + timeout.String()}, env...)
	c.signaled = time.Now() // the limit of wait counts from the start
	c.waitFor(t, "--- FAIL: TestLong")
	assert.Contains(t, c.stderr.String(), "stortest: the test binary's -timeout (5s) expires in 1s: "+
		"cancelling the running workloads, flushing partial results to "+c.junit)
	out := c.stdout.String()
	assert.Contains(t, out, "long: cancelled after ")
	assert.Contains(t, out, "as the test binary's -timeout (5s) is about to expire: results are partial")
	assert.Contains(t, out, "stortest: long: clat p99 not judged: run cut short by the test binary's -timeout (5s) after ")
	return c
}

// checkTimeoutReport checks the JUnit file of a run cut short by the
// timeout: well-formed, valid, the cut run's error, the next test's skip,
// the suite's reason, and nothing left behind.
// checkPartialLong checks the testcase of the cancelled TestLong run:
// partial results, unjudged, with the IOPS the run reached, in a time
// under maxSecs, which what ended it bounds (the job would run 30 s).
func checkPartialLong(t *testing.T, s *junitSuite, long *junitCase, maxSecs float64, endedBy string) {
	t.Helper()
	assert.Empty(t, long.Failures, "checks judged the partial results")
	assert.Contains(t, long.Out, "(canceled: partial results)")
	iops, err := strconv.ParseFloat(s.prop("TestLong/long/read.iops"), 64)
	require.NoError(t, err)
	assert.Positive(t, iops, "the partial run's IOPS")
	secs, err := strconv.ParseFloat(long.Time, 64)
	require.NoError(t, err)
	assert.Less(t, secs, maxSecs, "the run's time is up to %s, not the job's 30 s", endedBy)
}

// checkAfterCancel checks what follows the cancelled run: the test after
// it (after endedBy) has a testcase, skipped as not started for why;
// nothing is left behind; and the JUnit file is valid.
func checkAfterCancel(t *testing.T, c *cancelProgram, doc *junitDoc, endedBy, why string) {
	t.Helper()
	next := doc.find("TestNext", "next")
	require.NotNil(t, next, "the test after %s has a testcase", endedBy)
	require.NotNil(t, next.Skipped, "skipped")
	assert.Equal(t, "next: not started: "+why, next.Skipped.Message)

	c.assertNothingLeft(t)
	testenv.ValidateJUnit(t, c.junit)
}

func checkTimeoutReport(t *testing.T, c *cancelProgram) {
	t.Helper()
	const why = "cancelled as the test binary's -timeout (5s) is about to expire"
	doc := readJUnitFile(t, c.junit)
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	assert.Equal(t, why, s.prop("stortest.cancelled"))

	long := doc.find("TestLong", "long")
	require.NotNil(t, long, "the cut run's testcase")
	require.Len(t, long.Errors, 1)
	assert.Equal(t, "cancelled", long.Errors[0].Type)
	assert.Regexp(t, `^long: cancelled after \d+(\.\d+)?m?s as the test binary's -timeout \(5s\) is about to expire: results are partial$`,
		long.Errors[0].Message)
	checkPartialLong(t, &s, long, 5, "the cancel")

	checkAfterCancel(t, c, doc, "the cancel", why)
}

func TestTimeoutMargin(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{
		{10 * time.Minute, 30 * time.Second}, // go test's default: 5%, the most
		{time.Hour, 30 * time.Second},
		{time.Minute, 3 * time.Second},
		{5 * time.Second, time.Second}, // the least
		{time.Second, 500 * time.Millisecond},
	} {
		assert.Equal(t, tc.want, timeoutMargin(tc.timeout), "timeout %v", tc.timeout)
	}
}
