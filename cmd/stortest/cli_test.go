package main

import (
	"bytes"
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
