package stortest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"stortest.dev/baselines"
)

// The package's flags, registered on the test binary's command line when
// a test imports stortest. Each has an environment variable, for CI jobs
// that cannot change the go test command line; a flag given on the
// command line wins over its variable.
var (
	flagDevice = flag.String("stortest.device", "",
		"block device or file the tests run on (env STORTEST_DEVICE); "+
			"empty: a loop device over a temporary file when root, else a temporary file")
	flagOut = flag.String("stortest.out", "",
		"directory for artifacts, one subdirectory per test (env STORTEST_OUT); "+
			"empty: the test's ArtifactDir with -test.artifacts, else testdata/out when a JUnit report is written, else a temporary directory")
	flagUpdate = newUpdateFlag("stortest.update",
		"record baselines: -stortest.update replaces them with this session's runs, "+
			"-stortest.update=append adds this session's runs to them, keeping the last -stortest.keep sessions "+
			"(env STORTEST_UPDATE=1 or STORTEST_UPDATE=append)")
	flagRepeat = flag.Int("stortest.repeat", 0,
		"run a compared workload up to N times while its comparison is inconclusive and another run could settle it, "+
			"for every test that does not say (RepeatWhileInconclusive; env STORTEST_REPEAT); 0 or 1: once")
	flagRepeatBudget = flag.Duration("stortest.repeat.budget", 0,
		"with -stortest.repeat, run again only while another run keeps all the runs' wall time within this budget, e.g. 2m "+
			"(RepeatWhileInconclusive's budget; env STORTEST_REPEAT_BUDGET); 0: no budget")
	flagKeep = flag.Int("stortest.keep", baselines.DefaultKeep,
		"the most sessions a baseline grown with -stortest.update=append keeps; the oldest go first (env STORTEST_KEEP)")
	flagBaselines = flag.String("stortest.baselines", "",
		"directory of the baselines, one subdirectory per test (env STORTEST_BASELINES); empty: the package's testdata/baselines")
	flagJUnit = flag.String("stortest.junit", "",
		"write a JUnit XML report of the workload runs to this file (env STORTEST_JUNIT)")
	flagStrict = flag.Bool("stortest.strict", false,
		"fail CheckBaseline on an inconclusive comparison, not only on a regression (env STORTEST_STRICT=1)")
	flagTolerance = flag.String("stortest.tolerance", "",
		"tolerance rules in regress.ParseRules syntax, e.g. '*.iops=5%,read.clat.p99=15%:2us', applied to every "+
			"CheckBaseline after the test's own (env STORTEST_TOLERANCE); recorded in the baselines -stortest.update writes")
)

// Environment variables read besides the flags' own.
const (
	// EnvRequireDevice=1 turns the skips of tests that cannot get a
	// device (no root, no rights) into failures: CI sets it so that a
	// misconfigured runner cannot pass by skipping everything.
	EnvRequireDevice = "STORTEST_REQUIRE_DEVICE"
	// EnvNoCleanup=1 keeps loop devices and their backing files, and
	// the artifacts otherwise written to a temporary directory, after
	// the test, for inspection; the test log says where they are.
	EnvNoCleanup = "STORTEST_NOCLEANUP"
	// EnvAllowDestructive lists the block devices (comma-separated
	// paths) that write workloads may destroy.
	EnvAllowDestructive = "STORTEST_ALLOW_DESTRUCTIVE"
	// EnvUpdate=1 rewrites baselines, as -stortest.update does;
	// EnvUpdate=append grows them, as -stortest.update=append does.
	EnvUpdate = "STORTEST_UPDATE"
	// EnvRepeat repeats inconclusive comparisons, as -stortest.repeat
	// does.
	EnvRepeat = "STORTEST_REPEAT"
	// EnvRepeatBudget is the time budget of those repeats, as
	// -stortest.repeat.budget is (a Go duration: "2m", "90s").
	EnvRepeatBudget = "STORTEST_REPEAT_BUDGET"
	// EnvKeep caps the sessions of a grown baseline, as -stortest.keep
	// does.
	EnvKeep = "STORTEST_KEEP"
	// EnvStrict=1 fails inconclusive comparisons, as -stortest.strict
	// does.
	EnvStrict = "STORTEST_STRICT"
	// EnvTolerance holds tolerance rules, as -stortest.tolerance does.
	EnvTolerance = "STORTEST_TOLERANCE"
)

// flagSet reports whether the named flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// stringSetting returns the flag's value when given, else the
// environment variable's.
func stringSetting(name string, value *string, env string) string {
	if flagSet(name) {
		return *value
	}
	return os.Getenv(env)
}

// parsedSetting reads a setting given as the flag name (value) or the
// environment variable env: the flag's value when given, else env's read
// by parse, else def. It says where the value came from ("-name", env, or
// "" for def) for the caller's range check; env's value that parse
// refuses is an error that quotes it and says what is wanted.
func parsedSetting[T any](name string, value *T, env string, def T, parse func(string) (T, error), want string) (T, string, error) {
	if flagSet(name) {
		return *value, "-" + name, nil
	}
	v := os.Getenv(env)
	if v == "" {
		return def, "", nil
	}
	x, err := parse(v)
	if err != nil {
		return def, env, fmt.Errorf("%s=%q: %s", env, v, want)
	}
	return x, env, nil
}

// DeviceSetting returns the device the tests were pointed at with
// -stortest.device or STORTEST_DEVICE, or "" when none.
func DeviceSetting() string { return stringSetting("stortest.device", flagDevice, "STORTEST_DEVICE") }

// OutSetting returns the artifact directory given with -stortest.out or
// STORTEST_OUT, or "" when none.
func OutSetting() string { return stringSetting("stortest.out", flagOut, "STORTEST_OUT") }

// BaselinesSetting returns the baseline directory given with
// -stortest.baselines or STORTEST_BASELINES, or "" for the default.
func BaselinesSetting() string {
	return stringSetting("stortest.baselines", flagBaselines, "STORTEST_BASELINES")
}

// JUnitSetting returns the JUnit report's path given with -stortest.junit
// or STORTEST_JUNIT, or "" when no report is wanted.
func JUnitSetting() string { return stringSetting("stortest.junit", flagJUnit, "STORTEST_JUNIT") }

// Update reports whether baselines are to be recorded, replaced or
// grown: -stortest.update (any value but false), or STORTEST_UPDATE=1 or
// append when the flag is not given. UpdateSetting says which.
func Update() bool { return UpdateSetting() != UpdateOff }

// UpdateMode is how CheckBaseline records baselines.
type UpdateMode int

const (
	// UpdateOff compares with the baselines; it records none.
	UpdateOff UpdateMode = iota
	// UpdateReplace records this session's runs in place of the
	// baseline (-stortest.update, STORTEST_UPDATE=1): a new baseline,
	// as after an intended change. The replaced one goes to the history.
	UpdateReplace
	// UpdateAppend adds this session's runs to the baseline
	// (-stortest.update=append, STORTEST_UPDATE=append), keeping the
	// last KeepSetting sessions (baselines.Grow).
	UpdateAppend
)

func (m UpdateMode) String() string {
	switch m {
	case UpdateReplace:
		return "true"
	case UpdateAppend:
		return "append"
	}
	return "false"
}

// parseUpdateMode reads a value of -stortest.update: a boolean as the
// flag package reads one, or "append".
func parseUpdateMode(s string) (UpdateMode, error) {
	if s == "append" {
		return UpdateAppend, nil
	}
	on, err := strconv.ParseBool(s)
	if err != nil {
		return UpdateOff, fmt.Errorf("%q: want true, false or append", s)
	}
	if on {
		return UpdateReplace, nil
	}
	return UpdateOff, nil
}

// updateFlag is -stortest.update's value: a boolean flag (plain
// -stortest.update is true) that takes "append" too.
type updateFlag struct{ mode UpdateMode }

func newUpdateFlag(name, usage string) *updateFlag {
	f := &updateFlag{}
	flag.Var(f, name, usage)
	return f
}

func (f *updateFlag) String() string {
	if f == nil {
		return "false"
	}
	return f.mode.String()
}

func (f *updateFlag) Set(s string) error {
	m, err := parseUpdateMode(s)
	if err != nil {
		return err
	}
	f.mode = m
	return nil
}

// IsBoolFlag lets -stortest.update stand alone, as a boolean flag.
func (f *updateFlag) IsBoolFlag() bool { return true }

// UpdateSetting returns how baselines are to be recorded:
// -stortest.update's value when given, else STORTEST_UPDATE's (1 to
// replace, append to grow; anything else records nothing).
func UpdateSetting() UpdateMode {
	if flagSet("stortest.update") {
		return flagUpdate.mode
	}
	switch os.Getenv(EnvUpdate) {
	case "1":
		return UpdateReplace
	case "append":
		return UpdateAppend
	}
	return UpdateOff
}

// KeepSetting returns the most sessions a grown baseline keeps:
// -stortest.keep when given, else STORTEST_KEEP, else
// baselines.DefaultKeep. Less than one session is an error.
func KeepSetting() (int, error) {
	n, src, err := parsedSetting("stortest.keep", flagKeep, EnvKeep, baselines.DefaultKeep, strconv.Atoi, "want a number of sessions")
	return atLeast(n, src, err, 1, "keep at least 1 session")
}

// atLeast returns parsedSetting's v, src and err as a setting that may
// not be below least: err, or an error naming src and v followed by
// tooSmall, or v.
func atLeast[T int | time.Duration](v T, src string, err error, least T, tooSmall string) (T, error) {
	if err != nil {
		return 0, err
	}
	if v < least {
		return 0, fmt.Errorf("%s=%v: %s", src, v, tooSmall)
	}
	return v, nil
}

// StrictSetting reports whether inconclusive comparisons fail:
// -stortest.strict, or STORTEST_STRICT=1 when the flag is not given.
func StrictSetting() bool {
	if flagSet("stortest.strict") {
		return *flagStrict
	}
	return envIs1(EnvStrict)
}

// ToleranceSetting returns the tolerance rules given with
// -stortest.tolerance or STORTEST_TOLERANCE, in regress.ParseRules
// syntax, or "" when none.
func ToleranceSetting() string {
	return stringSetting("stortest.tolerance", flagTolerance, EnvTolerance)
}

func envIs1(name string) bool { return os.Getenv(name) == "1" }

// RepeatSetting returns the most runs of a compared workload while its
// comparison is inconclusive (RepeatWhileInconclusive, for the tests
// that do not give it): -stortest.repeat when given, else
// STORTEST_REPEAT, else 0 (one run). A negative or malformed value is an
// error.
func RepeatSetting() (int, error) {
	n, src, err := parsedSetting("stortest.repeat", flagRepeat, EnvRepeat, 0, strconv.Atoi, "want a number of runs")
	return atLeast(n, src, err, 0, "want a number of runs")
}

// RepeatBudgetSetting returns the time budget of the repeats
// RepeatSetting asks for (RepeatWhileInconclusive's budget, for the
// tests that do not give it): -stortest.repeat.budget when given, else
// STORTEST_REPEAT_BUDGET (a Go duration, "2m"), else 0 (no budget). A
// negative or malformed value is an error.
func RepeatBudgetSetting() (time.Duration, error) {
	d, src, err := parsedSetting("stortest.repeat.budget", flagRepeatBudget, EnvRepeatBudget, 0, time.ParseDuration, "want a duration such as 2m")
	return atLeast(d, src, err, 0, "want a duration of 0 or more")
}
