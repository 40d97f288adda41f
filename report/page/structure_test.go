package page

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// figure is what a page's chart shows, read back from its markup.
type figure struct {
	id, caption string
	axisTitles  []string // x, then y
	series      []string // the <title> of each drawn line
	spans       []string // classes of shaded spans
	marks       int      // vertical marks
	paths       int
	tickLabels  []string
}

// parsedPage is a page read back as XML: every page is well-formed XML as
// well as HTML, so that its structure can be checked without an HTML
// parser.
type parsedPage struct {
	title   string
	figures map[string]*figure
	order   []string
	text    string // all character data, for tables and notes
}

var numRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// parsePage reads a page and fails the test (FailNow) on markup that is
// not well-formed, on a coordinate that is not a finite number, and on
// anything that would fetch from elsewhere.
func parsePage(t *testing.T, page string) *parsedPage {
	t.Helper()
	for _, bad := range []string{"<script", "src=", "href=\"http", "url(", "@import", "<link", "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Fatalf("page holds %q: it must be self-contained", bad)
		}
	}
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	p := &parsedPage{figures: map[string]*figure{}}
	var stack []string
	var fig *figure
	var text strings.Builder
	inTitle, inCaption := false, false
	var pathTitle *bool
	class := func(se xml.StartElement) string { return attr(se, "class") }
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			name := tk.Name.Local
			stack = append(stack, name)
			for _, a := range tk.Attr {
				switch a.Name.Local {
				case "x", "y", "x1", "x2", "y1", "y2", "width", "height":
					if !numRE.MatchString(a.Value) {
						t.Fatalf("<%s %s=%q>: not a finite number", name, a.Name.Local, a.Value)
					}
				case "d":
					checkPathData(t, a.Value)
				}
			}
			switch {
			case name == "title" && len(stack) == 3 && stack[1] == "head":
				inTitle = true
			case name == "figure":
				fig = &figure{id: attr(tk, "id")}
				if fig.id == "" {
					t.Fatalf("a figure without an id")
				}
				if _, dup := p.figures[fig.id]; dup {
					t.Fatalf("two figures with id %q", fig.id)
				}
				p.figures[fig.id] = fig
				p.order = append(p.order, fig.id)
			case fig != nil && name == "figcaption":
				inCaption = true
			case fig != nil && name == "path":
				fig.paths++
				b := false
				pathTitle = &b
			case fig != nil && name == "title" && pathTitle != nil:
				*pathTitle = true
			case fig != nil && name == "rect" && strings.HasPrefix(class(tk), "span ") && stack[len(stack)-3] == "figure":
				fig.spans = append(fig.spans, strings.TrimPrefix(class(tk), "span "))
			case fig != nil && name == "line" && strings.HasPrefix(class(tk), "mark "):
				fig.marks++
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			switch tk.Name.Local {
			case "figure":
				fig = nil
			case "figcaption":
				inCaption = false
			case "title":
				inTitle = false
			case "path":
				pathTitle = nil
			}
		case xml.CharData:
			s := string(tk)
			text.WriteString(s)
			text.WriteString(" ")
			switch {
			case inTitle:
				p.title += s
			case inCaption && fig != nil:
				fig.caption += s
			case fig != nil && pathTitle != nil && *pathTitle:
				fig.series = append(fig.series, s)
			case fig != nil && len(stack) >= 2 && stack[len(stack)-1] == "text":
				parent := stack[len(stack)-2]
				if parent == "svg" {
					fig.axisTitles = append(fig.axisTitles, s)
				} else if parent == "g" {
					fig.tickLabels = append(fig.tickLabels, s)
				}
			}
		}
	}
	p.text = text.String()
	return p
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

var pathRE = regexp.MustCompile(`^(M-?[0-9]+\.[0-9] -?[0-9]+\.[0-9]([LM]-?[0-9]+\.[0-9] -?[0-9]+\.[0-9]|H-?[0-9]+\.[0-9]V-?[0-9]+\.[0-9])*)+$`)

// checkPathData fails on path data that is not a run of finite
// coordinates: a NaN or an infinity would break the line in a browser.
func checkPathData(t *testing.T, d string) {
	t.Helper()
	if strings.Contains(d, "NaN") || strings.Contains(d, "Inf") {
		t.Fatalf("path data holds a non-finite number: %.200s", d)
	}
	if !pathRE.MatchString(d) {
		t.Fatalf("path data is not a run of coordinates: %.200s", d)
	}
}

// want checks that a figure is there with the series, axis titles
// (substrings) and spans given, continuing on failures (Errorf).
func (p *parsedPage) want(t *testing.T, id string, series []string, axes []string, spans ...string) *figure {
	t.Helper()
	f, ok := p.figures[id]
	if !ok {
		t.Errorf("no figure %q; have %v", id, p.order)
		return &figure{}
	}
	if f.caption == "" {
		t.Errorf("figure %s has no caption", id)
	}
	for _, s := range series {
		if !slices.Contains(f.series, s) {
			t.Errorf("figure %s: no series %q; have %q", id, s, f.series)
		}
	}
	if len(f.axisTitles) < 2 {
		t.Errorf("figure %s: axis titles %q, want two", id, f.axisTitles)
	}
	for _, a := range axes {
		found := false
		for _, at := range f.axisTitles {
			found = found || strings.Contains(at, a)
		}
		if !found {
			t.Errorf("figure %s: no axis titled %q; have %q", id, a, f.axisTitles)
		}
	}
	for _, s := range spans {
		if !slices.Contains(f.spans, s) {
			t.Errorf("figure %s: no %q span; have %q", id, s, f.spans)
		}
	}
	if len(f.tickLabels) < 4 {
		t.Errorf("figure %s: %d tick labels, want at least 4: %q", id, len(f.tickLabels), f.tickLabels)
	}
	return f
}

// tidyCheck validates a page with HTML Tidy: no error and no warning.
// Without tidy the test skips, and fails under CI=true.
func tidyCheck(t *testing.T, page string) {
	t.Helper()
	path, err := exec.LookPath("tidy")
	if err != nil {
		needTool(t, "tidy (Debian package tidy) is not installed: the HTML is not validated")
		return
	}
	cmd := exec.Command(path, "-q", "-e", "--show-warnings", "yes", "-utf8")
	cmd.Stdin = strings.NewReader(page)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil || out.Len() > 0 {
		t.Errorf("tidy: %v\n%s", err, out.String())
	}
}

// needTool skips the test for lack of a tool, or fails it in CI
// (CI=true, or STORTEST_REQUIRE_DEVICE=1 as .ci/run sets), where .ci/run
// installs it.
func needTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" || os.Getenv("STORTEST_REQUIRE_DEVICE") == "1" {
		t.Fatalf("%s (in CI, where .ci/run installs it)", why)
	}
	t.Skip(why)
}
