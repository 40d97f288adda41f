package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

// resultFromFio rebuilds each job of a recorded fio json+ output as a
// JobResult: the clat histograms from the bins, total_ios per direction.
// It stops the test (FailNow) on an error.
func resultFromFio(t *testing.T, doc map[string]any, jobs []workload.Job) *workload.Result {
	t.Helper()
	res := &workload.Result{}
	for i := range at(doc, "jobs").([]any) {
		fj := at(doc, "jobs", strconv.Itoa(i))
		k := 0 // the job file's section this fio job is a clone of
		for n := i; n >= jobs[k].NumJobs; k++ {
			n -= jobs[k].NumJobs
		}
		jr := workload.NewJobResult(jobs[k], 0, latency.FioLayout)
		for d := range workload.NumDirs {
			dir := at(fj, d.String())
			jr.Dirs[d].IOs = uint64(at(dir, "total_ios").(float64))
			bins, _ := at(dir, "clat_ns", "bins").(map[string]any)
			for key, c := range bins {
				v, err := strconv.ParseUint(key, 10, 64)
				require.NoError(t, err)
				jr.Dirs[d].Clat.AddBin(v, uint64(c.(float64)))
			}
		}
		res.Jobs = append(res.Jobs, jr)
	}
	return res
}

// latency_ns, latency_us and latency_ms are fio's shares of completion
// latency (clat, not lat: fio's lat of the same run reaches into µs)
// against fio 3.33's own figures for the same clat values. The recorded
// null-engine run has all its bins away from the range edges, so the
// bucket values stand in exactly for the values.
func TestFioLatencyRangesMatchFio(t *testing.T) {
	fio := fioRecorded(t, "global-null.json")
	jobs := readFioJob(t, "global-null.fio", "")
	ours := ourFioJSON(t, resultFromFio(t, fio, jobs), fioout.FormatJSON)
	require.Len(t, at(ours, "jobs"), 3)
	for i := range 3 {
		job := strconv.Itoa(i)
		for _, k := range []string{"latency_ns", "latency_us", "latency_ms"} {
			require.NotNil(t, at(fio, "jobs", job, k))
			assert.Equal(t, at(fio, "jobs", job, k), at(ours, "jobs", job, k), "job %d %s", i, k)
		}
	}
}

// majf and minf are the job thread's page faults: the mmap engine
// touches its mapping from the job's thread, so a read of 4 MiB takes
// minor faults (fio 3.33 for the same job: majf=0 minf=33, 65 with thread).
func TestFioFaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, make([]byte, 4<<20), 0o644))
	res, err := Run(context.Background(), workload.Job{Name: "mm", Engine: "mmap", RW: workload.Read, BlockSize: 4096, Filename: file, Size: 4 << 20}, workload.Options{})
	require.NoError(t, err)
	jr := res.Jobs[0]
	require.Greater(t, jr.MinFlt, uint64(0), "minor faults of the mapping")
	t.Logf("majf=%d minf=%d", jr.MajFlt, jr.MinFlt)
	doc := ourFioJSON(t, res, fioout.FormatJSON)
	assert.Equal(t, float64(jr.MinFlt), at(doc, "jobs", "0", "minf"))
	assert.Equal(t, float64(jr.MajFlt), at(doc, "jobs", "0", "majf"))
	var sum bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&sum, res))
	assert.Contains(t, sum.String(), ", minf="+strconv.FormatUint(jr.MinFlt, 10)+"\n")
}

// With continue_on_error fio adds "total_err" and "first_error" after the
// latency ranges (fio 3.33's recorded keys for the same command line),
// from the errors the job went on after.
func TestFioContinueOnErrorMembers(t *testing.T) {
	args, err := os.ReadFile(filepath.Join("testdata", "fio333", "coe-null.args"))
	require.NoError(t, err)
	jobs, given, err := fiojob.Parse(nil, "", fiojob.Config{Args: strings.Fields(string(args))})
	require.NoError(t, err)
	jr := workload.NewJobResult(jobs[0], 0, latency.FioLayout)
	jr.ErrnoCounts = map[int]uint64{5: 2, 28: 1}
	jr.FirstErrors = []workload.IOError{{Op: "write", Errno: 28}, {Op: "write", Errno: 5}}
	var buf bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&buf, &workload.Result{Jobs: []*workload.JobResult{jr}, FioOptions: given}, fioout.FormatJSON, time.Unix(0, 0)))
	fioOut, err := os.ReadFile(filepath.Join("testdata", "fio333", "coe-null.json"))
	require.NoError(t, err)
	want := jsonKeyLists(t, fioOut)["jobs.0"]
	got := jsonKeyLists(t, buf.Bytes())["jobs.0"]
	assert.Equal(t, want, got[:len(got)-1])
	doc := jsonDoc(t, buf.Bytes())
	assert.Equal(t, 3.0, at(doc, "jobs", "0", "total_err"))
	assert.Equal(t, 28.0, at(doc, "jobs", "0", "first_error"))
	assert.Equal(t, at(fioRecorded(t, "coe-null.json"), "jobs", "0", "job options"), at(doc, "jobs", "0", "job options"))
}

// The normal output's description and latency target lines, as fio 3.33
// printed them for a described job of iodepth 1 without a latency
// target: "  Description  : [first job]" under the job's header and
// "     latency   : target=0, window=0, percentile=100.00%, depth=1".
func TestFioSummaryDescriptionAndLatencyTarget(t *testing.T) {
	jr := workload.NewJobResult(workload.Job{Name: "a", Description: "first job", IODepth: 1}, 0, latency.FioLayout)
	sum := summary(t, jr)
	assert.Contains(t, sum, "\n  Description  : [first job]\n")
	assert.Contains(t, sum, "\n     latency   : target=0, window=0, percentile=100.00%, depth=1\n")
	doc := ourFioJSON(t, &workload.Result{Jobs: []*workload.JobResult{jr}}, fioout.FormatJSON)
	for k, v := range map[string]any{"desc": "first job", "latency_depth": 1.0, "latency_target": 0.0, "latency_percentile": 100.0, "latency_window": 0.0} {
		assert.Equal(t, v, at(doc, "jobs", "0", k), k)
	}
}
