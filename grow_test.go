package stortest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// asSession makes what follows run as if in another go test process of
// session id: its baselines record id, and it has written none yet.
func asSession(t *testing.T, id string) {
	t.Helper()
	written.mu.Lock()
	saved, savedSession := written.paths, thisSession
	written.paths = nil
	thisSession = func() string { return id }
	written.mu.Unlock()
	t.Cleanup(func() {
		written.mu.Lock()
		written.paths, thisSession = saved, savedSession
		written.mu.Unlock()
	})
}

// -stortest.update=append grows a baseline one session at a time: each
// session's runs are added (those of one -count=N process as one
// session), the oldest sessions go beyond -stortest.keep, and plain
// -stortest.update starts over with this session's runs only.
func TestUpdateAppendGrowsSessions(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	record := func() []string {
		t.Helper()
		ok, errs, logs := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
		require.True(t, ok, "%q", errs)
		return logs
	}
	sessions := func() []string {
		t.Helper()
		b, err := baselines.Load(path)
		require.NoError(t, err)
		return b.Sessions()
	}

	t.Setenv(EnvUpdate, "append")
	asSession(t, "s1")
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path}, record(), "none yet: the first session records it")
	asSession(t, "s2")
	assert.Equal(t, []string{"stortest: mix: this session added to the baseline at " + path + ": 2 sessions (2 runs)"}, record())
	asSession(t, "s3") // go test -count=3
	record()
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path + " (3 sessions, 4 runs)"}, record())
	record()
	assert.Equal(t, []string{"s1", "s2", "s3"}, sessions())

	t.Setenv(EnvKeep, "3")
	asSession(t, "s4")
	assert.Equal(t, []string{"stortest: mix: this session added to the baseline at " + path +
		": 3 sessions (5 runs); the oldest 1 session (1 run) evicted to keep 3 (-stortest.keep)"}, record())
	assert.Equal(t, []string{"s2", "s3", "s4"}, sessions())
	t.Setenv(EnvKeep, "2")
	asSession(t, "s5")
	record()
	assert.Equal(t, []string{"s4", "s5"}, sessions(), "s2 and s3 (three runs) evicted, oldest first")
	b, err := baselines.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "s5", b.Session, "the full data is the newest session's")
	assert.Len(t, b.Runs, 2)

	// Each update kept the baseline it replaced in the history.
	hist, err := os.Open(baselines.HistoryPath(path))
	require.NoError(t, err)
	kept, _, err := baselines.ReadHistory(hist, path)
	hist.Close()
	require.NoError(t, err)
	assert.Len(t, kept, 4)

	t.Setenv(EnvKeep, "0")
	asSession(t, "s6")
	_, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	assert.Equal(t, []string{"mix: STORTEST_KEEP=0: keep at least 1 session"}, errs)
	t.Setenv(EnvKeep, "")

	// Plain update starts over: this session's run only.
	t.Setenv(EnvUpdate, "1")
	asSession(t, "s7")
	assert.Equal(t, []string{"stortest: mix: baseline written to " + path}, record())
	assert.Equal(t, []string{"s7"}, sessions())
	b, err = baselines.Load(path)
	require.NoError(t, err)
	assert.Nil(t, b.Runs)
}

// An append refuses a baseline of another workload, or one it cannot
// read, naming the file and what differs, and leaves it as it was.
func TestUpdateAppendRefuses(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	path := baselines.Path(dir, t.Name(), "mix")
	other := syntheticResult()
	other.Job.IODepth = 8
	other.Jobs[0].Job.IODepth = 8
	b, err := baselines.FromResult(other.Result, other.fp)
	require.NoError(t, err)
	require.NoError(t, baselines.WriteFile(path, b))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	t.Setenv(EnvUpdate, "append")
	asSession(t, "s2")
	ok, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	assert.False(t, ok)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "mix: update baseline: cannot add this session to "+path+": baselines: not a run of the same job: mix: the workload differs: iodepth 8 -> 1")
	assert.Contains(t, errs[0], "start over with plain -stortest.update")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	require.NoError(t, os.WriteFile(path, before[:100], 0o644))
	asSession(t, "s3")
	_, errs, _ = checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "cannot add this session to "+path+": baselines: "+path)
	assert.Contains(t, errs[0], "truncated")
}

// -stortest.update is a boolean flag that takes "append" too; the
// environment says the same with 1 or append.
func TestUpdateSetting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want UpdateMode
		err  string
	}{
		{nil, UpdateOff, ""},
		{[]string{"-stortest.update"}, UpdateReplace, ""},
		{[]string{"-stortest.update=true"}, UpdateReplace, ""},
		{[]string{"-stortest.update=1"}, UpdateReplace, ""},
		{[]string{"-stortest.update=false"}, UpdateOff, ""},
		{[]string{"-stortest.update=append"}, UpdateAppend, ""},
		{[]string{"-stortest.update", "-stortest.update=append"}, UpdateAppend, ""},
		{[]string{"-stortest.update=appendix"}, UpdateOff, `"appendix": want true, false or append`},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(new(discard))
		f := &updateFlag{}
		fs.Var(f, "stortest.update", "")
		err := fs.Parse(tc.args)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%q", tc.args)
			continue
		}
		require.NoError(t, err, "%q", tc.args)
		assert.Equal(t, tc.want, f.mode, "%q", tc.args)
		assert.Empty(t, fs.Args(), "%q: plain -stortest.update takes no argument", tc.args)
	}
	g := flag.Lookup("stortest.update")
	require.NotNil(t, g)
	bf, ok := g.Value.(interface{ IsBoolFlag() bool })
	require.True(t, ok && bf.IsBoolFlag(), "the registered flag stands alone")
	assert.Equal(t, "false", g.DefValue)

	for v, want := range map[string]UpdateMode{"1": UpdateReplace, "append": UpdateAppend, "0": UpdateOff, "": UpdateOff, "true": UpdateOff} {
		t.Setenv(EnvUpdate, v)
		assert.Equal(t, want, UpdateSetting(), "STORTEST_UPDATE=%q", v)
		assert.Equal(t, want != UpdateOff, Update(), "STORTEST_UPDATE=%q", v)
	}
	for v, want := range map[string]string{"": "10", "3": "3", "x": `STORTEST_KEEP="x": want a number of sessions`, "-1": "STORTEST_KEEP=-1: keep at least 1 session"} {
		t.Setenv(EnvKeep, v)
		n, err := KeepSetting()
		got := fmt.Sprint(n)
		if err != nil {
			got = err.Error()
		}
		assert.Equal(t, want, got, "STORTEST_KEEP=%q", v)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

const updateHelperEnv = "STORTEST_UPDATE_HELPER"

// The flags, as go test passes them: each run of this test binary is a
// session of its own (its own process, so its own session id).
// -stortest.update=append adds its run, -stortest.keep caps the
// sessions, plain -stortest.update starts over, and a flag on the
// command line wins over STORTEST_UPDATE.
func TestUpdateFlagAppend(t *testing.T) {
	if os.Getenv(updateHelperEnv) != "" {
		t.Skip("in the helper's binary")
	}
	dir := t.TempDir()
	path := baselines.Path(dir, "TestUpdateFlagHelper", "mix")
	session := func(env string, args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestUpdateFlagHelper$", "-test.count=1", "-test.v"}, args...)...)
		cmd.Env = append(os.Environ(), updateHelperEnv+"="+dir, "STORTEST_JUNIT=", EnvUpdate+"="+env, EnvKeep+"=",
			EnvRepeat+"=", EnvStrict+"=", EnvTolerance+"=", "STORTEST_BASELINES=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	sessions := func() []string {
		t.Helper()
		b, err := baselines.Load(path)
		require.NoError(t, err)
		return b.Sessions()
	}
	session("", "-stortest.update=append")
	session("", "-stortest.update=append")
	out := session("", "-stortest.update=append")
	assert.Contains(t, out, "this session added to the baseline at "+path+": 3 sessions (3 runs)")
	first := sessions()
	require.Len(t, first, 3)
	for _, s := range first {
		assert.Regexp(t, `^[0-9a-f]{16}$`, s, "each process's own session")
	}
	out = session("", "-stortest.update=append", "-stortest.keep=2")
	assert.Contains(t, out, "the oldest 2 sessions (2 runs) evicted to keep 2 (-stortest.keep)")
	got := sessions()
	require.Len(t, got, 2)
	assert.Equal(t, first[2], got[0], "the newest of the three stays")

	// The flag wins over the environment.
	session("append", "-stortest.update=false")
	assert.Len(t, sessions(), 2, "-stortest.update=false records nothing")
	session("1", "-stortest.update=append")
	assert.Len(t, sessions(), 3)

	session("", "-stortest.update")
	assert.Len(t, sessions(), 1, "plain -stortest.update starts over")
	session("append")
	assert.Len(t, sessions(), 2, "STORTEST_UPDATE=append without the flag")
}

// TestUpdateFlagHelper records (or compares) a synthetic run, for
// TestUpdateFlagAppend.
func TestUpdateFlagHelper(t *testing.T) {
	dir := os.Getenv(updateHelperEnv)
	if dir == "" {
		t.Skip("run by TestUpdateFlagAppend")
	}
	if d, err := time.ParseDuration(os.Getenv(appendPauseEnv)); err == nil {
		appendPause = func() { time.Sleep(d) }
	}
	CheckBaseline(t, syntheticResult(), BaselineDir(dir), Tolerances("*=off,read.iops=10%"))
}

const appendPauseEnv = "STORTEST_APPEND_PAUSE"

// Two go test processes appending their sessions to one baseline at the
// same moment each add theirs: the second waits for the first's lock,
// then reads the baseline the first wrote. Each pauses a second between
// reading the baseline and writing it back, so that without the lock
// both would read the one-session baseline and the later write would
// drop the earlier's session.
func TestUpdateAppendConcurrent(t *testing.T) {
	if os.Getenv(updateHelperEnv) != "" {
		t.Skip("in the helper's binary")
	}
	dir := t.TempDir()
	path := baselines.Path(dir, "TestUpdateFlagHelper", "mix")
	start := func(pause string) (*exec.Cmd, *strings.Builder) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateFlagHelper$", "-test.count=1", "-test.v", "-stortest.update=append")
		cmd.Env = append(os.Environ(), updateHelperEnv+"="+dir, appendPauseEnv+"="+pause, "STORTEST_JUNIT=", EnvUpdate+"=", EnvKeep+"=",
			EnvRepeat+"=", EnvStrict+"=", EnvTolerance+"=", "STORTEST_BASELINES=")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		return cmd, &out
	}
	first, out := start("")
	require.NoError(t, first.Wait(), "%s", out)
	a, aOut := start("1s")
	b, bOut := start("1s")
	require.NoError(t, a.Wait(), "%s", aOut)
	require.NoError(t, b.Wait(), "%s", bOut)
	got, err := baselines.Load(path)
	require.NoError(t, err)
	assert.Len(t, got.Sessions(), 3, "every session added")
	assert.Contains(t, aOut.String()+bOut.String(), ": 3 sessions (3 runs)")
}
