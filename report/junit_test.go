package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

// update is the shared -update flag: rewrite the golden files.
var update = testenv.Update

// sampleSuite exercises every element: properties at both levels,
// failures with and without detail, an error, a skip, attachments, and
// text that needs escaping (markup, a terminal escape, invalid UTF-8).
func sampleSuite() Suite {
	return Suite{
		Name:       "stortest.dev/examples/randread",
		Hostname:   "ci-runner-7",
		Timestamp:  time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
		Properties: []Property{{"kernel", "6.18.0"}, {"go", "go1.26.8"}},
		Cases: []Case{
			{
				Classname:  "TestRandRead4K",
				Name:       "randread-4k",
				Time:       1234567891 * time.Nanosecond,
				Properties: []Property{{"read.iops", "41873"}, {"read.clat_p99.9_ns", "2411520"}},
				Output:     "randread-4k: read: IOPS=41.9k\n  clat <a & b>\x1b[0m\xff\n",
				Attachments: []string{
					"/ci/out/TestRandRead4K/randread-4k.fio.json",
					"/ci/out/TestRandRead4K/randread-4k.iostat.json",
				},
				Failures: []Failure{
					{Message: "randread-4k: clat p99.9 read 2.41ms > limit 2ms", Type: "limit"},
					{Message: `randread-4k: iops read 41873 < floor 50000 "quoted"`, Type: "limit",
						Detail: "line one\n\tline two"},
				},
			},
			{
				Classname: "TestRandRead4K",
				Name:      "randread-64k",
				Time:      500 * time.Millisecond,
				Errors:    []Failure{{Message: "randread-64k: io_uring: operation not permitted", Type: "run"}},
			},
			{
				Classname: "TestWrite",
				Name:      "seqwrite",
				Skipped:   "needs root",
			},
		},
	}
}

func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sampleSuite()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "suite.golden.xml")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run: go test ./report -run TestWriteGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("Write (-want +got):\n%s\nIf the change is intended: go test ./report -run TestWriteGolden -update", diff)
	}
}

// TestWriteParses reads the document back with encoding/xml and checks
// what consumers rely on: counts, properties only at suite level, text
// round trips, invalid characters replaced, attachment lines.
func TestWriteParses(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sampleSuite()); err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	type fail struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type tcase struct {
		Classname string     `xml:"classname,attr"`
		Name      string     `xml:"name,attr"`
		Time      string     `xml:"time,attr"`
		Props     []prop     `xml:"properties>property"`
		Failures  []fail     `xml:"failure"`
		Errors    []fail     `xml:"error"`
		Skipped   *fail      `xml:"skipped"`
		Out       string     `xml:"system-out"`
		Unknown   []xml.Attr `xml:",any,attr"`
	}
	var doc struct {
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Time     string `xml:"time,attr"`
		Suites   []struct {
			Name     string  `xml:"name,attr"`
			Tests    int     `xml:"tests,attr"`
			Failures int     `xml:"failures,attr"`
			Errors   int     `xml:"errors,attr"`
			Skipped  int     `xml:"skipped,attr"`
			Time     string  `xml:"time,attr"`
			Stamp    string  `xml:"timestamp,attr"`
			Props    []prop  `xml:"properties>property"`
			Cases    []tcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 || doc.Time != "1.735" {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d time=%s, want 3 1 1 1.735", doc.Tests, doc.Failures, doc.Errors, doc.Time)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Errors != 1 || s.Skipped != 1 || s.Stamp != "2026-03-04T05:06:07Z" {
		t.Errorf("testsuite counts %+v", s)
	}
	wantProps := []prop{
		{"kernel", "6.18.0"}, {"go", "go1.26.8"},
		{"TestRandRead4K/randread-4k/read.iops", "41873"},
		{"TestRandRead4K/randread-4k/read.clat_p99.9_ns", "2411520"},
	}
	if diff := cmp.Diff(wantProps, s.Props); diff != "" {
		t.Errorf("suite properties (-want +got):\n%s", diff)
	}
	c := s.Cases[0]
	if len(c.Props) != 0 {
		t.Errorf("testcase has properties %v: junit-10.xsd forbids them", c.Props)
	}
	if c.Time != "1.235" {
		t.Errorf("time %q, want 1.235 (three decimals, rounded)", c.Time)
	}
	wantFail := []fail{
		{Message: "randread-4k: clat p99.9 read 2.41ms > limit 2ms", Type: "limit"},
		{Message: `randread-4k: iops read 41873 < floor 50000 "quoted"`, Type: "limit", Text: "line one\n\tline two"},
	}
	if diff := cmp.Diff(wantFail, c.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	wantOut := "randread-4k: read: IOPS=41.9k\n  clat <a & b>\uFFFD[0m\uFFFD\n" +
		"[[ATTACHMENT|/ci/out/TestRandRead4K/randread-4k.fio.json]]\n" +
		"[[ATTACHMENT|/ci/out/TestRandRead4K/randread-4k.iostat.json]]\n"
	if diff := cmp.Diff(wantOut, c.Out); diff != "" {
		t.Errorf("system-out (-want +got):\n%s", diff)
	}
	if len(s.Cases[1].Errors) != 1 || s.Cases[2].Skipped == nil || s.Cases[2].Skipped.Message != "needs root" {
		t.Errorf("error and skip cases: %+v %+v", s.Cases[1], s.Cases[2])
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*Suite)
		want   string // in the error; "" for valid
	}{
		{"sample", func(*Suite) {}, ""},
		{"no suite name", func(s *Suite) { s.Name = "" }, "no name"},
		{"no case name", func(s *Suite) { s.Cases[0].Name = "" }, "both are needed"},
		{"relative attachment", func(s *Suite) { s.Cases[0].Attachments = []string{"out/x.json"} }, "absolute path"},
		{"attachment with line break", func(s *Suite) { s.Cases[0].Attachments = []string{"/a\n/b"} }, "line breaks"},
		{"same base name in one class", func(s *Suite) {
			s.Cases[1].Attachments = []string{"/other/dir/randread-4k.fio.json"}
		}, `share the base name "randread-4k.fio.json"`},
		{"same base name in two classes", func(s *Suite) {
			s.Cases[2].Attachments = []string{"/other/dir/randread-4k.fio.json"}
		}, ""},
		{"duplicate suite property", func(s *Suite) { s.Properties = append(s.Properties, Property{"go", "x"}) }, `property "go" twice`},
		{"duplicate case property", func(s *Suite) {
			s.Cases[0].Properties = append(s.Cases[0].Properties, Property{"read.iops", "1"})
		}, `property "TestRandRead4K/randread-4k/read.iops" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sampleSuite()
			tc.modify(&s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate = %v, want ErrInvalid containing %q", err, tc.want)
			}
			if err := Write(&bytes.Buffer{}, s); err == nil {
				t.Errorf("Write accepted an invalid suite")
			}
		})
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		name, in     string
		attr, text   string
		roundTripped string // what a parser reads back from the text form
	}{
		{"plain", "abc", "abc", "abc", "abc"},
		{"markup", `<a href="x">&</a>`, "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;", `&lt;a href="x"&gt;&amp;&lt;/a&gt;`, `<a href="x">&</a>`},
		{"white space", "a\tb\nc\rd", "a&#x9;b&#xA;c&#xD;d", "a\tb\nc&#xD;d", "a\tb\nc\rd"},
		{"C0 controls", "\x00\x01\x1b", "\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
		{"non-characters", "\uFFFE\uFFFF", "\uFFFD\uFFFD", "\uFFFD\uFFFD", "\uFFFD\uFFFD"},
		{"astral", "µs 𝄞", "µs 𝄞", "µs 𝄞", "µs 𝄞"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, x bytes.Buffer
			escape(&a, tc.in, true)
			escape(&x, tc.in, false)
			if a.String() != tc.attr || x.String() != tc.text {
				t.Errorf("escape(%q) = attr %q, text %q; want %q, %q", tc.in, a.String(), x.String(), tc.attr, tc.text)
			}
			var v struct {
				A string `xml:"a,attr"`
				T string `xml:",chardata"`
			}
			doc := `<x a="` + a.String() + `">` + x.String() + `</x>`
			if err := xml.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			if v.A != tc.roundTripped || v.T != tc.roundTripped {
				t.Errorf("parsed back attr %q, text %q; want %q", v.A, v.T, tc.roundTripped)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0.000"},
		{-time.Second, "0.000"},
		{1499 * time.Microsecond, "0.001"},
		{1500 * time.Microsecond, "0.002"},
		{61234567 * time.Microsecond, "61.235"},
		{90 * time.Minute, "5400.000"},
	} {
		if got := seconds(tc.d); got != tc.want {
			t.Errorf("seconds(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestSchema validates reports against Jenkins' junit-10.xsd with
// xmllint: the written suite, a merged file and an empty report.
func TestSchema(t *testing.T) {
	xsd := testenv.JUnitSchema(t)
	dir := t.TempDir()
	check := func(name string, write func(path string) error) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := write(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		testenv.ValidateJUnit(t, path)
	}
	check("suite.xml", func(p string) error { return WriteFile(p, sampleSuite()) })
	check("empty.xml", func(p string) error { return WriteFile(p) })
	check("merged.xml", func(p string) error {
		a, b := sampleSuite(), sampleSuite()
		b.Name = "stortest.dev/examples/other"
		b.Timestamp, b.Hostname = time.Time{}, ""
		if err := MergeFile(p, a); err != nil {
			return err
		}
		return MergeFile(p, b)
	})
	// A time with more than three decimals is what the schema rejects:
	// check that xmllint really does validate times.
	bad := filepath.Join(dir, "bad.xml")
	doc := `<testsuites><testsuite name="x" tests="0" failures="0" errors="0" time="0.1234"/></testsuites>`
	if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("xmllint", "--noout", "--schema", xsd, bad).CombinedOutput(); err == nil {
		t.Errorf("xmllint accepted time=0.1234; the schema check checks nothing:\n%s", out)
	}
}
