package fio

import (
	"bytes"
	"encoding/json"
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
