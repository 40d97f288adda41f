package fio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParseJobFile(t *testing.T) {
	in := "\ufeff; a comment\n" +
		"[global]\r\n" +
		"  bs = 4k  # trailing comment\n" +
		"\n" +
		"[global-more]\n" +
		"direct\n" +
		"[job one]\n" +
		"size=${SIZE}\n" +
		"description=a${UNSET}b${EMPTY}c;d\n" +
		"filename=/tmp/${\n" +
		"rate=$SIZE\n" +
		"\tnumjobs\t=\t${N}\n" +
		"${KEY}=1\n" +
		"x=a=b\n" +
		"[b]\n"
	l := Lexer{Getenv: env(map[string]string{"SIZE": "64m", "N": "4", "EMPTY": "", "KEY": "iodepth"})}
	got, err := l.Parse(strings.NewReader(in), "job.fio")
	if err != nil {
		t.Fatal(err)
	}
	at := func(line int) Pos { return Pos{"job.fio", line} }
	want := &JobFile{Name: "job.fio", Sections: []Section{
		{Name: "global", Pos: at(2), Entries: []Entry{{"bs", "4k", true, at(3)}}},
		{Name: "global-more", Pos: at(5), Entries: []Entry{{"direct", "", false, at(6)}}},
		{Name: "job one", Pos: at(7), Entries: []Entry{
			{"size", "64m", true, at(8)},
			{"description", "abc", true, at(9)},
			{"filename", "/tmp/${", true, at(10)},
			{"rate", "$SIZE", true, at(11)},
			{"numjobs", "4", true, at(12)},
			{"iodepth", "1", true, at(13)},
			{"x", "a=b", true, at(14)},
		}},
		{Name: "b", Pos: at(15)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for i, g := range []bool{true, true, false, false} {
		if got.Sections[i].Global() != g {
			t.Errorf("section %q: Global() = %v", got.Sections[i].Name, !g)
		}
	}
}

// Tokens gives each line's text before expansion, and leaves options
// before the first section to the caller.
func TestTokens(t *testing.T) {
	l := Lexer{Getenv: env(map[string]string{"B": "8k"}), KeepIncludes: true}
	var got []Token
	for tok, err := range l.Tokens(strings.NewReader("bs=${B}\ninclude x.fio\n[a] ; c\ninclude=y.fio\nrw\n"), "t.fio") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tok)
	}
	at := func(line int) Pos { return Pos{"t.fio", line} }
	want := []Token{
		{Kind: OptionToken, Pos: at(1), Name: "bs", Value: "8k", HasValue: true, Text: "bs=${B}"},
		{Kind: IncludeToken, Pos: at(2), Name: "x.fio", Text: "include x.fio"},
		{Kind: SectionToken, Pos: at(3), Name: "a", Text: "[a]"},
		{Kind: IncludeToken, Pos: at(4), Name: "y.fio", Text: "include=y.fio"},
		{Kind: OptionToken, Pos: at(5), Name: "rw", Text: "rw"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Breaking out of the loop stops the lexer.
	n := 0
	for range l.Tokens(strings.NewReader("[a]\n[b]\n[c]\n"), "t.fio") {
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d tokens after break", n)
	}
}

// An option line's tokens name the ${NAME}s that are not set (fio reads
// them as empty), once each; a variable set to "" is not among them when
// the Lexer can tell, through LookupEnv.
func TestTokensUnset(t *testing.T) {
	vars := map[string]string{"B": "8k", "EMPTY": ""}
	l := Lexer{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	in := "[a]\nbs=${NOPE}\nsize=${B}${EMPTY}\nfilename=${X}/${Y}${X}${}\nrw=read\n"
	var got [][]string
	for tok, err := range l.Tokens(strings.NewReader(in), "u.fio") {
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind == OptionToken {
			got = append(got, tok.Unset)
		}
	}
	want := [][]string{{"NOPE"}, nil, {"X", "Y", ""}, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unset (-want +got):\n%s", diff)
	}
	// Through Getenv, "" is all there is to tell.
	l = Lexer{Getenv: env(vars)}
	for tok, err := range l.Tokens(strings.NewReader("[a]\nsize=${B}${EMPTY}\n"), "u.fio") {
		if err == nil && tok.Kind == OptionToken && !slices.Equal(tok.Unset, []string{"EMPTY"}) {
			t.Errorf("with Getenv: Unset = %q, want [EMPTY]", tok.Unset)
		}
	}
	// A line of many variables names the first few.
	var b strings.Builder
	b.WriteString("[a]\nx=")
	for i := range 1000 {
		fmt.Fprintf(&b, "${V%d}", i)
	}
	for tok, err := range l.Tokens(strings.NewReader(b.String()), "u.fio") {
		if err == nil && tok.Kind == OptionToken && (len(tok.Unset) != maxUnset || tok.Unset[0] != "V0") {
			t.Errorf("many: Unset = %q", tok.Unset)
		}
	}
}

func TestParseJobFileErrors(t *testing.T) {
	long := strings.Repeat("x", MaxLineLength)
	for _, tc := range []struct {
		name, in string
		kind     error
		msg      string // the whole message
	}{
		{"outside", "\nbs=4k\n[a]\n", ErrOutsideSection, `j.fio:2: option "bs=4k" outside a [job] or [global] section`},
		{"include outside", "include x.fio\n", ErrOutsideSection, `j.fio:1: option "include x.fio" outside a [job] or [global] section`},
		{"unterminated header", "[a]\n[b\n", ErrSectionHeader, `j.fio:2: bad section header "[b": want [name]`},
		{"empty header", "[]\n", ErrSectionHeader, `j.fio:1: bad section header "[]": want [name]`},
		{"comment in header", "[a;b]\n", ErrSectionHeader, `j.fio:1: bad section header "[a": want [name]`},
		{"long line", "[a]\ndescription=" + long + "\n", ErrLineTooLong, "j.fio:2: line 2 is longer than 1048576 bytes"},
		{"include no name", "[a]\ninclude\n", ErrInclude, "j.fio:2: include without a file name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseJobFile(strings.NewReader(tc.in), "j.fio")
			if !errors.Is(err, tc.kind) || err == nil || err.Error() != tc.msg {
				t.Errorf("error %v\nwant %q, matching %v", err, tc.msg, tc.kind)
			}
			var je *JobFileError
			if !errors.As(err, &je) || je.Pos.File != "j.fio" {
				t.Errorf("error %#v: want a *JobFileError in j.fio", err)
			}
		})
	}
	_, err := ParseJobFile(iotest.ErrReader(io.ErrUnexpectedEOF), "r.fio")
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(err.Error(), "r.fio:1: read: ") {
		t.Errorf("read error: %v", err)
	}
	// What was read before an error is kept.
	jf, err := ParseJobFile(strings.NewReader("[a]\nbs=4k\n[b\n"), "j.fio")
	if err == nil || len(jf.Sections) != 1 || len(jf.Sections[0].Entries) != 1 {
		t.Errorf("got %+v, %v: want section a with its option, and an error", jf, err)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseJobFileInclude(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"jobs/main.fio":      "[a]\ninclude common.fio\nrw=read\ninclude=more/deep.fio\n",
		"jobs/common.fio":    "; shared\nbs=8k\n\niodepth=${QD}\n",
		"jobs/more/deep.fio": "include last.fio\n",
		"jobs/more/last.fio": "direct=1\n",
		"jobs/bad.fio":       "[a]\ninclude hdr.fio\n",
		"jobs/hdr.fio":       "bs=4k\n[b]\n",
		"jobs/loop.fio":      "[a]\ninclude self.fio\n",
		"jobs/self.fio":      "include self.fio\n",
		"jobs/ring.fio":      "[a]\ninclude ring1.fio\n",
		"jobs/ring1.fio":     "bs=4k\ninclude sub/ring2.fio\n",
		"jobs/sub/ring2.fio": "include ../ring1.fio\n",
		"jobs/twice.fio":     "[a]\ninclude common.fio\n[b]\ninclude common.fio\ninclude common.fio\n",
		"jobs/missing.fio":   "[a]\ninclude nope.fio\n",
		"cwd/common.fio":     "numjobs=2\n",
		"empty/README":       "",
	})
	t.Chdir(filepath.Join(dir, "empty")) // includes are found next to the including file
	t.Setenv("QD", "16")
	main := filepath.Join(dir, "jobs", "main.fio")
	jf := parseFile(t, main)
	p := func(name string, line int) Pos { return Pos{filepath.Join(dir, "jobs", name), line} }
	want := []Entry{
		{"bs", "8k", true, p("common.fio", 2)},
		{"iodepth", "16", true, p("common.fio", 4)},
		{"rw", "read", true, p("main.fio", 3)},
		{"direct", "1", true, p("more/last.fio", 1)},
	}
	if diff := cmp.Diff(want, jf.Sections[0].Entries); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// fio looks in the working directory first.
	t.Chdir(filepath.Join(dir, "cwd"))
	jf = parseFile(t, main)
	if e := jf.Sections[0].Entries[0]; e.Key != "numjobs" || e.Pos != (Pos{"common.fio", 1}) {
		t.Errorf("first entry %+v: want numjobs from the working directory's common.fio", e)
	}

	for name, msg := range map[string]string{
		"bad.fio":  `hdr.fio:2: section header "[b]" in an included file`,
		"loop.fio": "self.fio:1: include self.fio: a cycle: " + filepath.Join(dir, "jobs", "self.fio") + " includes " + filepath.Join(dir, "jobs", "self.fio"),
		"ring.fio": "sub/ring2.fio:1: include ../ring1.fio: a cycle: " + filepath.Join(dir, "jobs", "ring1.fio") + " includes " +
			filepath.Join(dir, "jobs", "sub", "ring2.fio") + " includes " + filepath.Join(dir, "jobs", "sub", "../ring1.fio"),
		"missing.fio": "missing.fio:2: include nope.fio: open nope.fio: no such file or directory",
	} {
		f, err := os.Open(filepath.Join(dir, "jobs", name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseJobFile(f, f.Name())
		f.Close()
		if !errors.Is(err, ErrInclude) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, msg)
		}
	}

	// A file included twice, or in two sections, is no cycle.
	if jf := parseFile(t, filepath.Join(dir, "jobs", "twice.fio")); len(jf.Sections) != 2 || len(jf.Sections[1].Entries) != 2 {
		t.Errorf("twice.fio: %+v", jf)
	}

	// KeepIncludes reads no file.
	l := Lexer{KeepIncludes: true, Open: func(string) (io.ReadCloser, error) {
		t.Fatal("opened an include")
		return nil, nil
	}}
	jf, err := l.Parse(strings.NewReader("[a]\ninclude x.fio\n"), "k.fio")
	if err != nil || len(jf.Sections) != 1 || jf.Sections[0].Entries[0] != (Entry{"include", "x.fio", true, Pos{"k.fio", 2}}) {
		t.Errorf("KeepIncludes: %+v, %v", jf, err)
	}
}

func parseFile(t *testing.T, path string) *JobFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jf, err := ParseJobFile(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return jf
}

// ParseJobFile reads what fio 3.33 reads: fio --showcmd prints a job
// file as command-line options, includes read and ${NAME} expanded.
func TestParseJobFileMatchesFio(t *testing.T) {
	fio := testenv.Fio(t, "the comparison with fio's own reader")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"jobs/main.fio": "; comment\n[global]\nbs=8k # c\n  ioengine=psync\n" +
			"[first]\ninclude common.fio\nsize=${FIOLEX_SIZE}\ninclude=sub/more.fio\ndescription=x${FIOLEX_UNSET}y\n" +
			"[second]\r\nnumjobs=2\r\ntime_based\n",
		"jobs/common.fio":     "iodepth=4\n\n# c\ndirect=1\n",
		"jobs/sub/more.fio":   "rw=write\ninclude deeper.fio\n",
		"jobs/sub/deeper.fio": "runtime=3\n",
	})
	t.Chdir(dir)
	t.Setenv("FIOLEX_SIZE", "1m")
	main := filepath.Join("jobs", "main.fio")
	out, err := exec.Command(fio, "--showcmd", main).CombinedOutput()
	if err != nil {
		t.Fatalf("fio --showcmd: %v\n%s", err, out)
	}
	// fio quotes the values of its string options.
	want := strings.Fields(strings.ReplaceAll(string(out), `"`, ""))
	got := []string{"fio"}
	for _, s := range parseFile(t, main).Sections {
		if !s.Global() {
			got = append(got, "--name="+s.Name)
		}
		for _, e := range s.Entries {
			if e.HasValue {
				got = append(got, "--"+e.Key+"="+e.Value)
			} else {
				got = append(got, "--"+e.Key)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fio --showcmd (-want) and ParseJobFile (+got) differ:\n%s", diff)
	}
}
