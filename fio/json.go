package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeJSON reads fio's JSON output (json or json+) from r to the end
// and unmarshals it into v: the one reader of fio's JSON. Text before the
// first '{' (fio prints notes there when stderr is merged into the
// output) is skipped, and fio's bare nan, -nan, inf and -inf (printf of a
// non-finite double, not JSON) are read as null. Errors name the line and
// column; name (a file name, or "-") prefixes every error.
func DecodeJSON(r io.Reader, name string, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return UnmarshalJSON(data, name, v)
}

// UnmarshalJSON is DecodeJSON of data already read.
func UnmarshalJSON(data []byte, name string, v any) error {
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return fmt.Errorf("%s: no JSON object in %d bytes", name, len(data))
	}
	body := NullNonFinite(data[start:])
	if err := json.Unmarshal(body, v); err != nil {
		// NullNonFinite keeps every offset: positions in body are
		// positions in data.
		return fmt.Errorf("%s: %w", name, locate(data, start, err))
	}
	return nil
}

// NullNonFinite returns data with fio's bare nan, -nan, inf and -inf
// replaced by null, keeping every byte offset: "-nan" becomes "null", and
// " nan" (fio always prints a space before a value) becomes "null". Words
// inside strings are left alone. data is not modified; it is returned as
// it is when there is nothing to replace.
func NullNonFinite(data []byte) []byte {
	var out []byte // copied on the first change
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		at := -1
		switch {
		case hasWord(data, i, "-nan") || hasWord(data, i, "-inf"):
			at = i
		case (hasWord(data, i, "nan") || hasWord(data, i, "inf")) && i > 0 && isSpace(data[i-1]):
			at = i - 1
		}
		if at < 0 {
			continue
		}
		if out == nil {
			out = append([]byte(nil), data...)
		}
		copy(out[at:], "null")
		i = at + 3
	}
	if out == nil {
		return data
	}
	return out
}

// hasWord reports whether data[i:] starts with w followed by a non-letter.
func hasWord(data []byte, i int, w string) bool {
	if !bytes.HasPrefix(data[i:], []byte(w)) {
		return false
	}
	j := i + len(w)
	return j == len(data) || !(data[j] >= 'a' && data[j] <= 'z' || data[j] >= 'A' && data[j] <= 'Z')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// locate adds line:column to a JSON error that carries an offset.
func locate(data []byte, start int, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	// The offset counts the bytes read, including the offending one.
	pos := max(start, min(start+int(off)-1, len(data)))
	line := 1 + bytes.Count(data[:pos], []byte{'\n'})
	col := pos - bytes.LastIndexByte(data[:pos], '\n')
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}

// EachField calls f for the fields of the JSON object in data, in the
// order they are written: fio's json+ bins and its options as given are
// objects whose order means something, which a map loses.
func EachField(data []byte, f func(key string, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := f(tok.(string), raw); err != nil { // object keys are always strings
			return err
		}
	}
	_, err = dec.Token() // the closing '}'
	return err
}
