package report

import (
	"strings"

	"stortest.dev/regress"
)

// VerdictProperty names the property that holds the verdict of a run's
// comparison with its stored baseline: "pass", "improvement",
// "inconclusive" or "regression".
const VerdictProperty = "baseline.verdict"

// AddBaseline records on the case the comparison of its run with the
// run's stored baseline: the property VerdictProperty and, at the end of
// the output, BaselineText. An inconclusive comparison shows there as
// plainly as a pass does. A case compared more than once keeps the most
// severe verdict in the property and the text of every comparison.
func (c *Case) AddBaseline(rep regress.Report) {
	v := rep.Verdict
	found := false
	for i := range c.Properties {
		p := &c.Properties[i]
		if p.Name != VerdictProperty {
			continue
		}
		var old regress.Verdict
		if old.UnmarshalText([]byte(p.Value)) == nil {
			v = max(v, old)
		}
		p.Value, found = v.String(), true
	}
	if !found {
		c.Properties = append(c.Properties, Property{VerdictProperty, v.String()})
	}
	if c.Output != "" && !strings.HasSuffix(c.Output, "\n\n") {
		if !strings.HasSuffix(c.Output, "\n") {
			c.Output += "\n"
		}
		c.Output += "\n"
	}
	c.Output += BaselineText(rep)
}

// BaselineText is a comparison with a baseline as system-out shows it: a
// line "baseline: <verdict>: <job> (<counts>)..." (regress.Report.Summary
// with the verdict first), then the reason of every finding that is not
// a pass, indented:
//
//	baseline: inconclusive: randread-4k (1 inconclusive, 5 pass)
//	  read iops 19.6k IOPS vs baseline 20k IOPS (-2.0%, ...): inconclusive: ...
func BaselineText(rep regress.Report) string {
	var b strings.Builder
	summary := strings.Replace(rep.Summary(), rep.Name+": "+rep.Verdict.String(), rep.Name, 1)
	b.WriteString("baseline: " + rep.Verdict.String() + ": " + summary + "\n")
	for _, f := range rep.Findings {
		if f.Verdict != regress.Pass {
			b.WriteString("  " + f.Reason + "\n")
		}
	}
	return b.String()
}
