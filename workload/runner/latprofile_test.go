package runner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/engines"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

// fio's examples/latency-profile.fio parses into the search's fields, and
// the job prints and parses back the same.
func TestLatencyOptionsParse(t *testing.T) {
	jobs := readFioJob(t, "latency-profile.fio", "/dev/loop9")
	require.Len(t, jobs, 1)
	j := jobs[0]
	assert.Equal(t, 500*time.Millisecond, j.LatencyTarget)
	assert.Equal(t, 5*time.Second, j.LatencyWindow)
	assert.Equal(t, 99.9, j.LatencyPercentile)
	assert.False(t, j.LatencyRun)
	assert.Equal(t, 128, j.IODepth)

	in := "[a]\nlatency_target=2ms\nlatency_window=100ms\nlatency_run\nmax_latency=10ms,20ms\n"
	jobs, err := parseFile(strings.NewReader(in), "t.fio")
	require.NoError(t, err)
	j = jobs[0]
	assert.Equal(t, 2*time.Millisecond, j.LatencyTarget)
	assert.Equal(t, 100*time.Millisecond, j.LatencyWindow)
	assert.True(t, j.LatencyRun)
	assert.Equal(t, 100.0, j.TargetPercentile(), "the default")
	assert.Equal(t, [workload.NumDirs]time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}, j.MaxLatency)

	back, err := parseFile(strings.NewReader(fiojob.Format(j)), "back.fio")
	require.NoError(t, err, "job:\n%s", fiojob.Format(j))
	assert.Equal(t, j.LatencyLimits, back[0].LatencyLimits, "round trip through\n%s", fiojob.Format(j))
}

// depthJob is a null-engine job whose device (Faults.DepthLatency, 10 ms
// per unit in flight, virtual so that no time passes) meets a 105 ms
// target at depth 10 and no deeper.
func depthJob(pct float64) (workload.Job, workload.Options) {
	job := workload.Job{Name: "lat", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: 1 << 30, IODepth: 32,
		Runtime: time.Minute, TimeBased: true,
		LatencyLimits: workload.LatencyLimits{LatencyTarget: 105 * time.Millisecond, LatencyWindow: 100 * time.Millisecond, LatencyPercentile: pct}}
	return job, workload.Options{Faults: &engines.Faults{DepthLatency: 10 * time.Millisecond, Virtual: true}}
}

// The search doubles to 16, fails there and at 12 (every I/O late),
// passes at 10, fails at 11, passes at 10 again and settles: the final
// window is measured at depth 10 alone, and the job ends long before its
// minute.
func TestLatencyTargetFindsDepth(t *testing.T) {
	job, opts := depthJob(99)
	start := time.Now()
	r := runJob(t, job, opts)
	require.NoError(t, r.Err)
	assert.Less(t, time.Since(start), 30*time.Second, "the search ends the job")
	assert.Equal(t, 10, r.LatencyDepth)
	lat := r.Dirs[workload.DirRead].Lat
	require.NotZero(t, lat.Count())
	// Only the final window's I/Os: most took 10 x 10 ms (the bucket's
	// midpoint is within 1 ms), none was in flight at a deeper queue.
	p90 := lat.Percentile(90)
	assert.GreaterOrEqual(t, p90, uint64(99*time.Millisecond))
	assert.Less(t, p90, uint64(105*time.Millisecond), "p90 lat %v", time.Duration(p90))
	assert.GreaterOrEqual(t, r.Runtime, job.LatencyWindow)
	assert.Less(t, r.Runtime, 20*time.Second)
	assert.Zero(t, r.Depths.Level[workload.LevelBucket(16)], "no depth above 10 in the final window")

	assert.Contains(t, summary(t, r), "     latency   : target=105000000, window=100000, percentile=99.00%, depth=10\n")
}

// latency_run keeps adjusting: the job runs its whole runtime and ends at
// a depth that meets the target.
func TestLatencyRunKeepsGoing(t *testing.T) {
	job, opts := depthJob(99)
	job.LatencyRun = true
	job.Runtime = 2 * time.Second // 20 windows: settled at 10 by the 9th
	r := runJob(t, job, opts)
	require.NoError(t, r.Err)
	assert.GreaterOrEqual(t, r.Runtime, 1900*time.Millisecond)
	// At 10 it probes 11 every third window, and comes back.
	assert.GreaterOrEqual(t, r.LatencyDepth, 10)
	assert.LessOrEqual(t, r.LatencyDepth, 11)
}

// With latency_percentile=100 every late I/O lowers the depth at once;
// at depth 1 a late I/O fails the job with ETIMEDOUT, as fio does.
func TestLatencyTargetFailsAtDepthOne(t *testing.T) {
	job, opts := depthJob(0)
	job.LatencyTarget = 5 * time.Millisecond // depth 1 takes 10 ms
	r := runJob(t, job, opts)
	require.Error(t, r.Err)
	assert.ErrorIs(t, r.Err, syscall.ETIMEDOUT)
	assert.Contains(t, r.Err.Error(), "exceeds specified max (5000000 nsec)")
	assert.Equal(t, 1, r.LatencyDepth)
	assert.Equal(t, uint64(1), r.Dirs[workload.DirRead].IOs, "the first I/O ends the job")
}

// max_latency: the first read over the limit fails the job with error 110
// after one I/O, as fio 3.33 does (testdata/fio333/max-latency.*), with
// fio's message.
func TestMaxLatencyFailsJobAsFio(t *testing.T) {
	target := fileTarget(t, 4<<20)
	jobs := readFioJob(t, "max-latency.fio", target.Path)
	// Under 1 µs is possible on a cached file: a virtual 1 ms makes every
	// read late whatever the machine.
	res, err := RunJobs(context.Background(), jobs, workload.Options{Faults: &engines.Faults{Latency: time.Millisecond, Virtual: true}})
	require.NoError(t, err)
	r := res.Jobs[0]
	require.Error(t, r.Err)
	var le *LatencyError
	require.ErrorAs(t, r.Err, &le)
	assert.Equal(t, time.Microsecond, le.Max)
	assert.Regexp(t, `^latency of \d+ nsec exceeds specified max \(1000 nsec\): .*/\S+ read \d+ 4096$`, r.Err.Error())

	fio := at(fioRecorded(t, "max-latency.json"), "jobs", "0")
	ours := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0")
	for _, path := range [][]string{{"error"}, {"read", "total_ios"}, {"read", "io_bytes"}, {"latency_depth"}, {"latency_target"}, {"latency_percentile"}, {"latency_window"}} {
		assert.Equal(t, at(fio, path...), at(ours, path...), "%v", path)
	}
	var b bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&b, res))
	assert.Contains(t, b.String(), "err=110")
}

// The JSON keys: fio's names, values and place (after latency_ms, before
// the steady state), for the depth found as for a job without a target.
func TestLatencyJSONMatchesFio(t *testing.T) {
	jobs := readFioJob(t, "latency-profile.fio", "/dev/loop9")
	r := workload.NewJobResult(jobs[0].Normalized(), 0, latency.FioLayout)
	r.LatencyDepth = 80
	res := &workload.Result{Jobs: []*workload.JobResult{r}}
	fio := at(fioRecorded(t, "latency-profile.json"), "jobs", "0")
	ours := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0")
	keys := []string{"latency_depth", "latency_target", "latency_percentile", "latency_window"}
	for _, k := range keys {
		assert.Equal(t, at(fio, k), at(ours, k), k)
	}
	assert.Equal(t, 500000000.0, at(ours, "latency_target"), "ns, as fio prints it")
	assert.Equal(t, 5000000.0, at(ours, "latency_window"), "µs, as fio prints it")

	// Order: the keys both documents have come in the same order.
	fioKeys := jobKeyOrder(t, filepath.Join("testdata", "fio333", "latency-profile.json"), nil)
	var buf bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&buf, res, fioout.FormatJSON, time.Unix(1700000000, 0)))
	ourKeys := jobKeyOrder(t, "", buf.Bytes())
	common := func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(k string) bool { return !slices.Contains(b, k) })
	}
	assert.Equal(t, common(fioKeys, ourKeys), common(ourKeys, fioKeys))
	i := slices.Index(ourKeys, "latency_depth")
	require.GreaterOrEqual(t, i, 1)
	assert.Equal(t, "latency_ms", ourKeys[i-1], "after the latency ranges, as fio")
	assert.Equal(t, keys, ourKeys[i:i+4])

	// The normal output line of the depth found, as fio prints it.
	normal, err := os.ReadFile(filepath.Join("testdata", "fio333", "latency-profile.normal"))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&b, res))
	const line = "     latency   : target=500000000, window=5000000, percentile=99.90%, depth=80\n"
	assert.Contains(t, string(normal), line)
	assert.Contains(t, b.String(), line)

	// A job without a target: its iodepth, 0, 100, 0 (fio's null run).
	plain := workload.NewJobResult(workload.Job{Name: "x", Engine: "null", RW: workload.Read, Size: 1 << 20}.Normalized(), 0, latency.FioLayout)
	o := at(ourFioJSON(t, &workload.Result{Jobs: []*workload.JobResult{plain}}, fioout.FormatJSON), "jobs", "0")
	for k, want := range map[string]float64{"latency_depth": 1, "latency_target": 0, "latency_percentile": 100, "latency_window": 0} {
		assert.Equal(t, want, at(o, k), k)
	}
}

// jobKeyOrder returns the keys of the first job object of a fio JSON
// document (file, or b when file is ""), in order; it stops the test
// (FailNow) on an error.
func jobKeyOrder(t *testing.T, file string, b []byte) []string {
	t.Helper()
	if file != "" {
		var err error
		b, err = os.ReadFile(file)
		require.NoError(t, err)
	}
	var doc struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.NotEmpty(t, doc.Jobs)
	dec := json.NewDecoder(bytes.NewReader(doc.Jobs[0]))
	_, err := dec.Token() // {
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// The depth search allocates nothing per I/O: a job whose device meets
// the target at depth 2 only (the search going up and down every 200 µs,
// draining the queue each time it goes down, for the whole run) allocates as much for
// 409,600 I/Os as for 256, give or take the per-second samples.
func TestLatencyTargetAllocationsPerIO(t *testing.T) {
	var depth int
	allocs := func(size int64, loops int) float64 {
		job := workload.Job{Name: "null", Engine: "null", RW: workload.RandRead, BlockSize: 4096, Size: size, Loops: loops, IODepth: 8,
			LatencyLimits: workload.LatencyLimits{LatencyTarget: 2500 * time.Microsecond, LatencyWindow: 200 * time.Microsecond,
				LatencyPercentile: 90, LatencyRun: true,
				MaxLatency: [workload.NumDirs]time.Duration{time.Hour, time.Hour, time.Hour}}}
		opts := workload.Options{Faults: &engines.Faults{DepthLatency: time.Millisecond, Virtual: true}}
		return testing.AllocsPerRun(1, func() {
			res, err := Run(context.Background(), job, opts)
			require.NoError(t, err)
			require.NoError(t, res.Jobs[0].Err)
			depth = res.Jobs[0].LatencyDepth
		})
	}
	small, many := allocs(1<<20, 1), allocs(64<<20, 25)
	assert.LessOrEqual(t, depth, 3, "the search held the depth down")
	perIO := (many - small) / float64(25*16384-256)
	t.Logf("allocations: %v for 256 I/Os, %v for 409600: %.6f per I/O", small, many, perIO)
	assert.Less(t, perIO, 0.001)
}

// The search moves as fio's does: fed the pass and fail verdicts of a
// recorded fio run (its --debug=rate lines), it goes through the same
// depths (low, depth, high after each step), starts the final window and
// ends where fio did.
func TestLatencySearchFollowsFio(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "fio333", "latency-profile.rate"))
	require.NoError(t, err)
	jobs := readFioJob(t, "latency-profile.fio", "/dev/loop9")
	l := newLatTarget(&jobs[0])
	l.init(0)
	steps := 0
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var got, want [3]int
		var rate, target float64
		switch {
		case strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "Success rate:"):
			_, err := fmt.Sscanf(line, "Success rate: %f%% (target %f%%)", &rate, &target)
			require.NoError(t, err, "line %d", n+1)
			require.Equal(t, l.pct, target)
			require.False(t, l.done, "line %d: done too early", n+1)
			l.quiesce, l.reset = false, false // the runner drains between windows
			if rate >= target {
				l.up()
			} else {
				require.False(t, l.down(), "line %d: fails at depth 1", n+1)
			}
			steps++
		case strings.HasPrefix(line, "Ramped up:"), strings.HasPrefix(line, "Ramped down:"):
			_, err := fmt.Sscanf(line[strings.Index(line, ":")+1:], "%d %d %d", &want[0], &want[1], &want[2])
			require.NoError(t, err, "line %d", n+1)
			got = [3]int{l.low, l.qd, l.high}
			require.Equal(t, want, got, "line %d: %s", n+1, line)
		case line == "Quiesce and final run":
			require.True(t, l.endRun && l.reset, "line %d", n+1)
		case line == "We are done":
			require.True(t, l.done, "line %d", n+1)
		default:
			t.Fatalf("line %d: %q", n+1, line)
		}
	}
	assert.Equal(t, 18, steps)
	assert.Equal(t, 78, l.qd)
}

// When the final window passes the runtime ends there, as when a runtime
// runs out: the drain of the units still in flight (at depth 80 on a
// 200 IOPS device, 0.4 s) is not timed, as fio 3.33 does not time it
// (its latency-profile run: 5100 ms, the window and no drain).
func TestLatencyDoneEndsRuntime(t *testing.T) {
	for _, deadline := range []int64{0, 9e9, 4e9} {
		w := &worker{deadline: deadline, lat: &latTarget{qd: 80, done: true, window: 5e9, cycleStart: 1e9}}
		w.latStep(5e9)
		assert.True(t, w.ended)
		assert.Equal(t, min(int64(5e9), cmp.Or(deadline, 5e9)), w.deadline, "deadline %d", deadline)
	}
}
