package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/fioout"
)

// The job's CPU is printed as fio 3.33 prints it (its recorded output of
// the same job, testdata/fio333/cpu-null.*): in the JSON, usr_cpu and
// sys_cpu as percentages of job_runtime with six decimals, then ctx,
// majf and minf as integers, between job_runtime and iodepth_level; in
// the summary, fio's "cpu" line. The stortest object adds the exact
// nanoseconds and the CPU per I/O, which agree with them.
func TestCPUAsFio333(t *testing.T) {
	args, err := os.ReadFile(filepath.Join("testdata", "fio333", "cpu-null.args"))
	require.NoError(t, err)
	var jobArgs []string
	for _, a := range strings.Fields(string(args)) {
		switch {
		case strings.HasPrefix(a, "--output-format="):
		case strings.HasPrefix(a, "--runtime="):
			jobArgs = append(jobArgs, "--runtime=300ms") // the shape is what is compared
		default:
			jobArgs = append(jobArgs, a)
		}
	}
	jobs, _, err := fiojob.Parse(nil, "", fiojob.Config{Args: jobArgs})
	require.NoError(t, err)
	res, err := Run(context.Background(), jobs[0], workload.Options{})
	require.NoError(t, err)
	j := res.Jobs[0]

	fioJSON, err := os.ReadFile(filepath.Join("testdata", "fio333", "cpu-null.json"))
	require.NoError(t, err)
	var ours bytes.Buffer
	require.NoError(t, fioout.WriteFioJSON(&ours, res, fioout.FormatJSON, time.Unix(1700000000, 0)))

	// Order: the five fields follow job_runtime and precede
	// iodepth_level in both.
	cpuKeys := []string{"job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "iodepth_level"}
	for _, doc := range []struct {
		name string
		keys []string
	}{{"fio", jobKeyOrder(t, "", fioJSON)}, {"stortest", jobKeyOrder(t, "", ours.Bytes())}} {
		i := slices.Index(doc.keys, "job_runtime")
		require.GreaterOrEqual(t, i, 0, doc.name)
		require.LessOrEqual(t, i+len(cpuKeys), len(doc.keys), doc.name)
		assert.Equal(t, cpuKeys, doc.keys[i:i+len(cpuKeys)], doc.name)
	}
	// Shape: how each value is written, as fio writes it.
	shapes := map[string]*regexp.Regexp{
		"usr_cpu": regexp.MustCompile(`^[0-9]+\.[0-9]{6}$`),
		"sys_cpu": regexp.MustCompile(`^[0-9]+\.[0-9]{6}$`),
		"ctx":     regexp.MustCompile(`^[0-9]+$`),
		"majf":    regexp.MustCompile(`^[0-9]+$`),
		"minf":    regexp.MustCompile(`^[0-9]+$`),
	}
	for k, re := range shapes {
		for _, doc := range []struct {
			name string
			b    []byte
		}{{"fio", fioJSON}, {"stortest", ours.Bytes()}} {
			v := rawJobValue(t, doc.b, k)
			assert.Regexp(t, re, v, "%s %s", doc.name, k)
		}
	}

	// The values: a null job's thread is busy for its runtime, in user
	// space mostly; the stortest object's exact figures are the same.
	doc := jsonDoc(t, ours.Bytes())
	usr, sys := num(t, at(doc, "jobs", "0", "usr_cpu")), num(t, at(doc, "jobs", "0", "sys_cpu"))
	assert.Greater(t, usr+sys, 0.0)
	assert.LessOrEqual(t, usr+sys, 101.0, "one thread, as a share of the runtime")
	ext, ok := at(doc, "jobs", "0", "stortest").(map[string]any)
	require.True(t, ok, "the stortest object")
	usrNs, sysNs := num(t, ext["usr_cpu_ns"]), num(t, ext["sys_cpu_ns"])
	assert.Equal(t, float64(j.UsrCPU), usrNs)
	assert.Equal(t, float64(j.SysCPU), sysNs)
	assert.InDelta(t, usr, 100*usrNs/float64(j.Runtime), 1e-5)
	ios := num(t, at(doc, "jobs", "0", "read", "total_ios"))
	require.Positive(t, ios)
	assert.InDelta(t, (usrNs+sysNs)/ios, num(t, ext["cpu_ns_per_io"]), 1e-5)
	assert.InDelta(t, j.CPUPerIO(), num(t, ext["cpu_ns_per_io"]), 1e-5)
	assert.Positive(t, j.CPUPerIO())

	// The summary's line, numbers aside, is fio's.
	normal, err := os.ReadFile(filepath.Join("testdata", "fio333", "cpu-null.normal"))
	require.NoError(t, err)
	var sum strings.Builder
	require.NoError(t, fioout.WriteSummary(&sum, res))
	line := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "  cpu ") {
				return l
			}
		}
		return ""
	}
	fioLine, ourLine := line(string(normal)), line(sum.String())
	require.NotEmpty(t, fioLine)
	num := regexp.MustCompile(`=[0-9]+(\.[0-9]{2}%)?`)
	assert.Equal(t, num.ReplaceAllString(fioLine, "=N"), num.ReplaceAllString(ourLine, "=N"))
	// From the exact figures: the JSON's six decimals rounded again to
	// two can differ in the last digit (1.324999 is 1.325000 there).
	assert.Contains(t, ourLine, fmt.Sprintf("usr=%.2f%%, sys=%.2f%%,", 100*usrNs/float64(j.Runtime), 100*sysNs/float64(j.Runtime)), "the JSON's figures")
	assert.InDelta(t, usr, 100*usrNs/float64(j.Runtime), 5e-7)
	assert.InDelta(t, sys, 100*sysNs/float64(j.Runtime), 5e-7)
}

// rawJobValue returns how the first job object of a fio JSON document
// writes key's value: its text.
func rawJobValue(t *testing.T, b []byte, key string) string {
	t.Helper()
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `"\s*:\s*([^,\n}]+)`)
	i := bytes.Index(b, []byte(`"jobs"`))
	require.GreaterOrEqual(t, i, 0)
	m := re.FindSubmatch(b[i:])
	require.NotNil(t, m, key)
	return strings.TrimSpace(string(m[1]))
}

// num is a JSON number, or stops the test.
func num(t *testing.T, v any) float64 {
	t.Helper()
	f, ok := v.(float64)
	require.True(t, ok, "a number: %v", v)
	return f
}
