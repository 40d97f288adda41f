package stortest

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/regress"
	"stortest.dev/workload"
)

// The package's own tests run under Main, as a user's would.
func TestMain(m *testing.M) { Main(m) }

func TestPackageOf(t *testing.T) {
	for in, want := range map[string]string{
		"stortest.dev/examples/randread.TestMain":      "stortest.dev/examples/randread",
		"stortest.dev/examples/randread_test.TestMain": "stortest.dev/examples/randread",
		"stortest%2edev.TestMain":                      "stortest.dev",
		"example.com/a.b/c.TestMain.func1":             "example.com/a.b/c",
		"main.TestMain":                                "main",
		"gopkg.in/yaml%2ev3_test.TestMain":             "gopkg.in/yaml.v3",
	} {
		if got := packageOf(in); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriteJUnit writes the report of a real run, a failed check and a
// run that could not start, and checks it against Jenkins' schema.
func TestWriteJUnit(t *testing.T) {
	runFake(t, func(tb testing.TB) {
		r := Run(tb, File(tb, 2<<20), workload.Job{Name: "seq", RW: workload.Read, BlockSize: 64 << 10})
		r.CheckIOPS(tb, 1e12)
		Run(tb, &Dev{Path: "/nonexistent/x"}, workload.Job{Name: "missing", Size: 1 << 20})
	})
	mine := casesOf(t, t.Name())
	if len(mine) != 2 {
		t.Fatalf("%d testcases", len(mine))
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// The suite holds every run of the test binary so far; this test
	// looks at its own.
	all, _ := cases()
	if err := writeJUnit(path, "stortest.dev", start, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Time     string `xml:"time,attr"`
			Props    []struct {
				Name string `xml:"name,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failures  []struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Errors []struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Name != "stortest.dev" || s.Tests != len(all) || len(s.Cases) != len(all) || s.Time != "1.500" {
		t.Errorf("suite %s: tests %d, %d cases, time %s; want %d", s.Name, s.Tests, len(s.Cases), s.Time, len(all))
	}
	var own []int
	for i, c := range s.Cases {
		if c.Classname == t.Name() {
			own = append(own, i)
		}
	}
	if len(own) != 2 {
		t.Fatalf("%d testcases of %s", len(own), t.Name())
	}
	c := s.Cases[own[0]]
	if c.Classname != t.Name() || c.Name != "seq" || len(c.Failures) != 1 || !strings.HasPrefix(c.Failures[0].Message, "seq: iops ") {
		t.Errorf("first case: %+v", c)
	}
	for _, want := range []string{"seq: (clone=0, engine=psync", "[[ATTACHMENT|" + mine[0].Attachments[0] + "]]\n"} {
		if !strings.Contains(c.Out, want) {
			t.Errorf("system-out lacks %q:\n%s", want, c.Out)
		}
	}
	if e := s.Cases[own[1]]; e.Name != "missing" || len(e.Errors) != 1 || !strings.HasPrefix(e.Errors[0].Message, "missing: cannot run: ") {
		t.Errorf("second case: %+v", e)
	}
	props := map[string]bool{}
	for _, p := range s.Props {
		props[p.Name] = true
	}
	for _, want := range []string{"stortest.version", "go.version", "kernel",
		t.Name() + "/seq/read.iops", t.Name() + "/seq/read.clat_p99.9_ns", t.Name() + "/seq/fingerprint.job"} {
		if !props[want] {
			t.Errorf("no property %q", want)
		}
	}

	testenv.ValidateJUnit(t, path)
}

// Main prints, at the end of the test binary, every comparison that was
// not a plain pass, with its reasons: without -v, go test shows nothing
// of a passing test's log. The binary is this one, running
// TestMainSummaryHelper alone.
func TestMainSummary(t *testing.T) {
	if os.Getenv(summaryHelperEnv) == "1" {
		t.Skip("in the helper's binary")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainSummaryHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), summaryHelperEnv+"=1", "STORTEST_JUNIT=", EnvUpdate+"=", EnvStrict+"=", EnvTolerance+"=", "STORTEST_BASELINES=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
	assert.NotContains(t, stdout.String(), "inconclusive", "the test's log is hidden without -v")
	assert.Regexp(t, `(?m)^stortest: TestMainSummaryHelper/mix: inconclusive \(1 inconclusive\)\n    read iops .*: inconclusive: .*\n\z`,
		stderr.String())
}

const summaryHelperEnv = "STORTEST_SUMMARY_HELPER"

// TestMainSummaryHelper makes an inconclusive comparison, for
// TestMainSummary.
func TestMainSummaryHelper(t *testing.T) {
	if os.Getenv(summaryHelperEnv) != "1" {
		t.Skip("run by TestMainSummary")
	}
	dir := syntheticBaseline(t)
	if !CheckBaseline(t, syntheticResult(), BaselineDir(dir), Tolerances("*=off,read.iops=10%")) {
		t.Error("an inconclusive comparison failed without strict mode")
	}
}

func TestWriteComparisons(t *testing.T) {
	rep := regress.Report{Name: "seq", Verdict: regress.Improvement, Fingerprint: []baselines.Change{{Field: "firmware", Old: "1.2", New: "1.3"}},
		Findings: []regress.Finding{
			{Metric: "read.iops", Verdict: regress.Improvement, Reason: "read iops 2k IOPS vs baseline 1k IOPS (+100.0%): improvement beyond 10% tolerance"},
			{Metric: "read.bw", Verdict: regress.Pass, Reason: "read bw: within"},
		}}
	var b strings.Builder
	require.NoError(t, writeComparisons(&b, []comparison{{"TestSeq/sub", rep}}))
	assert.Equal(t, "stortest: TestSeq/sub/seq: improvement (1 improvement, 1 pass); firmware 1.2 -> 1.3\n"+
		"    read iops 2k IOPS vs baseline 1k IOPS (+100.0%): improvement beyond 10% tolerance\n", b.String())
}

// A run compared with its baseline has its verdict in the JUnit report:
// the property baseline.verdict and a paragraph of system-out with the
// reasons, inconclusive as plainly as a pass, whether the comparison came
// before the test ended or after.
func TestBaselineVerdictJUnit(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	onlyIOPS := Tolerances("*=off,read.iops=10%")
	f := newFake(t)
	var late *Result
	f.run(func(tb testing.TB) {
		r := Run(tb, File(tb, 2<<20), workload.Job{Name: "seq", RW: workload.Read, BlockSize: 64 << 10})
		b, err := baselines.FromResult(r.Result, r.fp)
		require.NoError(t, err)
		require.NoError(t, baselines.WriteFile(baselines.Path(dir, t.Name(), "seq"), b))
		CheckBaseline(tb, r, BaselineDir(dir), onlyIOPS)
		late = Run(tb, File(tb, 2<<20), workload.Job{Name: "seq", RW: workload.Read, BlockSize: 64 << 10})
	})
	f.finish()
	CheckBaseline(f, late, BaselineDir(dir), onlyIOPS) // after the test ended
	forgetComparisons(t.Name())

	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, writeJUnit(path, "stortest.dev", time.Now(), time.Second))
	testenv.ValidateJUnit(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Props []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"testsuite>properties>property"`
		Cases []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Out       string `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	props := map[string]string{}
	for _, p := range doc.Props {
		props[p.Name] = p.Value
	}
	var names []string
	for _, c := range doc.Cases {
		if c.Classname != t.Name() {
			continue
		}
		names = append(names, c.Name)
		assert.Equal(t, "inconclusive", props[t.Name()+"/"+c.Name+"/baseline.verdict"], "property of %s", c.Name)
		assert.Regexp(t, `\n\nbaseline: inconclusive: seq \(1 inconclusive\)\n  read iops .*: inconclusive: .*\n\[\[ATTACHMENT\|`, c.Out,
			"system-out of %s", c.Name)
	}
	assert.Equal(t, []string{"seq", "seq#2"}, names)
}
