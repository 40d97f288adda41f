package stortest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// The flags are not given in these tests, so the environment decides.
func TestSettingsFromEnvironment(t *testing.T) {
	t.Setenv("STORTEST_DEVICE", "/dev/nvme9n1")
	t.Setenv("STORTEST_OUT", "/tmp/out")
	t.Setenv("STORTEST_JUNIT", "/tmp/junit.xml")
	if DeviceSetting() != "/dev/nvme9n1" || OutSetting() != "/tmp/out" || JUnitSetting() != "/tmp/junit.xml" {
		t.Errorf("settings %q %q %q", DeviceSetting(), OutSetting(), JUnitSetting())
	}
	for v, want := range map[string]bool{"1": true, "0": false, "": false, "true": false} {
		t.Setenv("STORTEST_UPDATE", v)
		if Update() != want {
			t.Errorf("STORTEST_UPDATE=%q: Update() = %v", v, !want)
		}
		t.Setenv("STORTEST_STRICT", v)
		if StrictSetting() != want {
			t.Errorf("STORTEST_STRICT=%q: StrictSetting() = %v", v, !want)
		}
	}
	t.Setenv("STORTEST_TOLERANCE", "*.iops=5%")
	if ToleranceSetting() != "*.iops=5%" {
		t.Errorf("ToleranceSetting() = %q", ToleranceSetting())
	}
}

func TestFlagsRegistered(t *testing.T) {
	for _, name := range []string{"stortest.device", "stortest.out", "stortest.update", "stortest.keep", "stortest.junit", "stortest.strict", "stortest.tolerance"} {
		if flagSet(name) {
			t.Errorf("-%s reads as given on the command line", name)
		}
	}
	if flagDevice == nil || flagOut == nil || flagUpdate == nil || flagJUnit == nil || flagStrict == nil || flagTolerance == nil {
		t.Fatal("flags not registered")
	}
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

// updateHelper is a run of this test binary's TestUpdateFlagHelper with
// its baselines under dir, the command-line args, and none of the
// settings of the environment but env's (KEY=VALUE).
func updateHelper(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestUpdateFlagHelper$", "-test.count=1", "-test.v"}, args...)...)
	cmd.Env = append(append(os.Environ(), updateHelperEnv+"="+dir, "STORTEST_JUNIT=", EnvUpdate+"=", EnvKeep+"=",
		EnvRepeat+"=", EnvStrict+"=", EnvTolerance+"=", "STORTEST_BASELINES="), env...)
	return cmd
}

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
		out, err := updateHelper(dir, []string{EnvUpdate + "=" + env}, args...).CombinedOutput()
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
