package stortest

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Acceptance: go test -timeout does not lose the report. A margin before
// the test binary's -test.timeout, Main cancels the run under way, as a
// signal would, and writes the JUnit file with its partial results and
// the timeout named; testing's panic still ends the binary (exit 2) when
// a test outlasts the timeout, and the binary ends on its own, failed,
// when none does. The binary is testdata/cancel's, whose TestLong runs
// for 30 s.
func TestMainTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary and runs it for seconds")
	}
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
	assert.Empty(t, long.Failures, "checks judged the partial results")
	assert.Contains(t, long.Out, "(canceled: partial results)")
	iops, err := strconv.ParseFloat(s.prop("TestLong/long/read.iops"), 64)
	require.NoError(t, err)
	assert.Positive(t, iops, "the partial run's IOPS")
	secs, err := strconv.ParseFloat(long.Time, 64)
	require.NoError(t, err)
	assert.Less(t, secs, 5.0, "the run's time is up to the cancel, not the job's 30 s")

	next := doc.find("TestNext", "next")
	require.NotNil(t, next, "the test after the cancel has a testcase")
	require.NotNil(t, next.Skipped, "skipped")
	assert.Equal(t, "next: not started: "+why, next.Skipped.Message)

	c.assertNothingLeft(t)
	validateJUnit(t, c.junit)
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
