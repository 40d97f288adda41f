package iostat

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
	"stortest.dev/iostat/replay"
)

// update rewrites the golden files under testdata/ from sysstat's iostat:
// go test ./iostat -run TestSysstatCases -update
// update is the shared -update flag: rewrite the golden files.
var update = testenv.Update

// sysstatCases is the file of recorded runs that stortest's iostat must
// reproduce (cmd/stortest tests it).
var sysstatCases = filepath.Join("testdata", "sysstat", "cases")

// TestSysstatCases runs the installed sysstat iostat (12.6) over each case
// of testdata/sysstat/cases and requires what it prints to be the recorded
// output, so the files stortest's iostat is held to are sysstat's own.
func TestSysstatCases(t *testing.T) {
	testenv.RequireRoot(t, "iostat", "unshare", "mount")
	cases, err := replay.ReadCases(sysstatCases)
	if err != nil {
		t.Fatal(err)
	}
	// iostat sleeps a second between samples: run the cases side by
	// side, a few at a time, then judge each.
	type result struct {
		out []byte
		err error
	}
	results := make([]result, len(cases))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			dir, err := os.MkdirTemp(t.TempDir(), c.Name)
			if err != nil {
				results[i].err = err
				return
			}
			tree, err := replay.NewTree(dir, c.Roots)
			if err != nil {
				results[i].err = err
				return
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Duration(len(c.Roots)+20)*time.Second)
			defer cancel()
			out, err := tree.Sysstat(ctx, c.Env, c.ArgsIn(tree.Dir)...)
			results[i] = result{replay.Normalize(out), err}
		}()
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := results[i].out, results[i].err
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", "sysstat", "want", c.Name)
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run: go test ./iostat -run TestSysstatCases -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (line %d): sysstat's output is not the recorded one (-recorded +sysstat):\n%s\n"+
					"If sysstat changed on purpose: go test ./iostat -run TestSysstatCases -update", c.Name, c.Line, diff)
			}
		})
	}
}
