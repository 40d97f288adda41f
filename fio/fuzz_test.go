package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// DecodeJSON never panics on any input, its errors start with the name,
// and what it accepts is the JSON object from the first '{' on, with
// fio's non-finite numbers read as null.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`,
		"note: something\n{\"jobs\": [{\"jobname\": \"x\"}]}\n",
		"{\n  \"a\": nan\n}",
		"no object",
		"{\"a\": [1, 2,\n",
		`{"a": "\u00e9"} trailing`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var v map[string]any
		err := DecodeJSON(bytes.NewReader(in), "fuzz.json", &v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error %q does not start with the name", err)
			}
			return
		}
		start := bytes.IndexByte(in, '{')
		if start < 0 {
			t.Fatal("accepted input without '{'")
		}
		var want map[string]any
		if json.Unmarshal(NullNonFinite(in[start:]), &want) != nil {
			t.Fatal("accepted what encoding/json rejects")
		}
	})
}

// fuzzEnv is the environment of FuzzParseJobFile: values without
// '$', comments or newlines, so that expansion cannot make new ones.
var fuzzEnv = map[string]string{"A": "4k", "B": "x=1", "E": "", "S": " a b "}

// ParseJobFile never panics; its errors are *JobFileErrors at a line of
// the main file (main.fio) or of the one it may include (inc.fio); what
// it accepts has no ${NAME} left to expand, agrees with Tokens, and
// reads back the same when written out as a job file.
func FuzzParseJobFile(f *testing.F) {
	for _, s := range [][2]string{
		{"[global]\nbs=4k\n[a]\nrw=read ; c\n", ""},
		{"\ufeff[a] # c\r\n  size = ${A}\r\ndirect\n", ""},
		{"[a]\ninclude inc.fio\nrw=write\n", "bs=8k\n${B}\n"},
		{"[a]\ninclude=inc.fio\n", "include inc.fio\n"},
		{"[a]\ninclude inc.fio\n", "[b]\n"},
		{"[a]\ninclude nope.fio\ninclude\n", ""},
		{"bs=4k\n[a]\n", ""},
		{"[a\n", ""},
		{"[]\n[a]\n${\n${E}x${S}=${}\n$A\n", ""},
		{"[a]\nfilename=/dev/x\\:y\nk=a=b\n=v\n", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, main, inc string) {
		l := Lexer{
			Getenv: func(k string) string { return fuzzEnv[k] },
			Open: func(p string) (io.ReadCloser, error) {
				if p == "inc.fio" {
					return io.NopCloser(strings.NewReader(inc)), nil
				}
				return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
			},
		}
		lines := map[string]int{"main.fio": strings.Count(main, "\n") + 1, "inc.fio": strings.Count(inc, "\n") + 1}
		jf, err := l.Parse(strings.NewReader(main), "main.fio")
		if err != nil {
			var je *JobFileError
			if !errors.As(err, &je) || je.Pos.Line < 1 || je.Pos.Line > lines[je.Pos.File] {
				t.Fatalf("error %#v: want a *JobFileError at a line of main.fio or inc.fio", err)
			}
			if !strings.HasPrefix(err.Error(), je.Pos.String()+": ") {
				t.Fatalf("error %q does not start with its position", err)
			}
			return
		}
		n := 0
		for tok, err := range l.Tokens(strings.NewReader(main), "main.fio") {
			if err != nil {
				t.Fatalf("Tokens failed where Parse did not: %v", err)
			}
			if tok.Kind != IncludeToken {
				n++
			}
		}
		var text strings.Builder
		roundTrip := true
		for _, s := range jf.Sections {
			n--
			text.WriteString("[" + s.Name + "]\n")
			for _, e := range s.Entries {
				n--
				if lines[e.Pos.File] == 0 || e.Pos.Line > lines[e.Pos.File] {
					t.Fatalf("entry %+v: not at a line of main.fio or inc.fio", e)
				}
				line := e.Key
				if e.HasValue {
					line += "=" + e.Value
				}
				if i := strings.Index(line, "${"); i >= 0 && strings.Contains(line[i:], "}") {
					t.Fatalf("entry %+v: ${NAME} left unexpanded", e)
				}
				if _, inc := includeFile(line); inc || line == "" || line[0] == '[' {
					roundTrip = false // a name made by expansion
				}
				text.WriteString(line + "\n")
			}
		}
		if n != 0 {
			t.Fatalf("Tokens and Parse disagree by %d sections and options", n)
		}
		if !roundTrip {
			return
		}
		back, err := l.Parse(strings.NewReader(text.String()), "back.fio")
		if err != nil {
			t.Fatalf("written out, %+v does not read back: %v\n%s", jf, err, text.String())
		}
		if len(back.Sections) != len(jf.Sections) {
			t.Fatalf("read back %d sections, want %d", len(back.Sections), len(jf.Sections))
		}
		for i, s := range jf.Sections {
			b := back.Sections[i]
			if b.Name != s.Name || len(b.Entries) != len(s.Entries) {
				t.Fatalf("section %q read back as %+v", s.Name, b)
			}
			for j, e := range s.Entries {
				if g := b.Entries[j]; g.Key != e.Key || g.Value != e.Value || g.HasValue != e.HasValue {
					t.Fatalf("entry %+v read back as %+v", e, g)
				}
			}
		}
	})
}
