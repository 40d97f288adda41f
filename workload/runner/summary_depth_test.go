package runner

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// The summary has fio's IO depths, submit, complete and issued rwts lines
// before the latency target line, in fio 3.33's layout (its recorded
// output of the same job), and the issued totals are the job's I/Os: for
// this randrw job fio's own, as the mix draws as fio's does.
// testdata/fio333/depths.normal is fio's output of
// fio --name=depths --ioengine=null --size=16m --iodepth=8 --rw=randrw.
func TestSummaryDepthLines(t *testing.T) {
	rec, err := os.ReadFile("testdata/fio333/depths.normal")
	require.NoError(t, err)
	block := func(s string) []string {
		var out []string
		in := false
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "  IO depths    :") {
				in = true
			}
			if in {
				out = append(out, l)
			}
			if in && strings.HasPrefix(l, "     latency   :") {
				break
			}
		}
		return out
	}
	want := block(string(rec))
	require.Len(t, want, 5, "fio's recorded block")

	job := workload.Job{Name: "depths", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 16 << 20, IODepth: 8}
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, fioout.WriteSummary(&b, res))
	got := block(b.String())
	require.Len(t, got, len(want), b.String())
	num := regexp.MustCompile(`=[0-9.,]+`)
	for i := range want {
		assert.Equal(t, num.ReplaceAllString(want[i], "=N"), num.ReplaceAllString(got[i], "=N"), "line %d", i)
	}
	assert.Equal(t, want[3], got[3], "issued rwts")
}
