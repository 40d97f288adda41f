package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --parse-only --debug=parse prints what fio 3.33 prints about the
// steady-state threshold (testdata/fio333-parse-debug.txt, recorded with
// `fio --parse-only --debug=parse --ss_dur=10s --ss=X --ss_ramp=5`, pids
// cut), which t/steadystate_tests.py looks for, and runs nothing.
func TestRunParseOnlyDebugParse(t *testing.T) {
	b, err := os.ReadFile("testdata/fio333-parse-debug.txt")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 12)
	prefix := regexp.MustCompile(`^parse +[0-9]+ +`) // pids pad to 5 digits, as fio's
	for i := 0; i < len(lines); i += 2 {
		arg, want := lines[i], lines[i+1]
		t.Run(arg, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain([]string{"run", "--parse-only", "--debug=parse", "--ss_dur=10s", arg, "--ss_ramp=5"}, &stdout, &stderr)
			require.Equal(t, 0, code, "stderr: %s", stderr.String())
			got := strings.TrimSpace(stdout.String())
			require.Regexp(t, prefix, got)
			assert.Equal(t, want, prefix.ReplaceAllString(got, ""))
		})
	}
}

// fio's harness options: --max-jobs is taken, --output-format=terse,json+
// writes the terse line, then the JSON, to --output.
func TestRunFioCommandLine(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--max-jobs=16", "--name=x", "--ioengine=null", "--rw=randrw", "--size=1m",
		"--lat_percentiles=1", "--output=" + out, "--output-format=terse,json+"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	r := bufio.NewReader(f)
	first, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(first, "3;stortest-"), first)
	var doc struct {
		Jobs []struct {
			Name string `json:"jobname"`
		} `json:"jobs"`
	}
	require.NoError(t, json.NewDecoder(r).Decode(&doc))
	require.Len(t, doc.Jobs, 1)
	assert.Equal(t, "x", doc.Jobs[0].Name)

	code = runMain([]string{"run", "--max-jobs=x", "--name=x", "--ioengine=null", "--size=1m"}, &stdout, &stderr)
	assert.Equal(t, 2, code, "a bad --max-jobs is a usage error")
	code = runMain([]string{"run", "--output-format=json,xml", "--name=x", "--ioengine=null", "--size=1m"}, &stdout, &stderr)
	assert.Equal(t, 2, code)
}
