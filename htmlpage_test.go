package stortest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"stortest.dev/workload"
)

// TestRunWritesPage runs a job and finds its page among the artifacts
// and the testcase's attachments, rewritten at the end of the test with
// the checks made on the run, passed and failed.
func TestRunWritesPage(t *testing.T) {
	t.Setenv("STORTEST_OUT", t.TempDir())
	var r *Result
	t.Run("run", func(t *testing.T) {
		f := newFake(t)
		defer f.finish()
		f.run(func(tb testing.TB) {
			dev := File(tb, 4<<20)
			r = Run(tb, dev, workload.Job{Name: "page", RW: workload.RandRead, BlockSize: 4096,
				Runtime: 1500 * time.Millisecond, TimeBased: true})
			r.CheckPercentile(tb, Clat, 99, time.Hour)
			r.CheckIOPS(tb, 1e12) // fails: no disk does a trillion IOPS
		})
	})
	if r == nil {
		t.Fatal("no run")
	}
	var path string
	for _, a := range r.Artifacts {
		if strings.HasSuffix(a, extHTML) {
			path = a
		}
	}
	if path == "" || filepath.Base(path) != "page.html" {
		t.Fatalf("no page among the artifacts: %q", r.Artifacts)
	}
	cs := casesOf(t, t.Name()+"/run")
	if len(cs) != 1 || !slices.Contains(cs[0].Attachments, path) {
		t.Errorf("the testcase does not attach %s: %+v", path, cs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, s := range []string{"<svg", "IOPS per 100ms", "clat p99", "≤ 3600s", "pass", "iops floor", "≥ 1T", "fail", "rw=randread"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not hold %q", s)
		}
	}
}
