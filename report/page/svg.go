package page

import (
	"math"
	"strconv"
	"strings"

	"stortest.dev/internal/human"
)

// Charts are hand-written SVG: an axis pair, lines, shaded spans and
// marks. See doc.go for why not a plotting library.

// Chart geometry in SVG user units; the SVG scales to the page's width.
const (
	chartW      = 960 // default width; chart.w overrides it
	chartH      = 280
	marginLeft  = 78
	marginRight = 30
	marginTop   = 14
	marginBot   = 44
	plotH       = chartH - marginTop - marginBot
)

// kind says what an axis measures, which picks its tick labels and unit.
type kind int

const (
	kindTime    kind = iota // seconds
	kindCount               // IOPS, requests per second: "12k"
	kindBytes               // bytes per second, labelled in a power-of-1024 unit
	kindNS                  // latency in ns: "10µs", "2ms"
	kindMS                  // latency in ms (iostat's awaits)
	kindPercent             // 0..100
	kindPlain               // a unitless figure (aqu-sz)
	kindProb                // a probability (1 - CDF), log scale only
	kindRatio               // a ratio current/baseline, labelled as a change "+10%"
)

// axis is one axis of a chart. Min and Max are the data's range, widened
// to round ticks by fit.
type axis struct {
	label string // what is measured; the unit is added from kind
	kind  kind
	log   bool
	min   float64
	max   float64
	// div scales values for tick labels (60 for minutes, 1<<20 for
	// MiB/s), and unit names the scaled unit in the label.
	div  float64
	unit string
}

// series is one line.
type series struct {
	name  string
	class string // CSS classes: a palette colour "c0".."c7", "dash", "faint"
	xs    []float64
	ys    []float64
	step  bool // draw as steps (histograms)
}

// span is a shaded range of x (ramp, steady window, loss).
type span struct {
	from, to float64
	class    string // "ramp", "window", "loss", "tol"
	label    string
}

// mark is a vertical line at x with a label (steady state attained).
type mark struct {
	x     float64
	class string
	label string
}

// chart is one plot.
type chart struct {
	id    string // for tests and links: "iops-read"
	title string
	x, y  axis
	lines []series
	spans []span
	marks []mark
	// hlines are horizontal reference lines at y values (the exceedance
	// plot's percentiles), labelled.
	hlines []mark
	note   string // a caption under the chart
	w      int    // width in SVG units; 0 is chartW
}

// width is the chart's width, plotW its plot area's.
func (c *chart) width() int {
	if c.w > 0 {
		return c.w
	}
	return chartW
}

func (c *chart) plotW() float64 { return float64(c.width() - marginLeft - marginRight) }

// nice rounds a step up to 1, 2 or 5 times a power of ten.
func nice(step float64) float64 {
	if !(step > 0) || math.IsInf(step, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{1, 2, 5, 10} {
		if step <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// finitePos reports whether v can be drawn on a log axis.
func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func finiteV(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// fitData sets the axis range to the data of the lines (and of extra
// values), keeping a preset min or max where the caller fixed one with
// fixed.
func (a *axis) fitData(vals func(yield func(float64) bool)) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for v := range vals {
		if !finiteV(v) || a.log && v <= 0 {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > hi { // no data
		if a.log {
			lo, hi = 1, 10
		} else {
			lo, hi = 0, 1
		}
	}
	a.min, a.max = lo, hi
}

// ticks returns the tick values of the axis and widens a linear axis to
// whole steps (from 0 for counts and rates).
func (a *axis) ticks() []float64 {
	if a.log {
		lo := math.Max(math.Floor(math.Log10(a.min)), -300)
		hi := math.Min(math.Ceil(math.Log10(a.max)), 300)
		if hi <= lo {
			hi = lo + 1
		}
		a.min, a.max = math.Pow(10, lo), math.Pow(10, hi)
		var out []float64
		mults := []float64{1}
		switch {
		case hi-lo <= 1:
			mults = []float64{1, 2, 3, 5}
		case hi-lo <= 3:
			mults = []float64{1, 2, 5}
		}
		step := 1.0
		if hi-lo > 8 {
			step = math.Ceil((hi - lo) / 8)
		}
		for e := lo; e <= hi+1e-9; e += step {
			for _, m := range mults {
				v := m * math.Pow(10, e)
				if v <= a.max*(1+1e-9) {
					out = append(out, v)
				}
			}
		}
		return out
	}
	if a.kind != kindTime && a.kind != kindRatio && a.min > 0 {
		a.min = 0 // rates and counts read against zero
	}
	if a.max <= a.min {
		a.max = a.min + 1
	}
	div := a.scaleDiv()
	step := nice((a.max - a.min) / div / 5)
	if n := (a.max - a.min) / div / step; !(n <= 20) || a.min+step*div == a.min {
		// A range no float steps through (beyond float64, or steps
		// below its precision): its ends only.
		return []float64{a.min, a.max}
	}
	if a.kind == kindTime {
		// Time keeps its exact range (a run ends when it ends); the
		// ticks fall inside it.
		var out []float64
		for v := math.Ceil(a.min/div/step) * step; v <= a.max/div+step*1e-9; v += step {
			out = append(out, v*div)
		}
		return out
	}
	lo := math.Floor(a.min/div/step) * step
	hi := math.Ceil(a.max/div/step) * step
	if hi <= lo {
		hi = lo + step
	}
	a.min, a.max = lo*div, hi*div
	var out []float64
	for v := lo; v <= hi+step*1e-9; v += step {
		out = append(out, v*div)
	}
	return out
}

func (a *axis) scaleDiv() float64 {
	if a.div > 0 {
		return a.div
	}
	return 1
}

// pick chooses the unit of a time or byte-rate axis from its range.
func (a *axis) pick() {
	switch a.kind {
	case kindTime:
		a.div, a.unit = 1, "s"
		if a.max >= 600 {
			a.div, a.unit = 60, "min"
		}
	case kindBytes:
		a.div, a.unit = 1, "B/s"
		for i, u := range []string{"KiB/s", "MiB/s", "GiB/s", "TiB/s"} {
			if a.max >= math.Pow(1024, float64(i+1)) {
				a.div, a.unit = math.Pow(1024, float64(i+1)), u
			}
		}
	case kindMS:
		a.unit = "ms"
	case kindPercent:
		a.unit = "%"
	case kindCount:
		if a.unit == "" {
			a.unit = "IOPS"
		}
	}
}

// title is the axis label with its unit: "bandwidth (MiB/s)".
func (a *axis) title() string {
	switch {
	case a.kind == kindNS && a.log:
		return a.label + " (log scale)"
	case a.kind == kindProb:
		return a.label + " (log scale)"
	case a.unit != "":
		return a.label + " (" + a.unit + ")"
	}
	return a.label
}

// tickLabel prints a tick value.
func (a *axis) tickLabel(v float64) string {
	switch a.kind {
	case kindNS:
		return human.Latency(v)
	case kindCount:
		if a.log {
			return human.Count(v)
		}
		return human.Count(v)
	case kindProb:
		return fmtProb(v)
	case kindRatio:
		return fmtChange(v - 1)
	}
	if a.log {
		return strconv.FormatFloat(v/a.scaleDiv(), 'g', 3, 64)
	}
	return trimNum(v / a.scaleDiv())
}

// pos maps a value to its coordinate along [0, length]; ok is false for
// a value that cannot be drawn (NaN, or not positive on a log axis).
func (a *axis) pos(v, length float64) (float64, bool) {
	if !finiteV(v) {
		return 0, false
	}
	if a.log {
		if v <= 0 {
			return 0, false
		}
		lo, hi := math.Log10(a.min), math.Log10(a.max)
		return (math.Log10(v) - lo) / (hi - lo) * length, true
	}
	return (v - a.min) / (a.max - a.min) * length, true
}

// xy maps a data point to SVG coordinates, clamped to the plot area so
// that an outlier cannot push a path off the page.
func (c *chart) xy(x, y float64) (float64, float64, bool) {
	pw := c.plotW()
	px, ok1 := c.x.pos(x, pw)
	py, ok2 := c.y.pos(y, plotH)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	px = math.Max(-2, math.Min(pw+2, px))
	py = math.Max(-2, math.Min(plotH+2, py))
	return marginLeft + px, marginTop + plotH - py, true
}

// fit sets both axes' ranges from the lines, spans and marks.
func (c *chart) fit() {
	if c.x.max == 0 && c.x.min == 0 {
		c.x.fitData(func(yield func(float64) bool) {
			if !c.points(func(s *series) []float64 { return s.xs }, yield) {
				return
			}
			for _, s := range c.spans {
				yield(s.from)
				yield(s.to)
			}
		})
	}
	if c.y.max == 0 && c.y.min == 0 {
		c.y.fitData(func(yield func(float64) bool) {
			c.points(func(s *series) []float64 { return s.ys }, yield)
		})
	}
	c.x.pick()
	c.y.pick()
}

// points yields the values of(s) of every line s, its xs or its ys, and
// reports whether yield took them all.
func (c *chart) points(of func(*series) []float64, yield func(float64) bool) bool {
	for i := range c.lines {
		for _, v := range of(&c.lines[i]) {
			if !yield(v) {
				return false
			}
		}
	}
	return true
}

// decimate keeps, of many more points than pixel columns, the first,
// lowest, highest and last point of each column, in order: the line
// looks the same and no spike is lost, at a size bounded by the
// chart's width.
func decimate(xs, ys []float64, x0, x1 float64, cols int) ([]float64, []float64) {
	if len(xs) <= 4*cols || !(x1 > x0) {
		return xs, ys
	}
	ox := make([]float64, 0, 4*cols)
	oy := make([]float64, 0, 4*cols)
	col := -1
	var first, lo, hi, last int
	flush := func() {
		if col < 0 {
			return
		}
		idx := []int{first, lo, hi, last}
		// keep x order, drop repeats
		for i := 1; i < len(idx); i++ {
			for j := i; j > 0 && idx[j] < idx[j-1]; j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
		}
		prev := -1
		for _, k := range idx {
			if k != prev {
				ox, oy = append(ox, xs[k]), append(oy, ys[k])
				prev = k
			}
		}
	}
	for i, x := range xs {
		c := int((x - x0) / (x1 - x0) * float64(cols))
		if c != col || !finiteV(ys[i]) {
			flush()
			col, first, lo, hi, last = c, i, i, i, i
			if !finiteV(ys[i]) { // a gap stays a gap
				ox, oy = append(ox, x), append(oy, ys[i])
				col = -1
			}
			continue
		}
		if ys[i] < ys[lo] {
			lo = i
		}
		if ys[i] > ys[hi] {
			hi = i
		}
		last = i
	}
	flush()
	return ox, oy
}

// svg writes the chart as an <svg> inside a <figure> with an HTML legend.
func (c *chart) svg(b *strings.Builder) {
	c.fit()
	pw := c.plotW()
	xt := c.x.ticks()
	yt := c.y.ticks()
	b.WriteString(`<figure class="chart" id="` + esc(c.id) + `">`)
	b.WriteString(`<figcaption>` + esc(c.title) + `</figcaption>`)
	b.WriteString(`<svg viewBox="0 0 ` + itoa(c.width()) + ` ` + itoa(chartH) + `" role="img" aria-label="` + esc(c.title) + `">`)
	b.WriteString(`<title>` + esc(c.title) + `</title>`)
	// Shaded spans first, under everything.
	for _, s := range c.spans {
		x0, ok0 := c.x.pos(s.from, pw)
		x1, ok1 := c.x.pos(s.to, pw)
		if !ok0 || !ok1 {
			continue
		}
		x0, x1 = math.Max(0, x0), math.Min(pw, x1)
		if x1 <= x0 {
			continue
		}
		b.WriteString(`<rect class="span ` + s.class + `" x="` + f1(marginLeft+x0) + `" y="` + itoa(marginTop) +
			`" width="` + f1(x1-x0) + `" height="` + itoa(plotH) + `"><title>` + esc(s.label) + `</title></rect>`)
	}
	// Grid and ticks.
	b.WriteString(`<g class="grid">`)
	for _, v := range yt {
		p, ok := c.y.pos(v, plotH)
		if !ok {
			continue
		}
		y := f1(marginTop + plotH - p)
		b.WriteString(`<line x1="` + itoa(marginLeft) + `" x2="` + f1(marginLeft+pw) + `" y1="` + y + `" y2="` + y + `"/>`)
	}
	for _, v := range xt {
		p, ok := c.x.pos(v, pw)
		if !ok {
			continue
		}
		x := f1(marginLeft + p)
		b.WriteString(`<line x1="` + x + `" x2="` + x + `" y1="` + itoa(marginTop) + `" y2="` + itoa(marginTop+plotH) + `"/>`)
	}
	b.WriteString(`</g><g class="ticks">`)
	for _, v := range yt {
		p, ok := c.y.pos(v, plotH)
		if !ok {
			continue
		}
		b.WriteString(`<text x="` + itoa(marginLeft-6) + `" y="` + f1(marginTop+plotH-p+4) + `" text-anchor="end">` + esc(c.y.tickLabel(v)) + `</text>`)
	}
	for _, v := range xt {
		p, ok := c.x.pos(v, pw)
		if !ok {
			continue
		}
		b.WriteString(`<text x="` + f1(marginLeft+p) + `" y="` + itoa(marginTop+plotH+16) + `" text-anchor="middle">` + esc(c.x.tickLabel(v)) + `</text>`)
	}
	b.WriteString(`</g>`)
	b.WriteString(`<text class="axis-title" x="` + f1(marginLeft+pw/2) + `" y="` + itoa(chartH-6) + `" text-anchor="middle">` + esc(c.x.title()) + `</text>`)
	b.WriteString(`<text class="axis-title" transform="translate(14 ` + itoa(marginTop+plotH/2) + `) rotate(-90)" text-anchor="middle">` + esc(c.y.title()) + `</text>`)
	b.WriteString(`<rect class="frame" x="` + itoa(marginLeft) + `" y="` + itoa(marginTop) + `" width="` + f1(pw) + `" height="` + itoa(plotH) + `"/>`)
	for _, h := range c.hlines {
		p, ok := c.y.pos(h.x, plotH)
		if !ok || p < 0 || p > plotH {
			continue
		}
		y := f1(marginTop + plotH - p)
		b.WriteString(`<line class="hline ` + h.class + `" x1="` + itoa(marginLeft) + `" x2="` + f1(marginLeft+pw) + `" y1="` + y + `" y2="` + y + `"/>`)
		b.WriteString(`<text class="mark-label" x="` + f1(marginLeft+pw-4) + `" y="` + f1(marginTop+plotH-p-3) + `" text-anchor="end">` + esc(h.label) + `</text>`)
	}
	// Lines: faint ones first so the bold ones sit on top.
	for pass := 0; pass < 2; pass++ {
		for _, s := range c.lines {
			if strings.Contains(s.class, "faint") != (pass == 0) {
				continue
			}
			c.path(b, s)
		}
	}
	for _, m := range c.marks {
		p, ok := c.x.pos(m.x, pw)
		if !ok || p < 0 || p > pw {
			continue
		}
		x := f1(marginLeft + p)
		b.WriteString(`<line class="mark ` + m.class + `" x1="` + x + `" x2="` + x + `" y1="` + itoa(marginTop) + `" y2="` + itoa(marginTop+plotH) + `"/>`)
		if p > pw-90 { // near the right edge: the label goes left of the line
			b.WriteString(`<text class="mark-label" x="` + f1(marginLeft+p-4) + `" y="` + itoa(marginTop+12) + `" text-anchor="end">` + esc(m.label) + `</text>`)
		} else {
			b.WriteString(`<text class="mark-label" x="` + f1(marginLeft+p+4) + `" y="` + itoa(marginTop+12) + `">` + esc(m.label) + `</text>`)
		}
	}
	b.WriteString(`</svg>`)
	c.legend(b)
	if c.note != "" {
		b.WriteString(`<p class="note">` + esc(c.note) + `</p>`)
	}
	b.WriteString(`</figure>`)
}

// path writes one series as a <path>, broken where a value cannot be
// drawn, so that no NaN ever reaches the SVG.
func (c *chart) path(b *strings.Builder, s series) {
	xs, ys := decimate(s.xs, s.ys, c.x.min, c.x.max, int(c.plotW()))
	buf := make([]byte, 0, 16*len(xs)+64)
	buf = append(buf, `<path class="line `...)
	buf = append(buf, s.class...)
	buf = append(buf, `" d="`...)
	pen := false
	var lastY float64
	n := 0
	for i := range xs {
		x, y, ok := c.xy(xs[i], ys[i])
		if !ok {
			pen = false
			continue
		}
		switch {
		case !pen:
			buf = append(buf, 'M')
		case s.step:
			buf = append(buf, 'H')
			buf = strconv.AppendFloat(buf, x, 'f', 1, 64)
			buf = append(buf, 'V')
			buf = strconv.AppendFloat(buf, y, 'f', 1, 64)
			lastY = y
			n++
			continue
		default:
			buf = append(buf, 'L')
		}
		buf = strconv.AppendFloat(buf, x, 'f', 1, 64)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, y, 'f', 1, 64)
		pen, lastY = true, y
		n++
	}
	_ = lastY
	if n == 0 {
		return // nothing drawable: no empty path
	}
	buf = append(buf, `"><title>`...)
	buf = append(buf, esc(s.name)...)
	buf = append(buf, `</title></path>`...)
	b.Write(buf)
}

// legend lists the series (faint ones once, as a group) and the spans.
func (c *chart) legend(b *strings.Builder) {
	b.WriteString(`<ul class="legend">`)
	faint := false
	for _, s := range c.lines {
		if strings.Contains(s.class, "faint") {
			if !faint {
				faint = true
				b.WriteString(`<li><svg class="sw" viewBox="0 0 24 10" aria-hidden="true"><line class="line faint c7" x1="0" y1="5" x2="24" y2="5"/></svg>one per input</li>`)
			}
			continue
		}
		b.WriteString(`<li><svg class="sw" viewBox="0 0 24 10" aria-hidden="true"><line class="line ` + s.class + `" x1="0" y1="5" x2="24" y2="5"/></svg>` + esc(s.name) + `</li>`)
	}
	seen := map[string]bool{}
	for _, s := range c.spans {
		if seen[s.class] {
			continue
		}
		seen[s.class] = true
		b.WriteString(`<li><svg class="sw" viewBox="0 0 24 10" aria-hidden="true"><rect class="span ` + s.class + `" width="24" height="10"/></svg>` + esc(spanName(s)) + `</li>`)
	}
	b.WriteString(`</ul>`)
}

// spanName is a span's legend entry: its kind, not one instance's label.
func spanName(s span) string {
	switch s.class {
	case "ramp":
		return "ramp (not judged)"
	case "window":
		return "steady-state window"
	case "loss":
		return "steady state lost"
	case "latwin":
		return "latency window"
	}
	return s.label
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func itoa(n int) string { return strconv.Itoa(n) }
