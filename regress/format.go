package regress

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// cells returns a finding's table row: metric, baseline, current, change,
// interval, verdict.
func (f Finding) cells() [6]string {
	change, ci := f.ChangeText()
	if ci == "" {
		ci = "-"
	}
	return [6]string{f.Metric, f.Unit.format(f.Base), f.Unit.format(f.Current), change, ci, f.Verdict.String()}
}

// FormatChange prints a relative change (a ratio less 1: 0.217) for
// people, signed with one decimal: "+21.7%", "-5.0%", "+0.0%" (not
// "-0.0%"). Every change a report prints comes through it, so that none
// prints "+Inf%" or "NaN%": a change from 0 (an infinite ratio) is said
// in words, "from 0", and one that is no number (0 against 0) "n/a".
func FormatChange(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "from 0"
	case math.IsNaN(x) || math.IsInf(x, -1):
		return "n/a"
	}
	s := strconv.FormatFloat(100*x, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

// ChangeText is a finding's change and interval as FormatChange prints
// them: "+21.7%" and "+17.9%..+25.6%". The interval is "" when there is
// none or an end is not a number to print (the change from a baseline
// of 0 has no interval to speak of).
func (f Finding) ChangeText() (change, interval string) {
	change = FormatChange(f.Ratio - 1)
	if iv := f.Interval; iv != nil && finite(iv.Low) && finite(iv.High) {
		interval = FormatChange(iv.Low-1) + ".." + FormatChange(iv.High-1)
	}
	return change, interval
}

// ciLevel is the level of the intervals in a report's table: the
// family-wise level the verdicts rest on, "99.17%" for six metrics.
func (r Report) ciLevel() string {
	for _, f := range r.Findings {
		if f.Interval != nil {
			return confidencePct(f.Confidence)
		}
	}
	return confidencePct(r.Findings[0].Confidence)
}

// WriteText writes reports as aligned tables, one per job: metric,
// baseline, current, change, interval and verdict, then the reason of
// every finding that did not pass.
func WriteText(w io.Writer, reports ...Report) error {
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %s\n", r.Name, strings.ToUpper(r.Verdict.String()))
		for _, c := range r.Fingerprint {
			fmt.Fprintf(&b, "  changed: %s\n", c)
		}
		for _, c := range r.Job {
			fmt.Fprintf(&b, "  workload changed: %s\n", c)
		}
		if len(r.Findings) == 0 {
			b.WriteString("  no metrics compared\n")
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		conf := r.ciLevel()
		fmt.Fprintf(tw, "  METRIC\tBASELINE\tCURRENT\tCHANGE\t%s CI\tVERDICT\n", conf)
		for _, f := range r.Findings {
			c := f.cells()
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", c[0], c[1], c[2], c[3], c[4], c[5])
		}
		tw.Flush()
		if lv := r.levelText(); lv != "" {
			fmt.Fprintf(&b, "  %s\n", lv)
		}
		for _, f := range r.Findings {
			if !f.Verdict.OK() {
				fmt.Fprintf(&b, "  %s\n", f.Reason)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes reports as GitHub-flavoured Markdown, for a pull
// request comment: a heading per job with its verdict, the fingerprint
// changes, a table of the findings and the reasons of those that did not
// pass.
func WriteMarkdown(w io.Writer, reports ...Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## stortest baseline diff: %s\n", strings.ToUpper(Overall(reports...).String()))
	for _, r := range reports {
		fmt.Fprintf(&b, "\n### `%s`: %s\n\n", r.Name, mdVerdict(r.Verdict))
		for _, c := range r.Fingerprint {
			fmt.Fprintf(&b, "- changed: %s\n", mdEscape(c.String()))
		}
		for _, c := range r.Job {
			fmt.Fprintf(&b, "- workload changed: %s\n", mdEscape(c.String()))
		}
		if len(r.Fingerprint)+len(r.Job) > 0 {
			b.WriteString("\n")
		}
		if len(r.Findings) == 0 {
			b.WriteString("No metrics compared.\n")
			continue
		}
		fmt.Fprintf(&b, "| metric | baseline | current | change | %s CI | verdict |\n", r.ciLevel())
		b.WriteString("|---|---:|---:|---:|---:|---|\n")
		for _, f := range r.Findings {
			c := f.cells()
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", c[0], c[1], c[2], c[3], c[4], mdVerdict(f.Verdict))
		}
		var notes []string
		if lv := r.levelText(); lv != "" {
			notes = append(notes, "- "+mdEscape(lv))
		}
		for _, f := range r.Findings {
			if !f.Verdict.OK() {
				notes = append(notes, "- "+mdEscape(f.Reason))
			}
		}
		if len(notes) > 0 {
			b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdVerdict(v Verdict) string {
	switch v {
	case Regression:
		return "**regression**"
	case Inconclusive:
		return "_inconclusive_"
	}
	return v.String()
}

// mdEscape keeps text from turning into Markdown markup.
func mdEscape(s string) string {
	r := strings.NewReplacer(`|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `&lt;`)
	return r.Replace(s)
}

// WriteJSON writes {"verdict": ..., "reports": [...]}, indented.
func WriteJSON(w io.Writer, reports ...Report) error {
	if reports == nil {
		reports = []Report{}
	}
	data, err := json.MarshalIndent(struct {
		Verdict Verdict  `json:"verdict"`
		Reports []Report `json:"reports"`
	}{Overall(reports...), reports}, "", "  ")
	if err != nil {
		return fmt.Errorf("regress: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
