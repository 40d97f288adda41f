package fio

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	var v struct{ A int }
	cases := []struct{ name, in, want string }{
		{"no-object", "fio: error", "f.json: no JSON object in 10 bytes"},
		{"syntax", "note\n{\n\"A\": ,\n}", "f.json: line 3 column 6"},
		{"type", "{\"A\": \"x\"}", "f.json: line 1 column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := DecodeJSON(strings.NewReader(c.in), "f.json", &v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	if err := DecodeJSON(strings.NewReader("warning\n{\"A\": 7}"), "ok", &v); err != nil || v.A != 7 {
		t.Fatalf("leading text: %v, A=%d", err, v.A)
	}
	var f struct{ A, B, C *float64 }
	if err := DecodeJSON(strings.NewReader("{\"A\": -nan, \"B\": nan,\n\"C\": 1.5}"), "nan", &f); err != nil || f.A != nil || f.B != nil || *f.C != 1.5 {
		t.Fatalf("non-finite numbers: %v, %+v", err, f)
	}
	// Positions after a replaced nan are where they were.
	err := DecodeJSON(strings.NewReader("{\"A\": -nan,\n\"B\": x}"), "f", &f)
	if err == nil || !strings.Contains(err.Error(), "f: line 2 column 6") {
		t.Fatalf("err = %v, want line 2 column 6", err)
	}
}

// fio prints a non-finite double as a bare word: nan, -nan, inf, -inf.
// Each becomes null in place, leaving words inside strings alone.
func TestNullNonFinite(t *testing.T) {
	in := `{"a" : "x nan", "b" : nan, "c":-inf,"d" : [ inf], "e": "\" nan"}`
	want := `{"a" : "x nan", "b" :null, "c":null,"d" : [null], "e": "\" nan"}`
	if got := string(NullNonFinite([]byte(in))); got != want {
		t.Errorf("NullNonFinite = %s\nwant              %s", got, want)
	}
	plain := []byte(`{"a": 1}`)
	if got := NullNonFinite(plain); &got[0] != &plain[0] {
		t.Error("a document without non-finite numbers was copied")
	}
}

// EachField walks an object's fields in their written order and stops at
// what is not an object or at the callback's error.
func TestEachField(t *testing.T) {
	var got []string
	err := EachField([]byte(`{"b": 1, "a": {"x": [2]}, "c": "s"}`), func(k string, raw json.RawMessage) error {
		got = append(got, k+"="+string(raw))
		return nil
	})
	if want := []string{`b=1`, `a={"x": [2]}`, `c="s"`}; err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if err := EachField([]byte(`[1]`), func(string, json.RawMessage) error { return nil }); err == nil || !strings.Contains(err.Error(), "want an object") {
		t.Errorf("an array: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if err := EachField([]byte(`{"a":1,"b":2}`), func(string, json.RawMessage) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("the callback's error: %v after %d calls", err, n)
	}
}
