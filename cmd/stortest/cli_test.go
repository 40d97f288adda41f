package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// cliCase is a command line and what it must do: exit with code, saying
// want on stderr.
type cliCase struct {
	name string
	args []string
	code int
	want string
}

// runCLICases runs each case as a subtest.
func runCLICases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(c.args, &stdout, &stderr)
			if code != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr.String(), c.code, c.want)
			}
		})
	}
}

// runOK runs the command line args, which must exit 0, and returns its
// standard output.
func runOK(t *testing.T, args []string) *bytes.Buffer {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := runMain(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	return &stdout
}

// recordedFio returns the recorded fio outputs that pattern (a path below
// the repository's root, from this directory) names; it stops the test
// (FailNow) when there are fewer than least, which would leave the
// comparison with fio thin.
func recordedFio(t *testing.T, least int, pattern string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", pattern))
	if len(files) < least {
		t.Fatalf("found %d recorded fio outputs", len(files))
	}
	return files
}
