// Package jsonin decodes a JSON document that a tool printed after other
// text (fio prints notes before its JSON when stderr is merged into the
// output), with errors that name the line and column.
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode reads r to the end and unmarshals the JSON object starting at its
// first '{' into v. filter, when not nil, may rewrite the document first
// (say, fio's bare nan into null); error positions then refer to the
// filtered text. name (a file name, or "-") prefixes every error.
func Decode(r io.Reader, name string, v any, filter func([]byte) []byte) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return fmt.Errorf("%s: no JSON object in %d bytes", name, len(data))
	}
	body := data[start:]
	if filter != nil {
		body = filter(body)
		data = append(data[:start:start], body...)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", name, locate(data, start, err))
	}
	return nil
}

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
