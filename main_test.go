package stortest

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	f := newFake(t)
	f.run(func(tb testing.TB) {
		r := Run(tb, File(tb, 2<<20), workload.Job{Name: "seq", RW: workload.Read, BlockSize: 64 << 10})
		r.CheckIOPS(tb, 1e12)
		Run(tb, &Dev{Path: "/nonexistent/x"}, workload.Job{Name: "missing", Size: 1 << 20})
	})
	f.finish()
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

	validateJUnit(t, path)
}
