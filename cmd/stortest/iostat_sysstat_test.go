package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
	"stortest.dev/iostat/replay"
)

// TestIostatSysstatCases runs "stortest iostat" over each recorded case
// of iostat/testdata/sysstat/cases (samples of sysstat's own test suite)
// and requires the output sysstat 12.6's iostat printed there, byte for
// byte but for the host's banner and times. The iostat package's
// TestSysstatCases checks the recordings against the installed sysstat.
func TestIostatSysstatCases(t *testing.T) {
	testenv.RequireRoot(t) // the recorded samples' device nodes are made with mknod
	dir := filepath.Join("..", "..", "iostat", "testdata", "sysstat")
	cases, err := replay.ReadCases(filepath.Join(dir, "cases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		// Sequential: the samples are stepped through iostatWait, and
		// the environment differs from case to case.
		t.Run(c.Name, func(t *testing.T) {
			tree, err := replay.NewTree(t.TempDir(), c.Roots)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("S_TIME_FORMAT", "")
			os.Unsetenv("POSIXLY_CORRECT")
			for _, kv := range c.Env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			iostatWait = func(ctx context.Context) error {
				_, err := tree.Next()
				return err
			}
			defer func() { iostatWait = nil }()
			args := append([]string{"iostat", "--proc", tree.Proc(), "--sys", tree.Sys(), "--dev", tree.Dev()}, c.ArgsIn(tree.Dir)...)
			stdout := runOK(t, args)
			want, err := os.ReadFile(filepath.Join(dir, "want", c.Name))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(replay.Normalize(stdout.Bytes()))); diff != "" {
				t.Errorf("stortest iostat %s (cases line %d) differs from sysstat 12.6 (-sysstat +stortest):\n%s",
					strings.Join(c.Args, " "), c.Line, diff)
			}
		})
	}
}
