package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"stortest.dev/internal/durable"
)

// ErrMalformed is wrapped by the errors of reading a JUnit file that is
// not one: MergeFile leaves such a file alone rather than replace it.
var ErrMalformed = errors.New("malformed JUnit file")

// WriteFile writes suites to path atomically: into a temporary file in
// the same directory, synced, then renamed over path, so neither a
// reader nor a crash ever sees half a report.
func WriteFile(path string, suites ...Suite) error {
	var b bytes.Buffer
	if err := Write(&b, suites...); err != nil {
		return err
	}
	return writeAtomic(path, b.Bytes())
}

// MergeFile puts s into the JUnit file at path, replacing a suite of the
// same name and keeping the others as they are: "go test ./..." runs one
// test binary per package, at the same time, and each adds its own suite
// to the one file. An exclusive flock(2) on path's directory serializes
// the binaries' read-modify-write; the write is atomic (see WriteFile).
// A file that exists but is not JUnit XML is left alone and reported
// (ErrMalformed).
func MergeFile(path string, s Suite) error {
	if err := s.Validate(); err != nil {
		return err
	}
	unlock, err := durable.LockDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer unlock()
	var suites []rawSuite
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		suites, err = readSuites(bytes.NewReader(data), path)
		if err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("report: %w", err)
	}
	enc := encodeSuite(&s)
	replaced := false
	for i := range suites {
		if suites[i].name == s.Name {
			suites[i] = enc
			replaced = true
		}
	}
	if !replaced {
		suites = append(suites, enc)
	}
	var b bytes.Buffer
	if err := writeDoc(&b, suites); err != nil {
		return err
	}
	return writeAtomic(path, b.Bytes())
}

// writeAtomic writes data to path through a synced temporary file and a
// rename (durable.WriteBytes): a full or failing disk leaves the file as
// it was and no temporary file, and the error names path.
func writeAtomic(path string, data []byte) error {
	if err := durable.WriteBytes(path, 0o644, data); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// maxFileBytes bounds the JUnit file MergeFile reads: reports with many
// long system-out sections run to megabytes, not gigabytes.
const maxFileBytes = 256 << 20

// readSuites splits a JUnit document into its <testsuite> elements, kept
// byte for byte, with the counts <testsuites> sums. The root is
// <testsuites> or a lone <testsuite>; an empty (or blank) file has no
// suites. Errors name the file and line and wrap ErrMalformed.
func readSuites(r io.Reader, name string) ([]rawSuite, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", name, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("report: %s: %w: larger than %d bytes", name, ErrMalformed, maxFileBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	bad := func(off int64, format string, args ...any) error {
		return fmt.Errorf("report: %s:%d: %w: %s", name, lineOf(data, off), ErrMalformed, fmt.Sprintf(format, args...))
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	var (
		suites     []rawSuite
		root       string
		depth      int
		suiteDepth int // depth of the <testsuite> being read; 0 outside one
		start      int64
		cur        rawSuite
	)
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("report: %s:%d: %w: %s", name, se.Line, ErrMalformed, se.Msg)
			}
			return nil, bad(off, "%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				root = t.Name.Local
				if root != "testsuites" && root != "testsuite" {
					return nil, bad(off, "root element <%s>, want <testsuites> or <testsuite>", root)
				}
			}
			isSuite := t.Name.Local == "testsuite" &&
				(depth == 1 || depth == 2 && root == "testsuites")
			if !isSuite {
				continue
			}
			cur, err = suiteAttrs(t)
			if err != nil {
				return nil, bad(off, "%v", err)
			}
			suiteDepth, start = depth, off
		case xml.EndElement:
			if depth == suiteDepth {
				cur.xml = bytes.TrimSpace(data[start:d.InputOffset()])
				suites = append(suites, cur)
				suiteDepth = 0
			}
			depth--
		}
	}
	if root == "" {
		return nil, bad(0, "no elements")
	}
	return suites, nil
}

// suiteAttrs reads the attributes <testsuites> sums.
func suiteAttrs(t xml.StartElement) (rawSuite, error) {
	var s rawSuite
	for _, a := range t.Attr {
		var err error
		switch a.Name.Local {
		case "name":
			s.name = a.Value
		case "tests":
			s.tests, err = count(a.Value)
		case "failures":
			s.failures, err = count(a.Value)
		case "errors":
			s.errs, err = count(a.Value)
		case "time":
			// Surefire writes thousands separators: 1,234.567.
			var sec float64
			sec, perr := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(a.Value), ",", ""), 64)
			if perr != nil || !(sec >= 0 && sec < 1e9) {
				err = errors.New("not a number of seconds below 1e9")
			}
			s.time = time.Duration(sec * float64(time.Second))
		}
		if err != nil {
			return rawSuite{}, fmt.Errorf("testsuite %q: attribute %s=%q: %v", s.name, a.Name.Local, a.Value, err)
		}
	}
	return s, nil
}

func count(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, errors.New("not a whole number")
	case n < 0:
		return 0, errors.New("negative")
	}
	return n, nil
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
