package fio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Job files, as fio 3.33 reads them (HOWTO.rst, "Job file format", and
// observed behaviour): one option a line, in [name] sections; [global]
// (any section whose name starts with "global") holds defaults for the
// jobs after it. ';' and '#' start a comment anywhere on a line, leading
// and trailing blanks are ignored. An option line is key=value or a bare
// key; ${NAME} on it is replaced by the environment variable NAME, empty
// when NAME is unset (fio's messages then quote the line as written). "include FILE" in a section reads FILE's lines as
// options of that section; FILE may hold no section headers.

// MaxLineLength bounds one job-file line, in bytes (fio's own limit is
// 8 KiB; a longer line is an error here rather than cut).
const MaxLineLength = 1 << 20

// maxIncludeDepth bounds nested includes. A file that includes itself,
// directly or through others, is found before that (a cycle is an
// error; fio 3.33 recurses until it runs out of file descriptors and
// then runs the job without the options it could not read).
const maxIncludeDepth = 16

// maxUnset bounds Token.Unset: enough to name the culprit, and a line of
// many variables stays linear to expand.
const maxUnset = 16

// Keywords are fio's reserved $keywords, which fio replaces by values of
// the host after ${NAME} expansion. The lexer leaves them as they are.
var Keywords = []string{"$pagesize", "$mb_memory", "$ncpus"}

// Errors of the job-file lexer, for errors.Is.
var (
	// ErrSectionHeader is a line starting with '[' that is not [name].
	ErrSectionHeader = errors.New("bad section header")
	// ErrOutsideSection is an option or include before the first
	// section (ParseJobFile and Lexer.Parse only: Tokens yields them).
	ErrOutsideSection = errors.New("option outside a section")
	// ErrLineTooLong is a line longer than MaxLineLength.
	ErrLineTooLong = errors.New("line too long")
	// ErrInclude is an include that cannot be read: no file name, a file
	// that does not open, a section header in it, or nesting too deep.
	ErrInclude = errors.New("bad include")
)

// Pos is a line of a job file.
type Pos struct {
	File string // as named to the lexer, or the path of an included file
	Line int    // 1-based
}

func (p Pos) String() string { return p.File + ":" + strconv.Itoa(p.Line) }

// JobFileError is an error of the lexer at a line. It matches one of the
// Err* sentinels of this package, and its cause (a read or open error)
// when it has one.
type JobFileError struct {
	Pos  Pos
	Msg  string // what is wrong, without the position
	Kind error  // ErrSectionHeader, ErrOutsideSection, ErrLineTooLong, ErrInclude, or nil for a read error
	Err  error  // the cause, or nil
}

func (e *JobFileError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the kind and the cause.
func (e *JobFileError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// TokenKind says what a Token is.
type TokenKind uint8

const (
	// SectionToken is a [name] line: Name is the name.
	SectionToken TokenKind = iota + 1
	// OptionToken is an option line: Name is the key, Value the value
	// (both trimmed, after ${NAME} expansion), HasValue whether there
	// was an '='.
	OptionToken
	// IncludeToken is an include line: Name is the file as written,
	// Value the path opened ("" when the Lexer keeps includes). The
	// included file's options follow it, with their own positions.
	IncludeToken
)

func (k TokenKind) String() string {
	switch k {
	case SectionToken:
		return "section"
	case OptionToken:
		return "option"
	case IncludeToken:
		return "include"
	}
	return "TokenKind(" + strconv.Itoa(int(k)) + ")"
}

// Token is one meaningful line of a job file.
type Token struct {
	Kind     TokenKind
	Pos      Pos
	Name     string
	Value    string
	HasValue bool
	// Text is the line as read, without comments and surrounding
	// blanks, before ${NAME} expansion.
	Text string
	// Unset names the ${NAME}s of an option line that are not set, in
	// order, once each (the first 16): fio reads them as empty, which
	// often leaves an empty or bad value that only the names explain.
	Unset []string
}

// Lexer reads job files. The zero Lexer reads the environment and the
// file system as fio does.
type Lexer struct {
	// LookupEnv gives the value of ${NAME} and whether NAME is set;
	// nil means Getenv's, or os.LookupEnv when Getenv is nil too.
	LookupEnv func(name string) (string, bool)
	// Getenv gives the value of ${NAME}, a NAME that gives "" counting
	// as unset; LookupEnv, when set, is used instead.
	Getenv func(name string) string
	// Open opens an included file; nil means os.Open.
	Open func(path string) (io.ReadCloser, error)
	// KeepIncludes yields include lines as IncludeTokens without
	// reading the files, for callers that refuse or resolve includes
	// themselves.
	KeepIncludes bool
}

// Entry is one option of a section.
type Entry struct {
	Key      string
	Value    string
	HasValue bool // key=value rather than a bare key
	Pos      Pos  // in the included file for an included option
}

// Section is a [name] section and its options, in order, with the
// included files' options in place of the include lines (or, when the
// Lexer keeps includes, an Entry with Key "include" and the file as
// Value).
type Section struct {
	Name    string
	Pos     Pos
	Entries []Entry
}

// Global reports whether the section holds global options: fio takes
// every section whose name starts with "global" for [global].
func (s *Section) Global() bool { return strings.HasPrefix(s.Name, "global") }

// JobFile is a job file's sections, in order.
type JobFile struct {
	Name     string // as given to ParseJobFile
	Sections []Section
}

// ParseJobFile reads a job file with the zero Lexer: includes are read
// (see Lexer.Parse) and ${NAME} comes from the environment. name names
// the file in positions and is where relative includes are looked for.
func ParseJobFile(r io.Reader, name string) (*JobFile, error) {
	var l Lexer
	return l.Parse(r, name)
}

// Parse reads a whole job file. An include's file is looked for as fio
// does: as written (relative to the working directory), then, when that
// does not exist, relative to the directory of the including file.
// Options before the first section are errors (ErrOutsideSection), as
// in fio. On an error, the JobFile holds what was read before it.
func (l *Lexer) Parse(r io.Reader, name string) (*JobFile, error) {
	jf := &JobFile{Name: name}
	var cur *Section
	for tok, err := range l.Tokens(r, name) {
		if err != nil {
			return jf, err
		}
		switch tok.Kind {
		case SectionToken:
			jf.Sections = append(jf.Sections, Section{Name: tok.Name, Pos: tok.Pos})
			cur = &jf.Sections[len(jf.Sections)-1]
		case OptionToken, IncludeToken:
			if cur == nil {
				return jf, &JobFileError{Pos: tok.Pos, Kind: ErrOutsideSection,
					Msg: fmt.Sprintf("option %q outside a [job] or [global] section", tok.Text)}
			}
			switch {
			case tok.Kind == OptionToken:
				cur.Entries = append(cur.Entries, Entry{Key: tok.Name, Value: tok.Value, HasValue: tok.HasValue, Pos: tok.Pos})
			case l.KeepIncludes:
				cur.Entries = append(cur.Entries, Entry{Key: "include", Value: tok.Name, HasValue: true, Pos: tok.Pos})
			}
		}
	}
	return jf, nil
}

// Tokens yields the sections, options and includes of a job file in
// order, each with its position. An error ends the sequence. Unlike
// Parse, Tokens leaves it to the caller whether options may come before
// the first section; an include there is an error (ErrOutsideSection:
// fio reads includes in sections only) unless the Lexer keeps includes.
func (l *Lexer) Tokens(r io.Reader, name string) iter.Seq2[Token, error] {
	return func(yield func(Token, error) bool) {
		l.lex(r, name, nil, yield)
	}
}

// lex reads one file; chain holds the files that include it, outermost
// first (none for the job file). It returns false when the sequence is
// to stop.
func (l *Lexer) lex(r io.Reader, name string, chain []string, yield func(Token, error) bool) bool {
	depth := len(chain)
	lookup := l.LookupEnv
	switch {
	case lookup != nil:
	case l.Getenv != nil:
		lookup = func(k string) (string, bool) {
			v := l.Getenv(k)
			return v, v != ""
		}
	default:
		lookup = os.LookupEnv
	}
	fail := func(line int, kind error, cause error, format string, args ...any) bool {
		yield(Token{}, &JobFileError{Pos: Pos{name, line}, Kind: kind, Err: cause, Msg: fmt.Sprintf(format, args...)})
		return false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineLength)
	n := 0
	inSection := depth > 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		line = strings.TrimLeft(line, " \t\r\v\f")
		if i := strings.IndexAny(line, ";#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			continue
		}
		pos := Pos{name, n}
		if line[0] == '[' {
			if depth > 0 {
				return fail(n, ErrInclude, nil, "section header %q in an included file: fio takes options only there", line)
			}
			if len(line) < 3 || line[len(line)-1] != ']' {
				return fail(n, ErrSectionHeader, nil, "bad section header %q: want [name]", line)
			}
			inSection = true
			if !yield(Token{Kind: SectionToken, Pos: pos, Name: line[1 : len(line)-1], Text: line}, nil) {
				return false
			}
			continue
		}
		if file, ok := includeFile(line); ok {
			tok := Token{Kind: IncludeToken, Pos: pos, Name: file, Text: line}
			if l.KeepIncludes {
				if !yield(tok, nil) {
					return false
				}
				continue
			}
			if !inSection {
				return fail(n, ErrOutsideSection, nil, "option %q outside a [job] or [global] section", line)
			}
			if file == "" {
				return fail(n, ErrInclude, nil, "include without a file name")
			}
			if depth+1 >= maxIncludeDepth {
				return fail(n, ErrInclude, nil, "include %s: includes nested deeper than %d (a cycle?)", file, maxIncludeDepth)
			}
			f, path, err := l.openInclude(file, name)
			if err != nil {
				return fail(n, ErrInclude, err, "include %s: %v", file, err)
			}
			inner := append(slices.Clip(chain), name)
			if i := slices.IndexFunc(inner, func(s string) bool { return sameFile(s, path) }); i >= 0 {
				f.Close()
				return fail(n, ErrInclude, nil, "include %s: a cycle: %s", file, strings.Join(append(inner[i:], path), " includes "))
			}
			tok.Value = path
			ok := yield(tok, nil) && l.lex(f, path, inner, yield)
			f.Close()
			if !ok {
				return false
			}
			continue
		}
		text := line
		line, unset := expandEnv(line, lookup)
		key, val, hasVal := strings.Cut(line, "=")
		tok := Token{Kind: OptionToken, Pos: pos, Name: strings.TrimSpace(key), Value: strings.TrimSpace(val), HasValue: hasVal, Text: text, Unset: unset}
		if !yield(tok, nil) {
			return false
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail(n+1, ErrLineTooLong, nil, "line %d is longer than %d bytes", n+1, MaxLineLength)
		}
		return fail(n+1, nil, err, "read: %v", err)
	}
	return true
}

// includeFile returns the file of an include line ("include FILE" or
// "include=FILE"), and whether the line is one.
func includeFile(line string) (string, bool) {
	if key, val, ok := strings.Cut(line, "="); ok && strings.TrimSpace(key) == "include" {
		return strings.TrimSpace(val), true
	}
	rest, ok := strings.CutPrefix(line, "include")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// openInclude opens file, included by the file from: as written, then
// relative to from's directory, as fio 3.33 looks for it.
func (l *Lexer) openInclude(file, from string) (io.ReadCloser, string, error) {
	open := l.Open
	if open == nil {
		open = func(p string) (io.ReadCloser, error) { return os.Open(p) }
	}
	f, err := open(file)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.IsAbs(file) {
		return f, file, err
	}
	dir := filepath.Dir(from)
	if dir == "." {
		return nil, file, err
	}
	rel := filepath.Join(dir, file)
	f, err2 := open(rel)
	if err2 != nil {
		return nil, file, err // fio's message names the file as written
	}
	return f, rel, nil
}

// sameFile reports whether the paths a and b name one file: the same
// path once cleaned and made absolute.
func sameFile(a, b string) bool {
	abs := func(p string) string {
		if q, err := filepath.Abs(p); err == nil {
			return q
		}
		return filepath.Clean(p)
	}
	return abs(a) == abs(b)
}

// expandEnv replaces ${NAME} with lookup(NAME), as fio does on job-file
// option lines: an unset or empty variable gives "", an unterminated "${"
// stays as it is, and "$NAME" without braces is not expanded. It returns
// the unset NAMEs too, once each, the first maxUnset of them.
func expandEnv(s string, lookup func(string) (string, bool)) (string, []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var unset []string
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		name := s[i+2 : i+2+j]
		v, ok := lookup(name)
		if !ok && len(unset) < maxUnset && !slices.Contains(unset, name) {
			unset = append(unset, name)
		}
		b.WriteString(v)
		s = s[i+2+j+1:]
	}
	b.WriteString(s)
	return b.String(), unset
}
