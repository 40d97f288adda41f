package page

import (
	"html"
	"math"
	"strconv"
	"strings"

	"stortest.dev/regress"
)

// The page shell: one HTML file with its style inline, no script, no
// font or image fetched from anywhere.

// fmtProb prints an exceedance probability as a percentage: "1%", "0.01%".
func fmtProb(p float64) string {
	return strconv.FormatFloat(100*p, 'g', 3, 64) + "%"
}

// fmtChange prints a relative change with its sign as an axis labels
// it: "+21.7%", "-5%"; what is not a number to print is said in words as
// regress.FormatChange says it ("from 0"), which prints every finding's.
func fmtChange(c float64) string {
	if !finiteV(c) {
		return regress.FormatChange(c)
	}
	s := strconv.FormatFloat(100*c, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if c >= 0 {
		s = "+" + s
	}
	return s + "%"
}

// trimNum prints a tick value with up to three decimals, trailing zeros
// trimmed.
func trimNum(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func esc(s string) string { return html.EscapeString(s) }

// style is the page's CSS. The palette is Okabe and Ito's, which reads
// for every common colour-vision deficiency; a second lighter set serves
// dark mode, and print falls back to the light one on white.
const style = `
:root{--bg:#fff;--fg:#1b1b1b;--muted:#5a5a5a;--grid:#e3e3e3;--frame:#9a9a9a;
--c0:#0072B2;--c1:#D55E00;--c2:#009E73;--c3:#CC79A7;--c4:#E69F00;--c5:#56B4E9;--c6:#8a7a00;--c7:#555;
--ramp:#9a9a9a;--window:#009E73;--loss:#D55E00;--tol:#0072B2;--pass:#1a7f37;--fail:#b3261e;--warn:#8a5a00}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e6e6;--muted:#a8a8a8;--grid:#2c3036;--frame:#6b6f76;
--c0:#56B4E9;--c1:#E69F00;--c2:#2fc59a;--c3:#e09ac4;--c4:#F0E442;--c5:#9fd3f5;--c6:#d8c85a;--c7:#b0b0b0;
--ramp:#7d7d7d;--window:#2fc59a;--loss:#ff8c4a;--tol:#56B4E9;--pass:#56d37a;--fail:#ff7b72;--warn:#e3b341}}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--grid:#ddd;--frame:#888;
--c0:#0072B2;--c1:#D55E00;--c2:#009E73;--c3:#CC79A7;--c4:#E69F00;--c5:#56B4E9;--c6:#8a7a00;--c7:#555}
figure,table{break-inside:avoid}body{max-width:none}}
body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1000px;padding:0 1em}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid var(--grid)}h3{font-size:1.05em;margin:1.2em 0 .3em}
.sub,.note{color:var(--muted)}.note{font-size:.9em;margin:.2em 0}
table{border-collapse:collapse;margin:.4em 0;font-variant-numeric:tabular-nums}
th,td{padding:.15em .7em .15em 0;text-align:left;vertical-align:top;border-bottom:1px solid var(--grid)}
td.n{text-align:right}
figure.chart{margin:1em 0}figcaption{font-weight:600}
figure.chart>svg{width:100%;height:auto;display:block}
svg text{fill:var(--fg);font-size:12px}svg .axis-title{font-size:13px}
.grid line{stroke:var(--grid);stroke-width:1}.frame{fill:none;stroke:var(--frame)}
.line{fill:none;stroke-width:1.6;stroke-linejoin:round}
.c0{stroke:var(--c0)}.c1{stroke:var(--c1)}.c2{stroke:var(--c2)}.c3{stroke:var(--c3)}
.c4{stroke:var(--c4)}.c5{stroke:var(--c5)}.c6{stroke:var(--c6)}.c7{stroke:var(--c7)}
.dash{stroke-dasharray:6 3}.dot{stroke-dasharray:2 3}.faint{stroke-width:1;opacity:.35}.bold{stroke-width:2.4}
.span.ramp{fill:var(--ramp);opacity:.18}.span.window{fill:var(--window);opacity:.16}
.span.loss{fill:var(--loss);opacity:.2}.span.latwin{fill:var(--c3);opacity:.14}.span.tol{fill:var(--tol);opacity:.14}
.mark{stroke:var(--fg);stroke-dasharray:3 3}.hline{stroke:var(--muted);stroke-dasharray:2 4}.mark-label{font-size:11px}
.bar{stroke:none}.bar.c0{fill:var(--c0)}.bar.c1{fill:var(--c1)}.bar.c2{fill:var(--c2)}
.pt{stroke:none}.pt.pass{fill:var(--pass)}.pt.fail{fill:var(--fail)}.pt.inconclusive{fill:var(--warn)}.pt.improvement{fill:var(--c0)}.pt.regression{fill:var(--fail)}
.whisker{stroke:var(--fg);stroke-width:1.4}
ul.legend{list-style:none;padding:0;margin:.2em 0;display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.9em}
svg.sw{width:24px;height:10px;vertical-align:middle;margin-right:.3em}
.swatch{display:inline-block;width:18px;height:10px;margin-right:.3em;vertical-align:middle}
.swatch.ramp{background:var(--ramp);opacity:.4}.swatch.window{background:var(--window);opacity:.4}
.swatch.loss{background:var(--loss);opacity:.45}.swatch.latwin{background:var(--c3);opacity:.35}.swatch.tol{background:var(--tol);opacity:.35}
.pass{color:var(--pass)}.fail,.regression{color:var(--fail)}.inconclusive,.warn,.notjudged{color:var(--warn)}.improvement{color:var(--c0)}
.verdict{font-weight:700}.side{display:grid;grid-template-columns:1fr 1fr;gap:1em}
@media (max-width:700px){.side{grid-template-columns:1fr}}
`

// doc accumulates one page.
type doc struct {
	b strings.Builder
}

func (d *doc) begin(title, sub string) {
	d.b.Grow(64 << 10)
	d.b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	d.b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	d.b.WriteString("<meta name=\"color-scheme\" content=\"light dark\"/>\n")
	d.b.WriteString("<title>" + esc(title) + "</title>\n<style>" + style + "</style>\n</head>\n<body>\n")
	d.b.WriteString("<h1>" + esc(title) + "</h1>\n")
	if sub != "" {
		d.b.WriteString("<p class=\"sub\">" + esc(sub) + "</p>\n")
	}
}

func (d *doc) end() string {
	d.b.WriteString("<p class=\"note\">Written by stortest. Hover a line or a shaded span for its name; the tables hold the exact figures.</p>\n</body>\n</html>\n")
	return d.b.String()
}

func (d *doc) h2(id, s string) { d.b.WriteString("<h2 id=\"" + esc(id) + "\">" + esc(s) + "</h2>\n") }
func (d *doc) h3(s string)     { d.b.WriteString("<h3>" + esc(s) + "</h3>\n") }
func (d *doc) p(class, s string) {
	if class != "" {
		d.b.WriteString("<p class=\"" + class + "\">" + esc(s) + "</p>\n")
		return
	}
	d.b.WriteString("<p>" + esc(s) + "</p>\n")
}

// kv writes a two-column table of names and values.
func (d *doc) kv(rows [][2]string) {
	if len(rows) == 0 {
		return
	}
	d.b.WriteString("<table class=\"kv\"><tbody>\n")
	for _, r := range rows {
		d.b.WriteString("<tr><th scope=\"row\">" + esc(r[0]) + "</th><td>" + esc(r[1]) + "</td></tr>\n")
	}
	d.b.WriteString("</tbody></table>\n")
}

// cell is one table cell: its text, a CSS class, and whether it is a
// number (right-aligned).
type cell struct {
	text  string
	class string
	num   bool
}

// table writes a table with a header row.
func (d *doc) table(class string, head []string, rows [][]cell) {
	d.b.WriteString("<table class=\"" + class + "\"><thead><tr>")
	for _, h := range head {
		d.b.WriteString("<th scope=\"col\">" + esc(h) + "</th>")
	}
	d.b.WriteString("</tr></thead><tbody>\n")
	for _, r := range rows {
		d.b.WriteString("<tr>")
		for _, c := range r {
			cls := c.class
			if c.num {
				cls = strings.TrimSpace(cls + " n")
			}
			if cls != "" {
				d.b.WriteString("<td class=\"" + cls + "\">")
			} else {
				d.b.WriteString("<td>")
			}
			d.b.WriteString(esc(c.text) + "</td>")
		}
		d.b.WriteString("</tr>\n")
	}
	d.b.WriteString("</tbody></table>\n")
}

func (d *doc) chart(c *chart) {
	c.svg(&d.b)
	d.b.WriteString("\n")
}
