package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
)

// jsonKeyLists returns the keys of every JSON object in b in their order,
// by path ("jobs.0.read.clat_ns"); the text before the first '{' (fio's
// notices) is skipped. It stops the test (FailNow) on bad JSON.
func jsonKeyLists(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	b = b[bytes.IndexByte(b, '{'):]
	out := map[string][]string{}
	var walk func(path string, raw json.RawMessage)
	walk = func(path string, raw json.RawMessage) {
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '{':
			dec := json.NewDecoder(bytes.NewReader(raw))
			_, err := dec.Token()
			require.NoError(t, err)
			keys := []string{}
			for dec.More() {
				tok, err := dec.Token()
				require.NoError(t, err)
				k := tok.(string)
				var v json.RawMessage
				require.NoError(t, dec.Decode(&v))
				keys = append(keys, k)
				walk(path+"."+k, v)
			}
			out[strings.TrimPrefix(path, ".")] = keys
		case len(raw) > 0 && raw[0] == '[':
			var elems []json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &elems))
			for i, e := range elems {
				walk(path+"."+strconv.Itoa(i), e)
			}
		}
	}
	walk("", b)
	return out
}

// stortest's JSON has fio's keys in fio's order, object by object,
// against fio 3.33's json+ output of the same job file (null engine, a
// [global] section, a description, a job of two clones, and a
// command-line option); stortest's own members ("stortest") come last.
// Keys whose names are data (bins, percentiles, latency ranges) are
// compared as the lists they are.
func TestFioJSONKeyOrderMatchesFio(t *testing.T) {
	td, err := filepath.Abs(filepath.Join("testdata", "fio333"))
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	f, err := os.Open(filepath.Join(td, "global-null.fio"))
	require.NoError(t, err)
	jobs, given, err := ParseJobs(f, "global-null.fio", []string{"--runtime=2"})
	f.Close()
	require.NoError(t, err)
	res, err := RunJobs(context.Background(), jobs, Options{})
	require.NoError(t, err)
	res.FioOptions = given
	var buf bytes.Buffer
	require.NoError(t, WriteFioJSON(&buf, res, FormatJSONPlus, res.Jobs[0].Start))
	fioOut, err := os.ReadFile(filepath.Join(td, "global-null.json"))
	require.NoError(t, err)

	fio, ours := jsonKeyLists(t, fioOut), jsonKeyLists(t, buf.Bytes())
	compared := 0
	for path, want := range fio {
		if strings.HasSuffix(path, ".bins") {
			continue // the buckets this run's latencies fell in
		}
		got, ok := ours[path]
		if !assert.True(t, ok, "stortest has no %s", path) {
			continue
		}
		got = slices.DeleteFunc(slices.Clone(got), func(k string) bool { return strings.HasPrefix(k, "stortest") })
		assert.Equal(t, want, got, "keys of %s", path)
		compared++
	}
	assert.Greater(t, compared, 40)
	// fio's own reader of json+ takes the three jobs.
	requireClat2csvValid(t, buf.Bytes(), 3)
	assert.Equal(t, "stortest", ours["jobs.0"][len(ours["jobs.0"])-1])
	for path := range ours {
		if _, ok := fio[path]; !ok && !strings.Contains(path, "stortest") && !strings.HasSuffix(path, ".bins") {
			t.Errorf("stortest prints %s, which fio does not", path)
		}
	}
}

// "global options" and "job options" hold what was given, as fio 3.33
// printed them for the same job file and command-line option: the
// command line's options first, the [global] section's, each job's own
// section only, fio's name for an alias (bs for blocksize), and nothing
// for an option given without a value ("thread").
func TestFioGivenOptionsMatchFio(t *testing.T) {
	fio := fioRecorded(t, "global-null.json")
	f, err := os.Open(filepath.Join("testdata", "fio333", "global-null.fio"))
	require.NoError(t, err)
	jobs, given, err := ParseJobs(f, "global-null.fio", []string{"--runtime=2"})
	f.Close()
	require.NoError(t, err)
	res := resultFromFio(t, fio, jobs)
	for i, jr := range res.Jobs[1:] {
		jr.Clone = i // the two clones of randwrite
	}
	res.FioOptions = given
	ours := ourFioJSON(t, res, FormatJSON)
	require.NotNil(t, at(fio, "global options"))
	assert.Equal(t, at(fio, "global options"), at(ours, "global options"))
	for i := range 3 {
		job := strconv.Itoa(i)
		assert.Equal(t, at(fio, "jobs", job, "job options"), at(ours, "jobs", job, "job options"), "job %d", i)
		assert.Equal(t, at(fio, "jobs", job, "desc"), at(ours, "jobs", job, "desc"), "job %d", i)
	}
	assert.Equal(t, []FioOption{{"runtime", "2"}, {"ioengine", "null"}, {"size", "4m"}, {"bs", "4k"}}, given.Global)
}

// The command-line form: --name starts a job and is one of its options,
// as fio prints it; options before the first --name are global.
func TestFioGivenOptionsCommandLineMatchesFio(t *testing.T) {
	args, err := os.ReadFile(filepath.Join("testdata", "fio333", "cmdline-null.args"))
	require.NoError(t, err)
	jobs, given, err := ParseJobs(nil, "", strings.Fields(string(args)))
	require.NoError(t, err)
	fio := fioRecorded(t, "cmdline-null.json")
	res := resultFromFio(t, fio, jobs)
	res.FioOptions = given
	ours := ourFioJSON(t, res, FormatJSON)
	assert.Equal(t, at(fio, "global options"), at(ours, "global options"))
	for i := range 2 {
		job := strconv.Itoa(i)
		require.NotNil(t, at(fio, "jobs", job, "job options"))
		assert.Equal(t, at(fio, "jobs", job, "job options"), at(ours, "jobs", job, "job options"), "job %d", i)
		assert.Equal(t, at(fio, "jobs", job, "desc"), at(ours, "jobs", job, "desc"), "job %d", i)
	}
}

// Values are printed as written after ${VAR} expansion (fio printed
// "size": "1m" for size=${SZ} with SZ=1m); a job without options of its
// own has no "job options", and without a [global] section or command
// line there is no "global options", as in fio's output.
func TestFioGivenOptionsAsWritten(t *testing.T) {
	t.Setenv("SZ", "1m")
	file := "[global]\nsize=${SZ}\ntime_based\nruntime=100ms\n[a]\n[b]\nrw=randread\nrwmixread=70\n"
	jobs, given, err := ParseJobs(strings.NewReader(file), "env.fio", nil)
	require.NoError(t, err)
	assert.Equal(t, []FioOption{{"size", "1m"}, {"runtime", "100ms"}}, given.Global)
	assert.Equal(t, [][]FioOption{nil, {{"rw", "randread"}, {"rwmixread", "70"}}}, given.Jobs)

	res := &Result{FioOptions: given}
	for _, j := range jobs {
		res.Jobs = append(res.Jobs, NewJobResult(j, 0, latency.FioLayout))
	}
	ours := ourFioJSON(t, res, FormatJSON)
	assert.Nil(t, at(ours, "jobs", "0", "job options"))
	assert.Equal(t, map[string]any{"rw": "randread", "rwmixread": "70"}, at(ours, "jobs", "1", "job options"))

	res.FioOptions = nil
	ours = ourFioJSON(t, res, FormatJSON)
	assert.Nil(t, at(ours, "global options"))
	assert.NotNil(t, at(ours, "jobs", "0", "job options"), "without what was given, the Job's options")
}

// Each result prints the options of the section it is a clone of, with
// group_reporting's sums as well as clone by clone.
func TestFioGivenOptionsClones(t *testing.T) {
	file := "[a]\nioengine=null\nsize=1m\nnumjobs=2\ngroup_reporting\n[b]\nioengine=null\nsize=1m\nrw=write\n"
	jobs, given, err := ParseJobs(strings.NewReader(file), "clones.fio", nil)
	require.NoError(t, err)
	for _, grouped := range []bool{true, false} {
		res := &Result{FioOptions: given}
		for _, j := range jobs {
			j.GroupReporting = j.GroupReporting && grouped
			for c := range j.NumJobs {
				res.Jobs = append(res.Jobs, NewJobResult(j, c, latency.FioLayout))
			}
		}
		doc := ourFioJSON(t, res, FormatJSON)
		a := map[string]any{"ioengine": "null", "size": "1m", "numjobs": "2"}
		b := map[string]any{"ioengine": "null", "size": "1m", "rw": "write"}
		want := []map[string]any{a, a, b}
		if grouped {
			want = []map[string]any{a, b}
		}
		require.Len(t, at(doc, "jobs"), len(want), "grouped %v", grouped)
		for i, w := range want {
			assert.Equal(t, w, at(doc, "jobs", strconv.Itoa(i), "job options"), "grouped %v, job %d", grouped, i)
		}
	}
}
