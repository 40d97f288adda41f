package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/iostat"
	"stortest.dev/latency"
	"stortest.dev/workload/validate"
)

// The command README's quick start gives: no arguments, the default job
// on a scratch target, output fio's percentile tools read.
func TestRunDefaultJob(t *testing.T) {
	testenv.SkipShort(t, "runs the 10 s default job")
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress", "off", "--output-format", "json+", "--scratch-size", "64m"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	out, err := latency.ReadFio(&stdout, "stdout")
	require.NoError(t, err)
	require.Len(t, out.Jobs, 1)
	j := out.Jobs[0]
	assert.Equal(t, "randread-4k-qd32", j.Name)
	require.NotNil(t, j.Read.Clat)
	assert.Greater(t, j.Read.Clat.N, uint64(1000), "a 10 s run at depth 32 does thousands of reads")
	assert.Positive(t, j.Read.Slat.N, "io_uring reports submission latency")
	h, err := j.Read.Clat.Histogram(latency.FioLayout)
	require.NoError(t, err)
	for _, pv := range j.Read.Clat.Percentile {
		assert.Equal(t, pv.Value, h.Percentile(pv.P))
	}
	// The scratch file is gone, and no loop device still uses it (other
	// packages' tests may hold loop devices of their own meanwhile).
	m := regexp.MustCompile(`over (\S+stortest-scratch-\S+\.img)`).FindStringSubmatch(stderr.String())
	if os.Geteuid() == 0 {
		require.NotNil(t, m, "stderr names the loop device's backing file: %s", stderr.String())
		_, err := os.Stat(m[1])
		assert.True(t, os.IsNotExist(err), "scratch file %s removed: %v", m[1], err)
		files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
		for _, f := range files {
			b, _ := os.ReadFile(f)
			assert.NotContains(t, string(b), m[1], "%s: still attached", f)
		}
	}
}

func TestRunJobFileAndArgs(t *testing.T) {
	dir := t.TempDir()
	jobFile := filepath.Join(dir, "j.fio")
	require.NoError(t, os.WriteFile(jobFile, []byte(`[global]
ioengine=psync
bs=4k
size=2m
filename=`+filepath.Join(dir, "data")+`

[reader]
rw=randread

[writer]
rw=write
offset=0
`), 0o644))
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress=off", "--output-format=json", jobFile}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	out, err := latency.ReadFio(&stdout, "stdout")
	require.NoError(t, err)
	require.Len(t, out.Jobs, 2)
	assert.Equal(t, "reader", out.Jobs[0].Name)
	assert.Equal(t, uint64(512), out.Jobs[0].Read.Clat.N)
	assert.Equal(t, uint64(512), out.Jobs[1].Write.Clat.N)
	assert.Empty(t, out.Jobs[0].Read.Clat.Bins, "plain json has no bins")

	stdout.Reset()
	code = runMain([]string{"run", "--progress=off", "--name=cli", "--rw=read", "--bs=8k", "--size=1m",
		"--ioengine=sync", "--filename=" + filepath.Join(dir, "data")}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "cli: (clone=0, engine=sync")
	assert.Contains(t, stdout.String(), "read: IOPS=")
}

// fio's steady-state options stop a job early; --ss-continue runs it out.
func TestRunSteadyState(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--progress=off", "--output-format=json", "--name=ss", "--rw=randread",
		"--ioengine=psync", "--size=4m", "--filename=" + filepath.Join(dir, "d"), "--runtime=20s", "--time_based",
		"--rate_iops=500", "--steadystate=iops:10%", "--ss_dur=2s"}
	for _, cont := range []bool{false, true} {
		a := args
		if cont {
			a = append(append([]string{}, args...), "--ss-continue", "--runtime=3s")
		}
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, runMain(a, &stdout, &stderr), "stderr: %s", stderr.String())
		var doc struct {
			Jobs []struct {
				JobRuntime int64 `json:"job_runtime"`
				SS         struct {
					Attained int `json:"attained"`
				} `json:"steadystate"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc))
		require.Len(t, doc.Jobs, 1)
		assert.Equal(t, 1, doc.Jobs[0].SS.Attained)
		if cont {
			assert.InDelta(t, 3000, doc.Jobs[0].JobRuntime, 300, "continues to the runtime")
		} else {
			assert.Less(t, doc.Jobs[0].JobRuntime, int64(5000), "stops at steady state, long before 20 s")
		}
	}
}

func TestRunErrors(t *testing.T) {
	cases := []cliCase{
		{"unknown-option", []string{"run", "--name=x", "--rw=read", "--nonsense=1"}, 1, "nonsense"},
		{"bad-format", []string{"run", "--output-format=xml"}, 2, "--output-format"},
		{"missing-file", []string{"run", "/nonexistent/job.fio"}, 1, "no such file"},
		{"two-files", []string{"run", "a.fio", "--name=x", "b.fio"}, 2, "give one job file"},
	}
	runCLICases(t, cases)
}

// verify with time_based on a write-only job: nothing is read back, as in
// fio 3.33, and the run says so with fio's words where fio does, at the
// head of its output (stdout, or the --output file before the JSON,
// which readers skip), leaving stderr empty; it still succeeds, as fio's
// does.
func TestRunVerifyTimeBasedWarns(t *testing.T) {
	args := []string{"run", "--progress=off", "--name=vtb", "--rw=write", "--bs=4k", "--size=1m",
		"--ioengine=psync", "--verify=crc32c", "--time_based", "--runtime=200ms",
		"--filename=" + filepath.Join(t.TempDir(), "data")}
	notice := "stortest: job vtb: " + validate.FioVerifyNeverStarts + "\n"
	var stdout, stderr bytes.Buffer
	code := runMain(args, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.True(t, strings.HasPrefix(stdout.String(), notice), "stdout: %s", stdout.String())
	assert.Empty(t, stderr.String())

	stdout.Reset()
	out := filepath.Join(t.TempDir(), "out.json")
	code = runMain(append(args, "--output-format=json", "--output="+out), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Empty(t, stdout.String()+stderr.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), notice+"{"), "%s", data)
	_, err = baselines.ImportFio(bytes.NewReader(data), out)
	require.NoError(t, err, "the notice is skipped as fio's are")
}

// disk_util reports the device under the job's file over the run, as
// fio does: its reads include the job's direct reads.
func TestRunDiskUtil(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.WriteFile(data, make([]byte, 1<<20), 0o644))
	res, err := iostat.DefaultFS().Resolve(data)
	if err != nil {
		t.Skipf("the device under %s: %v", dir, err)
	}
	out := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress=off", "--name=du", "--rw=randread", "--bs=4k", "--size=1m",
		"--ioengine=psync", "--direct=1", "--filename=" + data, "--output-format=json", "--output=" + out}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		Jobs []struct {
			Read struct {
				TotalIOs uint64 `json:"total_ios"`
			} `json:"read"`
		} `json:"jobs"`
		DiskUtil []struct {
			Name    string  `json:"name"`
			ReadIOs uint64  `json:"read_ios"`
			Util    float64 `json:"util"`
		} `json:"disk_util"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.DiskUtil, 1, "%s", b)
	du := doc.DiskUtil[0]
	assert.Equal(t, res.Device, du.Name)
	assert.GreaterOrEqual(t, du.ReadIOs, doc.Jobs[0].Read.TotalIOs, "the device saw the job's direct reads")
	assert.True(t, du.Util > 0 && du.Util <= 100, "util %v", du.Util)
}

// An empty filename= is refused as fio 3.33 refuses it, on the command
// line and in a job file (also when an unset ${NAME} empties it), before
// anything is written: it used to run on fio's default ./j.0.0 and leave
// that file behind.
func TestRunRefusesEmptyFilename(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	job := filepath.Join(dir, "e.fio")
	require.NoError(t, os.WriteFile(job, []byte("[j]\nrw=read\nsize=16m\nfilename=${STORTEST_TEST_NEVER_SET}\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--progress=off", "--name=j", "--rw=read", "--size=16m", "--filename="},
			`args[3]: job "j": filename: requires an argument (fio: "option filename requires an argument")`},
		{[]string{"run", "--progress=off", "e.fio"},
			`e.fio:4: job "j": filename: an empty value, which fio refuses ("failed parsing filename=${STORTEST_TEST_NEVER_SET}"); ${STORTEST_TEST_NEVER_SET} is not set`},
	} {
		var stdout, stderr bytes.Buffer
		code := runMain(c.args, &stdout, &stderr)
		assert.Equal(t, 1, code, "%q: stderr %s", c.args, stderr.String())
		assert.Contains(t, stderr.String(), c.want, "%q", c.args)
		left, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, left, 1, "%q: files left beside the job file", c.args)
	}
}

func TestRunHelpExitsZero(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"run", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("stortest run --help exited %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "usage: stortest run ") {
		t.Errorf("stdout %q, want the usage", out.String())
	}
}

// fio applies job options given beside a job file as defaults of its
// jobs, which the file overrides: `fio --runtime=3 --time_based a.fio`
// runs a job without runtime for 3 s and one with runtime=1 for 1 s.
func TestRunJobOptionsBesideAJobFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.fio")
	if err := os.WriteFile(file, []byte("[global]\nioengine=null\nsize=1g\n[a]\n[b]\nruntime=100ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"run", "--max-jobs=16", "--runtime", "300ms", "--time_based", "--output-format=json", file}
	if code := runMain(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Jobs []struct {
			Name    string `json:"jobname"`
			Runtime int64  `json:"job_runtime"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a": 300, "b": 100}
	for _, j := range doc.Jobs {
		if j.Runtime < want[j.Name] || j.Runtime > want[j.Name]+50 {
			t.Errorf("job %s ran %d ms, want %d", j.Name, j.Runtime, want[j.Name])
		}
	}
	errb.Reset()
	if code := runMain([]string{"run", "--donorname=x", file}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "args[0]: fio option donorname (ioengine e4defrag) is not supported by stortest") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// stortest run prints the options as given, as fio 3.33 does for the
// same job file and command line: "global options" holds the command
// line's then the [global] section's, "job options" the job's own
// section's (fio printed {"runtime":"1","ioengine":"null","size":"1m",
// "bs":"4k"} and {"rw":"read","description":"first job"}).
func TestRunJSONGivenOptions(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	job := filepath.Join(dir, "g.fio")
	require.NoError(t, os.WriteFile(job, []byte("[global]\nioengine=null\nsize=1m\nbs=4k\nthread\n\n[a]\nrw=read\ndescription=first job\n"), 0o644))
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"run", "--progress=off", "--output-format=json", "--runtime=1", job}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	var doc struct {
		Global map[string]string `json:"global options"`
		Jobs   []struct {
			Options map[string]string `json:"job options"`
			Desc    string            `json:"desc"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc))
	assert.Equal(t, map[string]string{"runtime": "1", "ioengine": "null", "size": "1m", "bs": "4k"}, doc.Global)
	require.Len(t, doc.Jobs, 1)
	assert.Equal(t, map[string]string{"rw": "read", "description": "first job"}, doc.Jobs[0].Options)
	assert.Equal(t, "first job", doc.Jobs[0].Desc)
}

// --faults injects errors into the run; with continue_on_error the run
// goes on and the summary reports each failure with its offset.
func TestRunFaults(t *testing.T) {
	target := filepath.Join(t.TempDir(), "f")
	args := []string{"run", "--progress", "off", "--faults", "err_at=40k+4k:80k+4k,latency=100us",
		"--name=faulty", "--filename=" + target, "--size=1m", "--rw=read", "--ioengine=psync", "--continue_on_error=read"}
	var stdout, stderr bytes.Buffer
	code := runMain(args, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "injecting faults: err_at=40960+4096:81920+4096,latency=100µs")
	out := stdout.String()
	assert.Contains(t, out, "err= 5")
	assert.Contains(t, out, "errors=2 short=0")
	assert.Contains(t, out, "io error: read of 4096 bytes at offset 40960")
	assert.Contains(t, out, "io error: read of 4096 bytes at offset 81920")
	assert.Contains(t, out, "injected fault")

	// Without continue_on_error the first failure fails the command.
	stdout.Reset()
	stderr.Reset()
	code = runMain(args[:len(args)-1], &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "read of 4096 bytes at offset 40960")

	// A bad spec is a usage error.
	stderr.Reset()
	code = runMain([]string{"run", "--faults", "err_rate=2", "--name=x", "--filename=" + target}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "--faults")
}
