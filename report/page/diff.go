package page

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/regress"
)

// Diff is one comparison of a run (Current) with its baseline (Base): the
// page of `stortest baseline diff --format html` and of the gate's
// artifact.
type Diff struct {
	// Name heads the comparison's section ("" takes the report's).
	Name          string
	Base, Current *baselines.Baseline
	Report        regress.Report
	// BaseLabel and CurrentLabel name the two sides in legends
	// ("baseline" and "this run" when empty).
	BaseLabel, CurrentLabel string
}

func (d *Diff) labels() (string, string) {
	b, c := d.BaseLabel, d.CurrentLabel
	if b == "" {
		b = "baseline"
	}
	if c == "" {
		c = "this run"
	}
	return b, c
}

// WriteDiff writes the page of one or more comparisons.
func WriteDiff(w io.Writer, title string, diffs ...*Diff) error {
	_, err := io.WriteString(w, RenderDiff(title, diffs...))
	return err
}

// RenderDiff returns the page of one or more comparisons: per comparison
// its verdict, a forest plot of every metric's change with its interval
// and tolerance band, the two latency distributions overlaid, and the
// per-second series of both runs side by side.
func RenderDiff(title string, diffs ...*Diff) string {
	var d doc
	var reports []regress.Report
	for _, x := range diffs {
		reports = append(reports, x.Report)
	}
	overall := regress.Overall(reports...)
	d.begin(title, fmt.Sprintf("%d comparison(s): %s", len(diffs), overall))
	if len(diffs) > 1 {
		var rows [][]cell
		for i, x := range diffs {
			rows = append(rows, []cell{{text: strconv.Itoa(i + 1)}, {text: x.name()},
				{text: x.Report.Verdict.String(), class: "verdict " + x.Report.Verdict.String()}})
		}
		d.table("overview", []string{"#", "comparison", "verdict"}, rows)
	}
	for i, x := range diffs {
		d.diff(i, x)
	}
	return d.end()
}

func (x *Diff) name() string {
	if x.Name != "" {
		return x.Name
	}
	return x.Report.Name
}

func (d *doc) diff(i int, x *Diff) {
	id := "cmp" + strconv.Itoa(i)
	rep := x.Report
	bl, cl := x.labels()
	d.h2(id, x.name())
	d.b.WriteString("<p class=\"verdict " + rep.Verdict.String() + "\">" + esc(rep.Verdict.String()) + ": " + esc(rep.Summary()) + "</p>\n")
	for _, ch := range rep.Fingerprint {
		d.p("note", "fingerprint changed: "+ch.String())
	}
	for _, ch := range rep.Job {
		d.p("warn", "job changed: "+ch.String()+" (the runs may not be like with like)")
	}
	if len(rep.Findings) > 0 {
		d.forest(id+"-forest", rep.Findings)
		d.findings(rep.Findings)
	}
	if x.Base == nil || x.Current == nil {
		return
	}
	for _, cd := range x.Current.Dirs {
		bd := x.Base.Dir(cd.Name)
		if bd == nil || bd.Clat == nil || cd.Clat == nil || bd.Clat.Hist == nil || cd.Clat.Hist == nil {
			continue
		}
		ds := []dist{
			{name: bl, class: "c7 dash", bins: bd.Clat.Hist.Bins},
			{name: cl, class: dirClass[cd.Name], bins: cd.Clat.Hist.Bins},
		}
		d.chart(histChart(id+"-hist-"+cd.Name, cd.Name+" completion latency distribution, "+bl+" and "+cl, ds))
		d.chart(exceedanceChart(id+"-exceed-"+cd.Name, cd.Name+" completion latency exceedance (1 − CDF), "+bl+" and "+cl, ds))
	}
	d.sideBySide(id, x)
}

// forestRowH is the height of one metric's row in the forest plot.
const forestRowH = 24

// forestTicks are the ratios the forest plot's axis may label.
var forestTicks = []float64{0.05, 0.1, 0.2, 0.33, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20}

// toleranceBand is the range of ratios current/base within f's
// tolerance: |x-y| <= max(fraction*min(|x|,|y|), floor), so a ratio r is
// within it when r <= 1+t and r >= 1/(1+t), t the larger of the fraction
// and the floor relative to the base.
func toleranceBand(f regress.Finding) (lo, hi float64, ok bool) {
	t := f.Tolerance.Fraction
	if f.Base > 0 && f.Tolerance.Floor > 0 {
		t = math.Max(t, f.Tolerance.Floor/f.Base)
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, 0, false
	}
	return 1 / (1 + t), 1 + t, true
}

// forest draws each metric's change as a point (the ratio) with its
// interval as whiskers over its tolerance band, on a log axis of the
// ratio labelled as a change, 0% marked.
func (d *doc) forest(id string, fs []regress.Finding) {
	const labelW, verdictW = 190, 110
	w := chartW
	pw := float64(w - labelW - verdictW)
	h := marginTop + forestRowH*len(fs) + marginBot
	lo, hi := 1.0, 1.0
	widen := func(v float64) {
		if finitePos(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, f := range fs {
		widen(f.Ratio)
		if f.Interval != nil {
			widen(f.Interval.Low)
			widen(f.Interval.High)
		}
		if a, b, ok := toleranceBand(f); ok {
			widen(a)
			widen(b)
		}
	}
	lo, hi = math.Max(lo/1.05, 0.05), math.Min(hi*1.05, 20)
	pos := func(v float64) (float64, bool) {
		if !finitePos(v) {
			return 0, false
		}
		v = math.Max(lo, math.Min(hi, v))
		return labelW + (math.Log(v)-math.Log(lo))/(math.Log(hi)-math.Log(lo))*pw, true
	}
	title := "Change of each metric against the baseline, with its interval; shaded: the tolerance"
	b := &d.b
	b.WriteString(`<figure class="chart forest" id="` + esc(id) + `"><figcaption>` + esc(title) + `</figcaption>`)
	b.WriteString(`<svg viewBox="0 0 ` + itoa(w) + ` ` + itoa(h) + `" role="img" aria-label="` + esc(title) + `"><title>` + esc(title) + `</title>`)
	top, bottom := float64(marginTop), float64(marginTop+forestRowH*len(fs))
	b.WriteString(`<g class="grid">`)
	for _, t := range forestTicks {
		if t < lo || t > hi {
			continue
		}
		x, _ := pos(t)
		b.WriteString(`<line x1="` + f1(x) + `" x2="` + f1(x) + `" y1="` + f1(top) + `" y2="` + f1(bottom) + `"/>`)
	}
	b.WriteString(`</g><g class="ticks">`)
	// 0% first, then the others where they leave room for "+100%".
	var placed []float64
	for _, t := range append([]float64{1}, forestTicks...) {
		x, _ := pos(t)
		if t < lo || t > hi || slices.ContainsFunc(placed, func(p float64) bool { return math.Abs(p-x) < 52 }) {
			continue
		}
		placed = append(placed, x)
		label := fmtChange(t - 1)
		if t == 1 {
			label = "0%"
		}
		b.WriteString(`<text x="` + f1(x) + `" y="` + f1(bottom+16) + `" text-anchor="middle">` + esc(label) + `</text>`)
	}
	b.WriteString(`</g>`)
	for i, f := range fs {
		y := top + float64(i)*forestRowH + forestRowH/2
		if a, bb, ok := toleranceBand(f); ok {
			x0, _ := pos(a)
			x1, _ := pos(bb)
			b.WriteString(`<rect class="span tol" x="` + f1(x0) + `" y="` + f1(y-forestRowH/2+2) + `" width="` + f1(x1-x0) + `" height="` + itoa(forestRowH-4) +
				`"><title>` + esc(f.Metric+" tolerance "+tolText(f.Tolerance, f.Unit)) + `</title></rect>`)
		}
		arrow := "↓"
		if f.Better == regress.HigherIsBetter {
			arrow = "↑"
		}
		b.WriteString(`<text x="` + itoa(labelW-8) + `" y="` + f1(y+4) + `" text-anchor="end">` + esc(f.Metric+" "+arrow) + `</text>`)
		if f.Interval != nil {
			x0, ok0 := pos(f.Interval.Low)
			x1, ok1 := pos(f.Interval.High)
			if ok0 && ok1 {
				b.WriteString(`<line class="whisker" x1="` + f1(x0) + `" x2="` + f1(x1) + `" y1="` + f1(y) + `" y2="` + f1(y) + `"/>`)
				for _, x := range []float64{x0, x1} {
					b.WriteString(`<line class="whisker" x1="` + f1(x) + `" x2="` + f1(x) + `" y1="` + f1(y-5) + `" y2="` + f1(y+5) + `"/>`)
				}
			}
		}
		if x, ok := pos(f.Ratio); ok {
			b.WriteString(`<circle class="pt ` + f.Verdict.String() + `" cx="` + f1(x) + `" cy="` + f1(y) + `" r="5"><title>` + esc(f.Reason) + `</title></circle>`)
		}
		b.WriteString(`<text class="` + f.Verdict.String() + `" x="` + itoa(w-verdictW+8) + `" y="` + f1(y+4) + `">` + esc(f.Verdict.String()) + `</text>`)
	}
	x1, _ := pos(1)
	b.WriteString(`<line class="mark" x1="` + f1(x1) + `" x2="` + f1(x1) + `" y1="` + f1(top) + `" y2="` + f1(bottom) + `"/>`)
	b.WriteString(`<rect class="frame" x="` + itoa(labelW) + `" y="` + f1(top) + `" width="` + f1(pw) + `" height="` + f1(bottom-top) + `"/>`)
	b.WriteString(`<text class="axis-title" x="` + f1(labelW+pw/2) + `" y="` + itoa(h-6) + `" text-anchor="middle">change against the baseline (%, log scale of the ratio)</text>`)
	b.WriteString(`</svg>`)
	b.WriteString(`<ul class="legend"><li><svg class="sw" viewBox="0 0 24 10" aria-hidden="true"><rect class="span tol" width="24" height="10"/></svg>tolerance</li>` +
		`<li><svg class="sw" viewBox="0 0 24 10" aria-hidden="true"><line class="whisker" x1="0" y1="5" x2="24" y2="5"/></svg>interval</li>` +
		`<li>↑ higher is better, ↓ lower is better</li></ul>`)
	b.WriteString("</figure>\n")
}

// tolText prints a finding's tolerance, its floor in the metric's unit:
// "10% (floor 1µs)", "10% (floor 4KiB/s)".
func tolText(t regress.Tolerance, u regress.Unit) string {
	s := strconv.FormatFloat(100*t.Fraction, 'g', 3, 64) + "%"
	if t.Floor > 0 {
		s += " (floor " + u.Format(t.Floor) + ")"
	}
	return s
}

// findings is the table of the forest plot's figures.
func (d *doc) findings(fs []regress.Finding) {
	var rows [][]cell
	for _, f := range fs {
		change, iv := f.ChangeText()
		rows = append(rows, []cell{{text: f.Metric}, {text: f.Unit.Format(f.Base), num: true}, {text: f.Unit.Format(f.Current), num: true},
			{text: change, num: true}, {text: iv, num: true}, {text: tolText(f.Tolerance, f.Unit)},
			{text: f.Verdict.String(), class: "verdict " + f.Verdict.String()}, {text: f.Reason}})
	}
	d.b.WriteString("<details><summary>Figures of each metric</summary>\n")
	d.table("findings", []string{"metric", "baseline", "current", "change", "interval", "tolerance", "verdict", "reason"}, rows)
	d.b.WriteString("</details>\n")
}

// sideBySide draws the per-second IOPS and clat p99 of both runs next
// to each other on the same axes.
func (d *doc) sideBySide(id string, x *Diff) {
	bl, cl := x.labels()
	if len(x.Base.Seconds) == 0 && len(x.Current.Seconds) == 0 {
		return
	}
	end := math.Max(x.Base.Runtime.Seconds(), x.Current.Runtime.Seconds())
	type pane struct {
		label string
		b     *baselines.Baseline
	}
	panes := []pane{{bl, x.Base}, {cl, x.Current}}
	for _, m := range []struct {
		key, what string
		y         axis
		get       func(s *baselines.Second, sd *baselines.SecondDir) float64
		log       bool
	}{
		{"iops", "IOPS per second", axis{label: "throughput", kind: kindCount, unit: "IOPS"},
			func(s *baselines.Second, sd *baselines.SecondDir) float64 { return rate(sd.IOs, s.Dur) }, false},
		{"p99", "clat p99 per second", axis{label: "clat p99", kind: kindNS, log: true},
			func(_ *baselines.Second, sd *baselines.SecondDir) float64 {
				if sd.ClatP99 == 0 {
					return math.NaN()
				}
				return float64(sd.ClatP99)
			}, true},
	} {
		charts := make([]*chart, len(panes))
		for i, p := range panes {
			c := &chart{id: id + "-" + m.key + "-" + strconv.Itoa(i), title: m.what + ": " + p.label, w: 480, y: m.y,
				x: axis{label: "time", kind: kindTime, min: 0, max: end}}
			for _, dir := range p.b.Dirs {
				xs, ys := perSecond(p.b, dirIndex(dir.Name), m.get)
				c.lines = append(c.lines, series{name: dir.Name, class: dirClass[dir.Name], xs: xs, ys: ys, step: true})
			}
			charts[i] = c
		}
		// One y range for both, so that heights compare.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range charts {
			c.fit()
			lo, hi = math.Min(lo, c.y.min), math.Max(hi, c.y.max)
		}
		d.b.WriteString("<div class=\"side\">\n")
		for _, c := range charts {
			if finiteV(lo) && finiteV(hi) {
				c.y.min, c.y.max = lo, hi
			}
			d.chart(c)
		}
		d.b.WriteString("</div>\n")
	}
	if x.Base.Runtime > 0 && x.Current.Runtime > 0 && x.Base.Runtime != x.Current.Runtime {
		d.p("note", fmt.Sprintf("%s measured %v, %s %v.", bl, x.Base.Runtime.Round(time.Millisecond), cl, x.Current.Runtime.Round(time.Millisecond)))
	}
}
