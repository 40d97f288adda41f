package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrInvalid is wrapped by the errors of Suite.Validate: a report that
// CI systems would misread.
var ErrInvalid = errors.New("report: invalid report")

// Failure is one failed check of a workload run: a limit breach, a
// regression against a baseline, steady state not attained, I/O errors.
// Each becomes one <failure> (or <error>) element.
type Failure struct {
	// Message is one line, e.g. "randread-4k: clat p99.9 read 2.41ms >
	// limit 2ms". CI systems show it as the failure's title.
	Message string
	// Type classifies the failure ("limit", "regression", "steady",
	// "io-errors", "verify", "test"); Jenkins and GitLab show it as is.
	Type string
	// Detail is the element's text: the explanation over several lines.
	Detail string
}

// Property is one name and value of a <property> element.
type Property struct {
	Name, Value string
}

// Case is one workload run: one <testcase>.
type Case struct {
	// Classname is the Go test's name ("TestRandRead4K", or
	// "TestMatrix/qd32" for a subtest); Name is the workload job's.
	Classname, Name string
	// Time is how long the run took (wall clock).
	Time time.Duration
	// Properties are the run's metrics and fingerprint. Jenkins' schema
	// has no properties inside a testcase, so they are written at the
	// suite level as "<Classname>/<Name>/<property name>".
	Properties []Property
	// Output is the text of <system-out> before the attachment lines:
	// the run's summary and iostat table.
	Output string
	// Attachments are absolute paths of the run's artifacts, written as
	// [[ATTACHMENT|path]] lines at the end of <system-out>. Jenkins keeps
	// one attachment per base name and class, so base names must differ
	// among the cases of one Classname.
	Attachments []string
	// Failures are checks that failed; Errors are failures to run at all
	// (the job could not start or stopped on a fault of its own).
	Failures, Errors []Failure
	// Skipped, when not empty, marks the case skipped for this reason.
	Skipped string
}

// Suite is one Go package's workload runs: one <testsuite>.
type Suite struct {
	// Name is the Go package's import path.
	Name      string
	Hostname  string
	Timestamp time.Time // when the package's tests started
	// Time is the package's wall time; 0 means the sum of the cases'.
	Time       time.Duration
	Properties []Property // suite-wide: host, kernel, versions
	Cases      []Case
}

// counts returns the testcase counts JUnit's attributes hold: failed
// cases (not failure elements), erroring cases, skipped cases.
func (s *Suite) counts() (tests, failures, errs, skipped int) {
	for _, c := range s.Cases {
		switch {
		case len(c.Errors) > 0:
			errs++
		case len(c.Failures) > 0:
			failures++
		case c.Skipped != "":
			skipped++
		}
	}
	return len(s.Cases), failures, errs, skipped
}

func (s *Suite) time() time.Duration {
	if s.Time > 0 {
		return s.Time
	}
	var t time.Duration
	for _, c := range s.Cases {
		t += c.Time
	}
	return t
}

// Validate checks what CI systems depend on: names present, attachment
// paths absolute and on no more than one line, attachment base names
// unique within each class (Jenkins de-duplicates by base name per
// class), property names unique. Errors wrap ErrInvalid.
func (s *Suite) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: suite %q: %s", ErrInvalid, s.Name, fmt.Sprintf(format, args...))
	}
	if s.Name == "" {
		return bad("no name")
	}
	bases := map[string]map[string]string{} // classname -> base name -> path
	props := map[string]bool{}
	for _, p := range s.Properties {
		if props[p.Name] {
			return bad("property %q twice", p.Name)
		}
		props[p.Name] = true
	}
	for i, c := range s.Cases {
		if c.Classname == "" || c.Name == "" {
			return bad("case %d: classname %q, name %q: both are needed", i, c.Classname, c.Name)
		}
		if bases[c.Classname] == nil {
			bases[c.Classname] = map[string]string{}
		}
		for _, a := range c.Attachments {
			if !filepath.IsAbs(a) || strings.ContainsAny(a, "\r\n|]") {
				return bad("case %s/%s: attachment %q: want an absolute path without line breaks, '|' or ']'", c.Classname, c.Name, a)
			}
			b := filepath.Base(a)
			if prev, ok := bases[c.Classname][b]; ok {
				return bad("case %s/%s: attachments %s and %s share the base name %q, and Jenkins keeps only one per class",
					c.Classname, c.Name, prev, a, b)
			}
			bases[c.Classname][b] = a
		}
		for _, p := range c.Properties {
			n := caseProperty(c, p.Name)
			if props[n] {
				return bad("property %q twice", n)
			}
			props[n] = true
		}
	}
	return nil
}

// caseProperty is the suite-level name of a case's property.
func caseProperty(c Case, name string) string { return c.Classname + "/" + c.Name + "/" + name }

// Write writes suites as one JUnit XML document (<testsuites>) that
// Jenkins' junit-10.xsd accepts: times with three decimals, the errors
// attribute always present, properties only at the suite level.
func Write(w io.Writer, suites ...Suite) error {
	for i := range suites {
		if err := suites[i].Validate(); err != nil {
			return err
		}
	}
	raws := make([]rawSuite, 0, len(suites))
	for i := range suites {
		raws = append(raws, encodeSuite(&suites[i]))
	}
	return writeDoc(w, raws)
}

// rawSuite is one encoded <testsuite> with the figures the enclosing
// <testsuites> sums.
type rawSuite struct {
	name                  string
	tests, failures, errs int
	time                  time.Duration
	xml                   []byte // the element, without surrounding white space
}

func writeDoc(w io.Writer, suites []rawSuite) error {
	var b bytes.Buffer
	var tests, failures, errs int
	var total time.Duration
	for _, s := range suites {
		tests += s.tests
		failures += s.failures
		errs += s.errs
		total += s.time
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<testsuites tests="%d" failures="%d" errors="%d" time="%s">`+"\n", tests, failures, errs, seconds(total))
	for _, s := range suites {
		b.WriteByte('\t')
		b.Write(s.xml)
		b.WriteByte('\n')
	}
	b.WriteString("</testsuites>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("report: write JUnit: %w", err)
	}
	return nil
}

func encodeSuite(s *Suite) rawSuite {
	tests, failures, errs, skipped := s.counts()
	var b bytes.Buffer
	b.WriteString("<testsuite")
	attr(&b, "name", s.Name)
	attr(&b, "tests", strconv.Itoa(tests))
	attr(&b, "failures", strconv.Itoa(failures))
	attr(&b, "errors", strconv.Itoa(errs))
	attr(&b, "skipped", strconv.Itoa(skipped))
	attr(&b, "time", seconds(s.time()))
	if !s.Timestamp.IsZero() {
		attr(&b, "timestamp", s.Timestamp.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if s.Hostname != "" {
		attr(&b, "hostname", s.Hostname)
	}
	b.WriteString(">\n")
	var props []Property
	props = append(props, s.Properties...)
	for _, c := range s.Cases {
		for _, p := range c.Properties {
			props = append(props, Property{caseProperty(c, p.Name), p.Value})
		}
	}
	if len(props) > 0 {
		b.WriteString("\t\t<properties>\n")
		for _, p := range props {
			b.WriteString("\t\t\t<property")
			attr(&b, "name", p.Name)
			attr(&b, "value", p.Value)
			b.WriteString("/>\n")
		}
		b.WriteString("\t\t</properties>\n")
	}
	for i := range s.Cases {
		encodeCase(&b, &s.Cases[i])
	}
	b.WriteString("\t</testsuite>")
	return rawSuite{name: s.Name, tests: tests, failures: failures, errs: errs, time: s.time(), xml: b.Bytes()}
}

func encodeCase(b *bytes.Buffer, c *Case) {
	b.WriteString("\t\t<testcase")
	attr(b, "classname", c.Classname)
	attr(b, "name", c.Name)
	attr(b, "time", seconds(c.Time))
	b.WriteString(">\n")
	for _, f := range c.Errors {
		failure(b, "error", f)
	}
	for _, f := range c.Failures {
		failure(b, "failure", f)
	}
	if c.Skipped != "" {
		b.WriteString("\t\t\t<skipped")
		attr(b, "message", c.Skipped)
		b.WriteString("/>\n")
	}
	out := SystemOut(c.Output, c.Attachments)
	if out != "" {
		b.WriteString("\t\t\t<system-out>")
		text(b, out)
		b.WriteString("</system-out>\n")
	}
	b.WriteString("\t\t</testcase>\n")
}

func failure(b *bytes.Buffer, elem string, f Failure) {
	b.WriteString("\t\t\t<" + elem)
	attr(b, "message", f.Message)
	if f.Type != "" {
		attr(b, "type", f.Type)
	}
	if f.Detail == "" {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">")
	text(b, f.Detail)
	b.WriteString("</" + elem + ">\n")
}

// SystemOut is the text of a case's <system-out>: output, then one
// [[ATTACHMENT|path]] line per attachment, each on a line of its own as
// Jenkins' junit-attachments plugin reads them.
func SystemOut(output string, attachments []string) string {
	var b strings.Builder
	b.WriteString(output)
	if len(attachments) > 0 && output != "" && !strings.HasSuffix(output, "\n") {
		b.WriteByte('\n')
	}
	for _, a := range attachments {
		b.WriteString("[[ATTACHMENT|" + a + "]]\n")
	}
	return b.String()
}

// seconds formats d in seconds with three decimals, the most Jenkins'
// schema allows.
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

func attr(b *bytes.Buffer, name, value string) {
	b.WriteString(" " + name + `="`)
	escape(b, value, true)
	b.WriteByte('"')
}

func text(b *bytes.Buffer, s string) { escape(b, s, false) }

// escape writes s as XML 1.0 character data or an attribute value.
// Characters XML 1.0 cannot hold (most C0 controls, lone surrogates,
// U+FFFE, U+FFFF) and invalid UTF-8 become U+FFFD, so a stray escape
// sequence in a job's output never makes the report unreadable. In
// attributes, tab and line breaks are written as references so parsers
// keep them; in text they stay literal, for people reading the file.
func escape(b *bytes.Buffer, s string, inAttr bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && inAttr:
			b.WriteString("&quot;")
		case r == '\r':
			b.WriteString("&#xD;")
		case (r == '\n' || r == '\t') && inAttr:
			fmt.Fprintf(b, "&#x%X;", r)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case !xmlChar(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
}

// xmlChar reports whether XML 1.0's Char production admits r.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
