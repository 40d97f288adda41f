package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stortest run prints the options as given, as fio 3.33 does for the
// same job file and command line: "global options" holds the command
// line's then the [global] section's, "job options" the job's own
// section's (fio printed {"runtime":"1","ioengine":"null","size":"1m",
// "bs":"4k"} and {"rw":"read","description":"first job"}).
func TestRunJSONGivenOptions(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	job := filepath.Join(dir, "g.fio")
	require.NoError(t, os.WriteFile(job, []byte("[global]\nioengine=null\nsize=1m\nbs=4k\nthread\n\n[a]\nrw=read\ndescription=first job\n"), 0o644))
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress=off", "--output-format=json", "--runtime=1", job}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	var doc struct {
		Global map[string]string `json:"global options"`
		Jobs   []struct {
			Options map[string]string `json:"job options"`
			Desc    string            `json:"desc"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc))
	assert.Equal(t, map[string]string{"runtime": "1", "ioengine": "null", "size": "1m", "bs": "4k"}, doc.Global)
	require.Len(t, doc.Jobs, 1)
	assert.Equal(t, map[string]string{"rw": "read", "description": "first job"}, doc.Jobs[0].Options)
	assert.Equal(t, "first job", doc.Jobs[0].Desc)
}
