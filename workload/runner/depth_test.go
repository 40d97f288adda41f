package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

func TestDepthBuckets(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 7: 2, 8: 3, 16: 4, 31: 4, 32: 5, 63: 5, 64: 6, 1000: 6} {
		assert.Equal(t, want, workload.LevelBucket(n), "LevelBucket(%d)", n)
	}
	for n, want := range map[int]int{0: 0, 1: 1, 4: 1, 5: 2, 8: 2, 9: 3, 16: 3, 17: 4, 32: 4, 33: 5, 64: 5, 65: 6} {
		assert.Equal(t, want, workload.BatchBucket(n), "BatchBucket(%d)", n)
	}
}

// The runner reaps a full queue as fio does: one completion at a time by
// default, iodepth_batch_complete_min at least and _max at most when set,
// and down to iodepth_low before refilling. The depth distributions show
// which happened.
func TestReapPolicy(t *testing.T) {
	target := fileTarget(t, 8<<20)
	base := workload.Job{Name: "reap", Filename: target.Path, Engine: "io_uring", RW: workload.RandRead, BlockSize: 4096,
		IODepth: 8, Runtime: 300 * time.Millisecond, TimeBased: true}
	share := func(c [7]uint64, i int) float64 {
		var total uint64
		for _, n := range c {
			total += n
		}
		require.NotZero(t, total)
		return float64(c[i]) / float64(total)
	}

	t.Run("default: one at a time, queue kept full", func(t *testing.T) {
		jr := runJob(t, base, workload.Options{})
		d := jr.Depths
		ios := jr.Dirs[workload.DirRead].IOs
		require.Greater(t, ios, uint64(1000))
		// Every reap but the final drain takes one completion.
		assert.LessOrEqual(t, d.Complete[0]+d.Complete[2]+d.Complete[3]+d.Complete[4]+d.Complete[5]+d.Complete[6], uint64(1), "%v", d.Complete)
		assert.GreaterOrEqual(t, d.Complete[1], ios-8)
		assert.Greater(t, share(d.Level, workload.LevelBucket(8)), 0.99, "level %v", d.Level)
		assert.Equal(t, 1.0, share(d.Submit, 1), "submit %v", d.Submit)
	})
	t.Run("batches of 4 to 8", func(t *testing.T) {
		job := base
		job.IODepthBatchCompleteMin, job.IODepthBatchCompleteMax = 5, 8
		d := runJob(t, job, workload.Options{}).Depths
		assert.Equal(t, 1.0, share(d.Complete, workload.BatchBucket(8)), "complete %v", d.Complete)
	})
	t.Run("iodepth_low refills from 2", func(t *testing.T) {
		job := base
		job.IODepthLow = 2
		d := runJob(t, job, workload.Options{}).Depths
		// Refills run from depth 3 to 8: each level bucket from 2-3 to 8
		// holds a share of the submits.
		for _, n := range []int{3, 4, 8} {
			assert.Greater(t, share(d.Level, workload.LevelBucket(n)), 0.1, "level %v at depth %d", d.Level, n)
		}
	})

	t.Run("fio JSON", func(t *testing.T) {
		res, err := Run(t.Context(), base, workload.Options{})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSON, time.Unix(1700000000, 0)))
		var doc struct {
			Jobs []struct {
				Level    map[string]float64 `json:"iodepth_level"`
				Submit   map[string]float64 `json:"iodepth_submit"`
				Complete map[string]float64 `json:"iodepth_complete"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
		j := doc.Jobs[0]
		assert.Len(t, j.Level, 7)
		assert.InDelta(t, 100, j.Level["8"], 1)
		assert.Equal(t, 0.1, j.Level["1"], "the first fill passes depth 1: at least 0.1% as fio prints it")
		assert.Equal(t, 100.0, j.Submit["4"])
		assert.InDelta(t, 100, j.Complete["4"], 0.2)
		assert.Equal(t, 0.1, j.Complete["8"], "the final drain")
	})
}

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
