package fioout

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// fileTarget is a scratch file of size bytes, removed after the test.
func fileTarget(t *testing.T, size int64) *workload.Scratch {
	t.Helper()
	s, err := workload.NewScratch(workload.ScratchOptions{Dir: t.TempDir(), Size: size})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// ourFioJSON is res in fio's JSON schema, decoded; it stops the test
// (FailNow) on an error.
func ourFioJSON(t *testing.T, res *workload.Result, format OutputFormat) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteFioJSON(&buf, res, format, time.Unix(1700000000, 0)))
	b := buf.Bytes()
	i := bytes.IndexByte(b, '{')
	require.GreaterOrEqual(t, i, 0, "no JSON in %q", b)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b[i:], &doc))
	return doc
}

// at walks a decoded JSON document: a key for an object, "0", "1"... for
// an array. It returns nil where the path leads nowhere.
func at(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = 10*i + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
