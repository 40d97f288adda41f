package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWarningJUnit renders a run's warnings: a "warning.<kind>" property
// of its testcase (at the suite level, as every case property) and a
// "warning: ..." line at the top of its system-out, without failing it.
func TestWarningJUnit(t *testing.T) {
	c, err := NewCase(Run{
		Test: "TestMix", Result: syntheticResult(),
		Warnings: []Warning{
			{Kind: "page-cache", Message: "buffered reads of 16MiB, but loop7 read 0B (0% of it)"},
			{Kind: "short-run", Message: "measured for\n300ms, under 1s"}, // a line break stays out of the output
			{Kind: "page-cache", Message: "said twice"},                   // one property per kind
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "warning: buffered reads of 16MiB, but loop7 read 0B (0% of it)\n" +
		"warning: measured for 300ms, under 1s\n" +
		"warning: said twice\n" +
		"\n" +
		"mix: (clone=0,"
	if !strings.HasPrefix(c.Output, wantOut) {
		t.Errorf("output does not start with the warnings, then the summary:\n%s", c.Output)
	}

	var b bytes.Buffer
	if err := Write(&b, Suite{Name: "p", Cases: []Case{c}}); err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Props []prop `xml:"properties>property"`
			Cases []struct {
				Failures []struct{} `xml:"failure"`
				Out      string     `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Failures != 0 || doc.Errors != 0 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 ||
		len(doc.Suites[0].Cases[0].Failures) != 0 {
		t.Fatalf("warnings failed the case, or the document is not one case:\n%s", b.String())
	}
	var got []prop
	for _, p := range doc.Suites[0].Props {
		if strings.Contains(p.Name, "/warning.") {
			got = append(got, p)
		}
	}
	want := []prop{
		{"TestMix/mix/warning.page-cache", "buffered reads of 16MiB, but loop7 read 0B (0% of it); said twice"},
		{"TestMix/mix/warning.short-run", "measured for 300ms, under 1s"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warning properties (-want +got):\n%s", diff)
	}
	if out := doc.Suites[0].Cases[0].Out; !strings.HasPrefix(out, wantOut) {
		t.Errorf("system-out does not start with the warnings:\n%s", out)
	}

	// Without warnings the case is as before: no property, no line.
	plain, err := NewCase(Run{Test: "TestMix", Result: syntheticResult()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plain.Properties {
		if strings.HasPrefix(p.Name, "warning.") {
			t.Errorf("property %s without warnings", p.Name)
		}
	}
	if strings.Contains(plain.Output, "warning:") {
		t.Errorf("output without warnings has a warning line:\n%s", plain.Output)
	}
}
