package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
	"stortest.dev/workload/validate"
)

// Tests of where stortest's figures must equal fio 3.33's. The recorded
// fio outputs under testdata/fio333 come with the job file that made them
// (its first lines say how).

// readFioJob parses the job file testdata/fio333/name with ${TARGET} set
// to target; it stops the test (FailNow) on an error.
func readFioJob(t *testing.T, name, target string) []workload.Job {
	t.Helper()
	t.Setenv("TARGET", target)
	f, err := os.Open(filepath.Join("testdata", "fio333", name))
	require.NoError(t, err)
	defer f.Close()
	jobs, err := parseFile(f, name)
	require.NoError(t, err)
	return jobs
}

// jsonDoc decodes fio's JSON output, skipping the notices fio prints
// before it; it stops the test (FailNow) on an error.
func jsonDoc(t *testing.T, b []byte) map[string]any {
	t.Helper()
	i := bytes.IndexByte(b, '{')
	require.GreaterOrEqual(t, i, 0, "no JSON in %q", b)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b[i:], &doc))
	return doc
}

// fioRecorded decodes testdata/fio333/name; it stops the test (FailNow)
// on an error.
func fioRecorded(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fio333", name))
	require.NoError(t, err)
	return jsonDoc(t, b)
}

// ourFioJSON is res in fio's JSON schema, decoded; it stops the test
// (FailNow) on an error.
func ourFioJSON(t *testing.T, res *workload.Result, format fioout.OutputFormat) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&buf, res, format, time.Unix(1700000000, 0)))
	return jsonDoc(t, buf.Bytes())
}

// keysOf returns the sorted keys of a decoded JSON object (nil for
// anything else).
func keysOf(v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return sortedKeys(m)
}

// fsync=N: fio's "sync" object has total_ios and lat_ns with the
// percentiles (clat_percentiles is on) and, in json+, the bins; the
// count of fsyncs is the same (one before every 8 writes after the
// first 8: 7 for 64 writes).
func TestFioSyncSectionMatchesFio(t *testing.T) {
	target := fileTarget(t, 256<<10)
	jobs := readFioJob(t, "fsync8.fio", target.Path)
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, res.Jobs[0].Err)

	fio := at(fioRecorded(t, "fsync8.json"), "jobs", "0", "sync")
	ours := at(ourFioJSON(t, res, fioout.FormatJSONPlus), "jobs", "0", "sync")
	require.NotNil(t, fio)
	require.NotNil(t, ours)
	assert.Equal(t, keysOf(fio), keysOf(ours), "sync")
	assert.Equal(t, keysOf(at(fio, "lat_ns")), keysOf(at(ours, "lat_ns")), "sync.lat_ns")
	assert.Equal(t, keysOf(at(fio, "lat_ns", "percentile")), keysOf(at(ours, "lat_ns", "percentile")), "sync.lat_ns.percentile")
	assert.Equal(t, at(fio, "total_ios"), at(ours, "total_ios"))
	assert.Equal(t, at(fio, "lat_ns", "N"), at(ours, "lat_ns", "N"))
	var binSum float64
	bins, _ := at(ours, "lat_ns", "bins").(map[string]any)
	for _, c := range bins {
		binSum += c.(float64)
	}
	assert.Equal(t, at(ours, "lat_ns", "N"), binSum, "the bins hold every fsync")

	// Plain JSON: percentiles, no bins, as fio.
	plain := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0", "sync", "lat_ns")
	assert.NotNil(t, at(plain, "percentile"))
	assert.Nil(t, at(plain, "bins"))
}

// A run shorter than 1 ms: fio rounds the runtime up to 1 ms and prints
// iops and bw from it (12 null reads: runtime 1, iops 12000), never the
// zeros a truncated runtime gives.
func TestFioRuntimeUnderOneMsMatchesFio(t *testing.T) {
	jobs := readFioJob(t, "tiny-null.fio", "")
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	// The run takes some µs; pin it so that a slow machine gives the
	// same figures. 1.3 ms shows the rounding is up, not to nearest.
	fio := at(fioRecorded(t, "tiny-null.json"), "jobs", "0", "read")
	for _, rt := range []time.Duration{400 * time.Microsecond, 999*time.Microsecond + 999} {
		res.Jobs[0].Runtime = rt
		ours := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0", "read")
		for _, k := range []string{"io_bytes", "total_ios", "runtime", "iops", "bw_bytes", "bw"} {
			assert.Equal(t, at(fio, k), at(ours, k), "%s at runtime %v", k, rt)
		}
	}
	res.Jobs[0].Runtime = 1300 * time.Microsecond
	ours := at(ourFioJSON(t, res, fioout.FormatJSON), "jobs", "0", "read")
	assert.Equal(t, 2.0, at(ours, "runtime"), "1.3 ms rounds up")
	assert.Equal(t, 6000.0, at(ours, "iops"))

	// The text summary's runtime rounds the same way ("/1msec", as fio's
	// "(48.0KiB/1msec)"), not to "/0msec".
	res.Jobs[0].Runtime = 400 * time.Microsecond
	var sum bytes.Buffer
	require.NoError(t, fioout.WriteSummary(&sum, res))
	assert.Contains(t, sum.String(), "(48KiB/1msec)")
}

// verify with time_based on a write-only job: fio 3.33 writes for the
// whole runtime, reads nothing back and exits 0, with a notice. stortest
// does the same and gives the same notice in Warnings.
func TestFioVerifyTimeBasedMatchesFio(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("testdata", "fio333", "verify-time-based.json"))
	require.NoError(t, err)
	notice, _, _ := bytes.Cut(out, []byte("{"))
	require.Equal(t, "fio: "+validate.FioVerifyNeverStarts+"\n", string(notice), "fio's own words")
	fio := at(fioRecorded(t, "verify-time-based.json"), "jobs", "0")
	require.Equal(t, 0.0, at(fio, "read", "total_ios"), "fio reads nothing back")
	require.Equal(t, 0.0, at(fio, "error"))

	target := fileTarget(t, 1<<20)
	jobs := readFioJob(t, "verify-time-based.fio", target.Path)
	assert.Equal(t, []string{validate.FioVerifyNeverStarts}, validate.Warnings(&jobs[0]))
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	r := res.Jobs[0]
	require.NoError(t, r.Err)
	assert.Positive(t, r.Dirs[workload.DirWrite].IOs)
	assert.Zero(t, r.Dirs[workload.DirRead].IOs)
	assert.Zero(t, r.Verify.Checked)
}

func TestJobWarnings(t *testing.T) {
	base := workload.Job{Name: "w", Engine: "psync", BlockSize: 4096, Size: 1 << 20, Verify: workload.VerifyCRC32C,
		TimeBased: true, Runtime: time.Second}
	mixed := "verify: the writes of a time-based randrw job are not read back (stortest verifies jobs that end with their size)"
	for _, tc := range []struct {
		name string
		edit func(*workload.Job)
		want []string
	}{
		{"write", func(j *workload.Job) { j.RW = workload.Write }, []string{validate.FioVerifyNeverStarts}},
		{"randwrite", func(j *workload.Job) { j.RW = workload.RandWrite }, []string{validate.FioVerifyNeverStarts}},
		{"randrw", func(j *workload.Job) { j.RW = workload.RandRW }, []string{mixed}},
		{"read", func(j *workload.Job) { j.RW = workload.Read }, nil},
		{"not-time-based", func(j *workload.Job) { j.RW, j.TimeBased, j.Runtime = workload.Write, false, 0 }, nil},
		{"no-verify", func(j *workload.Job) { j.RW, j.Verify = workload.Write, workload.VerifyNone }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := base
			tc.edit(&j)
			require.NoError(t, validate.Job(&j))
			assert.Equal(t, tc.want, validate.Warnings(&j))
		})
	}
}

// Synchronous engines: fio records no slat, and its lat exceeds its clat
// by what it does between its two stamps, taken after preparing the unit
// and just before queueing it: mostly the second clock read (fio 3.33:
// 16-20 ns an I/O with null and psync here). stortest prepares the unit
// first too, then does nothing before Queue, and stamps once: lat equals
// clat, I/O by I/O, without a clock read counted in it.
func TestFioSyncEngineLatIsClat(t *testing.T) {
	fio := fioRecorded(t, "lat-sync.json")
	target := fileTarget(t, 8<<20)
	jobs := readFioJob(t, "lat-sync.fio", target.Path)
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	require.Len(t, res.Jobs, 2)
	for i, r := range res.Jobs {
		require.NoError(t, r.Err)
		f := at(fio, "jobs", string(rune('0'+i)), "read")
		require.Equal(t, 0.0, at(f, "slat_ns", "N"), "%s: fio has no slat", r.Name)
		fioGap := at(f, "lat_ns", "mean").(float64) - at(f, "clat_ns", "mean").(float64)
		require.Greater(t, fioGap, 0.0, "%s: fio's lat > clat", r.Name)
		require.Less(t, fioGap, 1e3, "%s: fio's lat - clat is its own time between two stamps, not an I/O's", r.Name)

		s := &r.Dirs[workload.DirRead]
		assert.Zero(t, s.Slat.Count(), "%s: no slat, as fio", r.Name)
		require.Positive(t, s.Clat.Count(), r.Name)
		assert.Equal(t, s.Clat.Count(), s.Lat.Count(), r.Name)
		assert.Equal(t, s.Clat.Min(), s.Lat.Min(), "%s: lat is clat", r.Name)
		assert.Equal(t, s.Clat.Max(), s.Lat.Max(), "%s: lat is clat", r.Name)
		assert.Equal(t, s.Clat.Mean(), s.Lat.Mean(), "%s: lat is clat", r.Name)
		assert.Equal(t, s.Clat.Percentiles(workload.DefaultPercentiles), s.Lat.Percentiles(workload.DefaultPercentiles), "%s: lat is clat", r.Name)
	}
}

// Random I/O with bsrange or bssplit: a pass moves the region's size, as
// fio's random map makes it, not the size times the mean block over the
// smallest. fio 3.33: t0001 reads 19456 bytes; the iometer example with
// size=16m moves 16777216.
func TestFioRandomMixedSizesBytesMatchFio(t *testing.T) {
	for _, name := range []string{"t0001-bsrange", "iometer-16m"} {
		t.Run(name, func(t *testing.T) {
			target := fileTarget(t, 16<<20)
			jobs := readFioJob(t, name+".fio", target.Path)
			// The bytes moved do not depend on O_DIRECT, which a temp
			// dir on tmpfs would refuse.
			jobs[0].Direct = false
			res, err := RunJobs(context.Background(), jobs, workload.Options{})
			require.NoError(t, err)
			r := res.Jobs[0]
			require.NoError(t, r.Err)
			fio := at(fioRecorded(t, name+".json"), "jobs", "0")
			want := at(fio, "read", "io_bytes").(float64) + at(fio, "write", "io_bytes").(float64)
			got := r.Dirs[workload.DirRead].Bytes + r.Dirs[workload.DirWrite].Bytes
			assert.Equal(t, uint64(want), got, "bytes moved")
			t.Logf("%s: %d bytes in %d I/Os; fio %.0f in %.0f", name, got, r.Dirs[workload.DirRead].IOs+r.Dirs[workload.DirWrite].IOs,
				want, at(fio, "read", "total_ios").(float64)+at(fio, "write", "total_ios").(float64))
		})
	}
}
