package page

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/regress"
)

// FuzzRenderBaseline renders the pages of any baseline file that
// baselines.Decode accepts (what `baseline diff --format html` reads from
// disk): each page must be well-formed, with finite coordinates only.
func FuzzRenderBaseline(f *testing.F) {
	for _, name := range []string{"randread-30s-a.json.gz", "randread-30s-shared.json.gz"} {
		f.Add(testenv.Gunzip(f, filepath.Join("testdata", name)))
	}
	for _, name := range []string{"schema1.json", "schema2.json", "schema3.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "baselines", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := baselines.Decode(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(b.Seconds) > 20000 {
			return // the budget is an hour's run; a fuzzed day would only be slow
		}
		parsePage(t, RenderRun(&Run{Title: "fuzz", Jobs: []RunJob{{Baseline: b}}}))
		rep := regress.Compare(b, b, regress.Config{})
		parsePage(t, RenderDiff("fuzz", &Diff{Base: b, Current: b, Report: rep}))
	})
}
