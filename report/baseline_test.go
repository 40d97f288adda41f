package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/regress"
)

// inconclusiveReport is a comparison whose IOPS passed and whose clat p99
// could not be told.
func inconclusiveReport() regress.Report {
	return regress.Report{
		Name: "mix", Verdict: regress.Inconclusive,
		Findings: []regress.Finding{
			{Metric: "read.iops", Verdict: regress.Pass, Reason: "read iops 1k IOPS vs baseline 1k IOPS (0.0%): within 10% tolerance"},
			{Metric: "read.clat.p99", Verdict: regress.Inconclusive,
				Reason: "read clat p99 310µs vs baseline 250µs (+24.0%): inconclusive: 2 per-second samples, 10 needed"},
		},
	}
}

// An inconclusive comparison is as visible in the JUnit report as a pass:
// a property with the verdict, and a line in system-out with the reason.
func TestAddBaselineJUnit(t *testing.T) {
	c, err := NewCase(Run{Test: "TestMix", Result: syntheticResult(), Baselines: []regress.Report{inconclusiveReport()}})
	if err != nil {
		t.Fatal(err)
	}
	wantText := "baseline: inconclusive: mix (1 inconclusive, 1 pass)\n" +
		"  read clat p99 310µs vs baseline 250µs (+24.0%): inconclusive: 2 per-second samples, 10 needed\n"
	if !strings.HasSuffix(c.Output, "\n\n"+wantText) {
		t.Errorf("output does not end with the comparison:\n%s", c.Output)
	}

	var buf bytes.Buffer
	if err := Write(&buf, Suite{Name: "stortest.dev/x", Cases: []Case{c}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Props []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"testsuite>properties>property"`
		Out string `xml:"testsuite>testcase>system-out"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	verdict := ""
	for _, p := range doc.Props {
		if p.Name == "TestMix/mix/baseline.verdict" {
			verdict = p.Value
		}
	}
	if verdict != "inconclusive" {
		t.Errorf("property TestMix/mix/baseline.verdict = %q, want inconclusive", verdict)
	}
	if !strings.Contains(doc.Out, wantText) {
		t.Errorf("system-out lacks %q:\n%s", wantText, doc.Out)
	}
}

// A run compared twice keeps the more severe verdict and both texts.
func TestAddBaselineTwice(t *testing.T) {
	c := Case{Classname: "TestMix", Name: "mix"}
	c.AddBaseline(inconclusiveReport())
	c.AddBaseline(regress.Report{Name: "mix", Verdict: regress.Pass,
		Findings: []regress.Finding{{Metric: "read.iops", Verdict: regress.Pass, Reason: "within"}}})
	if diff := cmp.Diff([]Property{{VerdictProperty, "inconclusive"}}, c.Properties); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
	if n := strings.Count(c.Output, "baseline: "); n != 2 {
		t.Errorf("%d comparisons in the output:\n%s", n, c.Output)
	}
	if !strings.HasPrefix(c.Output, "baseline: inconclusive: ") || !strings.Contains(c.Output, "\n\nbaseline: pass: mix (1 pass)\n") {
		t.Errorf("output:\n%s", c.Output)
	}
}
