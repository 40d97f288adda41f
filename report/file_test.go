package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// suiteNames reads the suites of a JUnit file and returns their names.
func suiteNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	suites, err := readSuites(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range suites {
		names = append(names, s.name)
	}
	return names
}

// dirEntries lists dir, to see that nothing but the report is left.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func oneCase(pkg, test string, failed bool) Suite {
	c := Case{Classname: test, Name: "job", Time: time.Second}
	if failed {
		c.Failures = []Failure{{Message: "job: slow", Type: "limit"}}
	}
	return Suite{Name: pkg, Cases: []Case{c}}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, sampleSuite()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"junit.xml"}, dirEntries(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	var want bytes.Buffer
	if err := Write(&want, sampleSuite()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file differs from Write's output")
	}

	// A failed write leaves the old file and no temporary file.
	bad := sampleSuite()
	bad.Name = ""
	if err := WriteFile(path, bad); err == nil {
		t.Fatal("WriteFile wrote an invalid suite")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "junit.xml"), sampleSuite()); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
	if got2, _ := os.ReadFile(path); !bytes.Equal(got2, got) {
		t.Errorf("a failed WriteFile changed the file")
	}
	if diff := cmp.Diff([]string{"junit.xml"}, dirEntries(t, dir)); diff != "" {
		t.Errorf("directory after failures (-want +got):\n%s", diff)
	}
}

func TestMergeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	steps := []struct {
		suite Suite
		want  []string
	}{
		{oneCase("pkg/a", "TestA", false), []string{"pkg/a"}},
		{oneCase("pkg/b", "TestB", true), []string{"pkg/a", "pkg/b"}},
		// A rerun of pkg/a replaces its suite in place.
		{oneCase("pkg/a", "TestA2", true), []string{"pkg/a", "pkg/b"}},
	}
	for i, st := range steps {
		if err := MergeFile(path, st.suite); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(st.want, suiteNames(t, path)); diff != "" {
			t.Errorf("step %d: suites (-want +got):\n%s", i, diff)
		}
	}
	data, _ := os.ReadFile(path)
	doc := string(data)
	if strings.Contains(doc, "TestA\"") || !strings.Contains(doc, `classname="TestA2"`) {
		t.Errorf("pkg/a was not replaced:\n%s", doc)
	}
	if !strings.Contains(doc, `<testsuites tests="2" failures="2" errors="0" time="2.000">`) {
		t.Errorf("totals not summed over the kept and new suites:\n%s", doc)
	}
	if diff := cmp.Diff([]string{"junit.xml"}, dirEntries(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

// TestMergeFileKeepsOthers keeps a suite written by another tool byte
// for byte, and adds to a file whose root is a lone <testsuite>.
func TestMergeFileKeepsOthers(t *testing.T) {
	for _, tc := range []struct{ name, existing string }{
		{"testsuites", `<?xml version="1.0"?>
<testsuites>
  <testsuite name="other" tests="2" failures="1" errors="1" time="1,001.5"><testcase name="x"><custom a="1"/></testcase></testsuite>
</testsuites>`},
		{"lone testsuite", `<testsuite name="other" tests="2" failures="1" errors="1" time="1,001.5"><testcase name="x"><custom a="1"/></testcase></testsuite>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(path, []byte(tc.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := MergeFile(path, oneCase("mine", "TestM", false)); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			doc := string(data)
			kept := `<testsuite name="other" tests="2" failures="1" errors="1" time="1,001.5"><testcase name="x"><custom a="1"/></testcase></testsuite>`
			if !strings.Contains(doc, kept) {
				t.Errorf("the other suite was not kept as it was:\n%s", doc)
			}
			if !strings.Contains(doc, `<testsuites tests="3" failures="1" errors="1" time="1002.500">`) {
				t.Errorf("totals:\n%s", doc)
			}
		})
	}
}

func TestMergeFileRefusesMalformed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	const junk = "this is not XML\n"
	if err := os.WriteFile(path, []byte(junk), 0o644); err != nil {
		t.Fatal(err)
	}
	err := MergeFile(path, oneCase("p", "T", false))
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("MergeFile = %v, want ErrMalformed", err)
	}
	if data, _ := os.ReadFile(path); string(data) != junk {
		t.Errorf("a malformed file was changed to %q", data)
	}
}

// TestMergeFileConcurrent merges from many goroutines at once, as the
// test binaries of "go test ./..." do: the directory lock keeps every
// suite.
func TestMergeFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = MergeFile(path, oneCase(fmt.Sprintf("pkg/%02d", i), "T", false))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	names := suiteNames(t, path)
	if len(names) != n {
		t.Errorf("%d suites after %d concurrent merges: %v", len(names), n, names)
	}
	if diff := cmp.Diff([]string{"junit.xml"}, dirEntries(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

func TestReadSuites(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []rawSuite // xml left out of the comparison
		err       string
	}{
		{"empty", "", nil, ""},
		{"blank", " \n\t", nil, ""},
		{"no suites", "<testsuites/>", nil, ""},
		{"two suites", `<testsuites><testsuite name="a" tests="1" failures="0" errors="0" time="0.5"/>` +
			`<testsuite name="b" tests="3" failures="1" errors="2"><testcase name="c"/></testsuite></testsuites>`,
			[]rawSuite{{name: "a", tests: 1, time: 500 * time.Millisecond}, {name: "b", tests: 3, failures: 1, errs: 2}}, ""},
		{"nested suites kept inside their parent", `<testsuites><testsuite name="a"><testsuite name="inner"/></testsuite></testsuites>`,
			[]rawSuite{{name: "a"}}, ""},
		{"wrong root", "<html/>", nil, "junk.xml:1: malformed JUnit file: root element <html>"},
		{"syntax error", "<testsuites>\n<testsuite name='a'>\n</testsuites>", nil, "junk.xml:3: malformed JUnit file"},
		{"bad count", "<testsuites>\n\n<testsuite name='a' tests='many'/></testsuites>", nil,
			`junk.xml:3: malformed JUnit file: testsuite "a": attribute tests="many": not a whole number`},
		{"negative count", "<testsuite name='a' failures='-1'/>", nil, `attribute failures="-1": negative`},
		{"bad time", "<testsuite name='a' time='NaN'/>", nil, `attribute time="NaN": not a number of seconds`},
		{"text only", "just text", nil, "junk.xml:1: malformed JUnit file: no elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readSuites(strings.NewReader(tc.doc), "junk.xml")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !bytes.HasPrefix(got[i].xml, []byte("<testsuite")) || !bytes.HasSuffix(got[i].xml, []byte(">")) {
					t.Errorf("suite %d: raw element %q", i, got[i].xml)
				}
				got[i].xml = nil
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(rawSuite{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadSuites: any input either fails with ErrMalformed or yields
// suites that, written out again, read back to the same suites.
func FuzzReadSuites(f *testing.F) {
	var b bytes.Buffer
	if err := Write(&b, sampleSuite()); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add(`<testsuite name="x" tests="1,000" time="1,234.5"/>`)
	f.Add(`<testsuites><testsuite name="a"><testsuite name="b"/></testsuite></testsuites>`)
	f.Add("<testsuites><!-- c --><?pi x?><testsuite name='&amp;'/></testsuites>")
	f.Add("")
	f.Fuzz(func(t *testing.T, doc string) {
		suites, err := readSuites(strings.NewReader(doc), "fuzz.xml")
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error not ErrMalformed: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := writeDoc(&out, suites); err != nil {
			t.Fatal(err)
		}
		again, err := readSuites(&out, "again.xml")
		if err != nil {
			t.Fatalf("written suites do not read back: %v\n%s", err, out.String())
		}
		if len(again) != len(suites) {
			t.Fatalf("%d suites, %d after writing", len(suites), len(again))
		}
		for i := range suites {
			if suites[i].name != again[i].name || suites[i].tests != again[i].tests || !bytes.Equal(suites[i].xml, again[i].xml) {
				t.Fatalf("suite %d changed: %+v -> %+v", i, suites[i], again[i])
			}
		}
	})
}
