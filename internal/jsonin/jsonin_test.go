package jsonin

import (
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
			err := Decode(strings.NewReader(c.in), "f.json", &v, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	if err := Decode(strings.NewReader("warning\n{\"A\": 7}"), "ok", &v, nil); err != nil || v.A != 7 {
		t.Fatalf("leading text: %v, A=%d", err, v.A)
	}
	up := func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "seven", "7")) }
	if err := Decode(strings.NewReader(`{"A": seven}`), "f", &v, up); err != nil || v.A != 7 {
		t.Fatalf("filter: %v, A=%d", err, v.A)
	}
}
