package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"stortest.dev/regress"
)

// Line is one change for people:
//
//	read.clat.p99 at run 40 (2026-11-02T10:00:00Z): 412µs -> 496µs (+20.4%, 95% CI +17.9%..+22.9%, p 3e-21): regression; firmware 1.0 -> 1.1
func (c Change) Line(m MetricReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at run %d (%s): %s -> %s (%s, %s CI %s..%s, p %s)", m.Metric, c.Run,
		c.Created.Format("2006-01-02T15:04:05Z07:00"), m.Unit.Format(c.Before), m.Unit.Format(c.After),
		pct(c.Ratio), confPct(c.Confidence), pct(c.Interval.Low), pct(c.Interval.High), pValue(c.P))
	if m.Judged {
		b.WriteString(": " + c.Verdict.String())
	}
	if s := c.what(); s != "" {
		b.WriteString("; " + s)
	}
	return b.String()
}

// what says what changed at the change point: "firmware 1.0 -> 1.1",
// "kernel 6.1 -> 6.6 at run 41", "iodepth 32 -> 16"; "" for nothing.
func (c Change) what() string {
	var parts []string
	for _, ch := range c.Fingerprint {
		parts = append(parts, ch.String())
	}
	s := strings.Join(parts, ", ")
	if s != "" && c.AtRun != 0 {
		s += " at run " + strconv.Itoa(c.AtRun)
	}
	var job []string
	for _, ch := range c.Job {
		job = append(job, ch.String())
	}
	if len(job) > 0 {
		if s != "" {
			s += "; "
		}
		s += "workload: " + strings.Join(job, ", ")
	}
	return s
}

// pct prints a ratio as a signed percentage: "+20.4%", "-3.1%", or in
// words what is none ("from 0"), as every report does.
func pct(r float64) string { return regress.FormatChange(r - 1) }

func confPct(c float64) string { return strconv.FormatFloat(c*100, 'f', -1, 64) + "%" }

// pValue prints a p-value with two significant digits: "0.00043", "3e-21".
func pValue(p float64) string {
	if p == 0 {
		return "< 1e-300"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// latest says what the latest segment is, for the summary line.
func (m MetricReport) latest() string {
	if len(m.Changes) == 0 {
		return fmt.Sprintf("%s: no change in %d runs (%s)", m.Metric, m.Runs, m.Unit.Format(m.Current))
	}
	c := m.Changes[len(m.Changes)-1]
	s := fmt.Sprintf("%s: %s since run %d (%s -> %s, %s)", m.Metric, pct(c.Ratio), c.Run,
		m.Unit.Format(c.Before), m.Unit.Format(c.After), verdictOf(m, c))
	if w := c.what(); w != "" {
		s += "; " + w
	}
	return s
}

func verdictOf(m MetricReport, c Change) string {
	if !m.Judged {
		return "not judged"
	}
	if c.Verdict == regress.Pass {
		return "within " + c.tolerance(m)
	}
	return c.Verdict.String()
}

func (c Change) tolerance(m MetricReport) string {
	s := strconv.FormatFloat(m.Tolerance.Fraction*100, 'f', -1, 64) + "%"
	if m.Tolerance.Floor > 0 {
		s += " or " + m.Unit.Format(m.Tolerance.Floor)
	}
	return s + " tolerance"
}

// WriteText writes the report as aligned text: per series, a line per
// change point, then the latest segment of each metric that changed.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, s := range r.Series {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %d runs, %s to %s\n", s.name(), s.Runs, stamp(s.First), stamp(s.Last))
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		n := 0
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				if n == 0 {
					fmt.Fprintf(tw, "  METRIC\tRUN\tTIME\tBEFORE\tAFTER\tCHANGE\t%s CI\tP\tVERDICT\tWHAT CHANGED\n", confPct(c.Confidence))
				}
				n++
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s..%s\t%s\t%s\t%s\n", m.Metric, c.Run, stamp(c.Created),
					m.Unit.Format(c.Before), m.Unit.Format(c.After), pct(c.Ratio), pct(c.Interval.Low), pct(c.Interval.High),
					pValue(c.P), verdictOf(m, c), dash(c.what()))
			}
		}
		tw.Flush()
		if n == 0 {
			fmt.Fprintf(&b, "  no change point in %d metrics\n", len(s.Metrics))
		}
		for _, m := range s.Metrics {
			if m.TooFew {
				fmt.Fprintf(&b, "  %s: %d runs: too few to search (%d per segment)\n", m.Metric, m.Runs, m.MinRuns)
				break
			}
		}
		for _, m := range s.Metrics {
			if m.Latest == regress.Regression {
				fmt.Fprintf(&b, "  LATEST SEGMENT REGRESSED: %s\n", m.latest())
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report for a pull-request comment or a job
// summary: per series a table of change points and the latest segments
// that regressed.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	switch v := r.Verdict(); v {
	case regress.Regression:
		fmt.Fprintf(&b, "### :x: History: the latest segment regressed (%s)\n\n", strings.Join(r.Regressions(), ", "))
	default:
		b.WriteString("### History: no regression in the latest segment\n\n")
	}
	for _, s := range r.Series {
		fmt.Fprintf(&b, "#### `%s`\n\n%d runs, %s to %s.\n\n", s.name(), s.Runs, stamp(s.First), stamp(s.Last))
		n := 0
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				if n == 0 {
					fmt.Fprintf(&b, "| metric | run | time | before | after | change | %s CI | p | verdict | what changed |\n", confPct(c.Confidence))
					b.WriteString("|---|---:|---|---:|---:|---:|---|---:|---|---|\n")
				}
				n++
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s..%s | %s | %s | %s |\n", m.Metric, c.Run, stamp(c.Created),
					m.Unit.Format(c.Before), m.Unit.Format(c.After), pct(c.Ratio), pct(c.Interval.Low), pct(c.Interval.High),
					pValue(c.P), mdVerdict(m, c), mdEscape(dash(c.what())))
			}
		}
		if n == 0 {
			fmt.Fprintf(&b, "No change point in %d metrics.\n", len(s.Metrics))
		}
		for _, m := range s.Metrics {
			if m.Latest == regress.Regression {
				fmt.Fprintf(&b, "\n**Latest segment regressed:** %s\n", mdEscape(m.latest()))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdVerdict(m MetricReport, c Change) string {
	v := verdictOf(m, c)
	if m.Judged && c.Verdict == regress.Regression {
		return "**" + v + "**"
	}
	return v
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func stamp(t interface{ Format(string) string }) string { return t.Format("2006-01-02T15:04:05Z07:00") }

// WriteJSON writes the report as one indented JSON object, with the
// overall verdict ("verdict": "regression" when a latest segment
// regressed).
func (r Report) WriteJSON(w io.Writer) error {
	out := struct {
		Verdict regress.Verdict `json:"verdict"`
		Report
	}{r.Verdict(), r}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
