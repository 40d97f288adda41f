package baselines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

// lineOf returns the 1-based line of the n-th (1-based) occurrence of sub
// in text, after the first occurrence of after (if not empty).
func lineOf(t *testing.T, text, after, sub string) int {
	t.Helper()
	start := 0
	if after != "" {
		start = strings.Index(text, after)
		require.GreaterOrEqual(t, start, 0, "no %q", after)
	}
	i := strings.Index(text[start:], sub)
	require.GreaterOrEqual(t, i, 0, "no %q after %q", sub, after)
	return 1 + strings.Count(text[:start+i], "\n")
}

// replaceAfter replaces the first old after marker.
func replaceAfter(t *testing.T, text, after, old, new string) string {
	t.Helper()
	start := strings.Index(text, after)
	require.GreaterOrEqual(t, start, 0, "no %q", after)
	i := strings.Index(text[start:], old)
	require.GreaterOrEqual(t, i, 0, "no %q after %q", old, after)
	return text[:start+i] + new + text[start+i+len(old):]
}

// replaceRegexpAfter replaces the first match of re after marker.
func replaceRegexpAfter(t *testing.T, text, after, re, new string) string {
	t.Helper()
	start := strings.Index(text, after)
	require.GreaterOrEqual(t, start, 0, "no %q", after)
	loc := regexp.MustCompile(re).FindStringIndex(text[start:])
	require.NotNil(t, loc, "no %s after %q", re, after)
	return text[:start+loc[0]] + new + text[start+loc[1]:]
}

// iosOf is the read direction's I/O count in an encoded baseline.
func iosOf(t *testing.T, text string) string {
	t.Helper()
	m := regexp.MustCompile(`"ios": (\d+)`).FindStringSubmatch(text[strings.Index(text, `"dirs"`):])
	require.NotNil(t, m)
	return m[1]
}

// Every kind of damage is reported with the file, the line and the field,
// as ErrCorrupt (or ErrSchema), never as a panic or a wrong baseline.
func TestDecodeErrors(t *testing.T) {
	data, err := Marshal(synthBaseline(t, 2, 300, false, 7))
	require.NoError(t, err)
	good := string(data)
	lines := strings.Count(good, "\n")
	clatHist := `"clat": {`
	firstBucket := regexp.MustCompile(`"(\d{3,})": (\d+)`).FindStringSubmatch(good[strings.Index(good, clatHist):])
	require.NotNil(t, firstBucket)

	for _, tc := range []struct {
		name  string
		text  string
		line  int // 0: not checked
		field string
		msg   string
		kind  error
	}{
		{name: "empty", text: "", msg: "empty file", kind: ErrCorrupt},
		{name: "not-json", text: "hello\n", line: 1, msg: "invalid JSON", kind: ErrCorrupt},
		{name: "truncated-half", text: good[:len(good)/2], line: strings.Count(good[:len(good)/2], "\n") + 1, msg: "truncated", kind: ErrCorrupt},
		{name: "truncated-last-brace", text: strings.TrimSuffix(good, "}\n"), line: lines, msg: "truncated", kind: ErrCorrupt},
		{name: "syntax", text: replaceAfter(t, good, `"dirs"`, `"bytes": `, `"bytes": ,`),
			line: lineOf(t, good, `"dirs"`, `"bytes": `), msg: "invalid JSON", kind: ErrCorrupt},
		{name: "wrong-type", text: strings.Replace(good, `"clones": 1`, `"clones": "one"`, 1),
			line: lineOf(t, good, "", `"clones"`), field: "clones", msg: "want int, got string", kind: ErrCorrupt},
		{name: "unknown-field", text: strings.Replace(good, `"short_ios"`, `"shortios"`, 1),
			line: lineOf(t, good, "", `"short_ios"`), msg: `unknown field "shortios"`, kind: ErrCorrupt},
		{name: "missing-iops", text: regexp.MustCompile(`\n +"iops": [0-9.e+]+,`).ReplaceAllString(good, ""),
			line: lineOf(t, good, `"dirs"`, `"read": {`), field: "dirs.read", msg: `missing "iops"`, kind: ErrCorrupt},
		{name: "missing-name", text: strings.Replace(good, `"name": "randread-4k",`, "", 1), line: 1, field: "name", msg: "missing", kind: ErrCorrupt},
		{name: "schema-newer", text: strings.Replace(good, `"schema": 4`, `"schema": 5`, 1), line: 2, field: "schema",
			msg: "schema 5 is newer than this stortest reads (4)", kind: ErrSchema},
		{name: "schema-older", text: strings.Replace(good, `"schema": 4`, `"schema": 0`, 1), line: 2, field: "schema",
			msg: "0 is not a schema version", kind: ErrCorrupt},
		{name: "schema-missing", text: strings.Replace(good, `"schema": 4,`, "", 1), line: 1,
			msg: "not a stortest baseline", kind: ErrCorrupt},
		{name: "fio-output", text: "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : []\n}\n", line: 1,
			msg: "fio output, not a stortest baseline: import it first", kind: ErrCorrupt},
		{name: "hist-count", text: replaceAfter(t, good, clatHist, firstBucket[0], fmt.Sprintf(`"%s": %s1`, firstBucket[1], firstBucket[2])),
			line: lineOf(t, good, clatHist, `"hist"`), field: "dirs.read.clat.hist", msg: "buckets hold", kind: ErrCorrupt},
		{name: "not-a-bucket", text: replaceAfter(t, good, clatHist, firstBucket[0], fmt.Sprintf(`"%s1": %s`, firstBucket[1], firstBucket[2])),
			line: lineOf(t, good, clatHist, firstBucket[0]), field: "dirs.read.clat.hist." + firstBucket[1] + "1", msg: "not a bucket value", kind: ErrCorrupt},
		{name: "percentiles-out-of-order", text: regexp.MustCompile(`("clat": \{[^}]*?"p90": )\d+`).ReplaceAllString(good, "${1}1"),
			line: lineOf(t, good, clatHist, `"p90"`), field: "dirs.read.clat.p90", msg: "below a lower percentile", kind: ErrCorrupt},
		{name: "unknown-direction", text: strings.Replace(good, `"read": {`, `"reed": {`, 1),
			line: lineOf(t, good, "", `"read": {`), field: "dirs.reed", msg: "unknown direction", kind: ErrCorrupt},
		{name: "seconds-order", text: strings.Replace(good, `{"t_ns":2000000000,`, `{"t_ns":1000000000,`, 1),
			line: lineOf(t, good, "", `{"t_ns":2000000000,`), field: "seconds.1", msg: "not after the previous second", kind: ErrCorrupt},
		{name: "job-invalid", text: strings.Replace(good, `"iodepth": 16`, `"iodepth": 70000`, 1),
			line: lineOf(t, good, "", `"iodepth": 16`), field: "job.iodepth", msg: "outside [1, 65536]", kind: ErrCorrupt},
		{name: "job-bad-rw", text: strings.Replace(good, `"rw": "randread"`, `"rw": "sideways"`, 1),
			line: lineOf(t, good, "", `"rw": "randread"`), field: "job.rw", msg: `unknown rw "sideways"`, kind: ErrCorrupt},
		{name: "map-value-type", text: strings.Replace(good, `"ios": `, `"ios": -`, 1),
			line: lineOf(t, good, "", `"ios": `), field: "dirs.read.ios", msg: "want uint64, got number -", kind: ErrCorrupt},
		{name: "trailing-data", text: good + "{}\n", line: lines + 1, msg: "after top-level value", kind: ErrCorrupt},
		{name: "two-baselines", text: good + good, line: lines + 1, msg: "a second baseline after the first: a file holds one", kind: ErrCorrupt},
		{name: "negative-runtime", text: regexp.MustCompile(`"runtime_ns": \d+`).ReplaceAllString(good, `"runtime_ns": -5`),
			line: lineOf(t, good, "", `"runtime_ns"`), field: "runtime_ns", msg: "negative", kind: ErrCorrupt},
		{name: "clat-mean-in-schema-1", text: strings.Replace(good, `"schema": 4`, `"schema": 1`, 1),
			line: lineOf(t, good, `"seconds"`, `{"t_ns":`), field: "seconds.0", msg: "clat_mean is not in schema 1", kind: ErrCorrupt},
		// Throughput its totals contradict: no run falls below iops 0,
		// and a diff against it is a change from 0.
		{name: "iops-zero-with-ios", text: replaceRegexpAfter(t, good, `"dirs"`, `"iops": [0-9.e+]+`, `"iops": 0`),
			line: lineOf(t, good, `"dirs"`, `"iops": `), field: "dirs.read.iops", msg: "0 with " + iosOf(t, good) + " I/Os in ", kind: ErrCorrupt},
		{name: "bw-zero-with-bytes", text: replaceRegexpAfter(t, good, `"dirs"`, `"bw": [0-9.e+]+`, `"bw": 0`),
			line: lineOf(t, good, `"dirs"`, `"bw": `), field: "dirs.read.bw", msg: "bytes in ", kind: ErrCorrupt},
		{name: "iops-without-ios", text: replaceRegexpAfter(t, good, `"dirs"`, `"ios": \d+`, `"ios": 0`),
			line: lineOf(t, good, `"dirs"`, `"iops": `), field: "dirs.read.iops", msg: "with no I/Os", kind: ErrCorrupt},
		{name: "bad-created", text: regexp.MustCompile(`"created": "[^"]+"`).ReplaceAllString(good, `"created": "yesterday"`),
			line: lineOf(t, good, "", `"created"`), field: "created", msg: "not an RFC 3339 time", kind: ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Decode(strings.NewReader(tc.text), "base.json")
			require.Error(t, err)
			require.Nil(t, b)
			require.True(t, errors.Is(err, tc.kind), "%v is not %v", err, tc.kind)
			var e *Error
			require.True(t, errors.As(err, &e))
			msg := err.Error()
			require.True(t, strings.HasPrefix(msg, "baselines: base.json"), msg)
			if tc.line > 0 {
				require.Equal(t, tc.line, e.Line, "%s", msg)
				require.Contains(t, msg, fmt.Sprintf("base.json:%d: ", tc.line))
			}
			if tc.field != "" {
				require.Equal(t, tc.field, e.Field, "%s", msg)
			}
			require.Contains(t, msg, tc.msg)
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(t.TempDir() + "/nope.json")
	require.ErrorIs(t, err, errNotExist())
}

func TestFieldLine(t *testing.T) {
	text := "{\n  \"a\": {\n    \"b\": [\n      1,\n      {\"c\": 2}\n    ],\n    \"p99.9\": 3\n  }\n}\n"
	for _, tc := range []struct {
		field string
		want  int
	}{
		{"a", 2}, {"a.b", 3}, {"a.b.0", 4}, {"a.b.1", 5}, {"a.b.1.c", 5}, {"a.p99.9", 7},
		{"a.missing", 2}, {"nothing", 1},
	} {
		t.Run(tc.field, func(t *testing.T) {
			require.Equal(t, tc.want, fieldLine([]byte(text), tc.field))
		})
	}
}

// A baseline written before schema 2 still loads: everything it holds is
// read as before, its per-second clat means are unknown (their series is
// empty, so regress falls back), and it writes back byte for byte as it
// was, still schema 1. testdata/schema1.json was written by the code of
// schema 1 (commit 482b9ac) from synthBaseline(t, 10, 200, false, 11).
func TestLoadSchema1(t *testing.T) {
	path := filepath.Join("testdata", "schema1.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(data), "clat_mean")
	old, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, 1, old.Schema)
	require.Len(t, old.PerSecond("read", SecondClatP50), 10)
	require.Empty(t, old.PerSecond("read", SecondClatMean), "no means in schema 1")

	// The same run today differs only in the version and the new field.
	want := synthBaseline(t, 10, 200, false, 11)
	require.Equal(t, SchemaVersion, want.Schema)
	require.Len(t, want.PerSecond("read", SecondClatMean), 10)
	want.Schema = 1
	for i := range want.Seconds {
		for _, d := range want.Seconds[i].Dirs {
			if d != nil {
				d.ClatMean = 0
			}
		}
	}
	if diff := cmp.Diff(want, old, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("schema 1 file (-today's run without means +loaded):\n%s", diff)
	}

	again, err := Marshal(old)
	require.NoError(t, err)
	require.Equal(t, string(data), string(again), "a schema 1 baseline writes back as it was")
}

// A baseline written before schema 3 still loads: it has no slices, runs,
// tolerances or size (PerSlice is empty, so regress falls back to the
// seconds; RunSummaries is its own run), and it writes back byte for byte
// as it was, still schema 2. testdata/schema2.json was written by the
// code of schema 2 (commit 6b8ca96) from synthBaseline(t, 10, 200, false,
// 11).
func TestLoadSchema2(t *testing.T) {
	path := filepath.Join("testdata", "schema2.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	old, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, 2, old.Schema)
	require.Empty(t, old.Slices)
	require.Nil(t, old.PerSlice("read", SecondIOPS))
	require.Len(t, old.PerSecond("read", SecondIOPS), 10)
	require.Len(t, old.RunSummaries(), 1)

	want := synthBaseline(t, 10, 200, false, 11)
	want.Schema = 2
	if diff := cmp.Diff(want, old, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("schema 2 file (-today's run +loaded):\n%s", diff)
	}
	again, err := Marshal(old)
	require.NoError(t, err)
	require.Equal(t, string(data), string(again), "a schema 2 baseline writes back as it was")

	// Adding a run makes it a baseline of schema 3, which can hold it.
	require.NoError(t, old.AddRun(synthBaseline(t, 10, 190, false, 12)))
	require.Equal(t, SchemaVersion, old.Schema)
	_, err = Marshal(old)
	require.NoError(t, err)
}

// The file format of schema 3 is stable: testdata/schema3.json (slices,
// runs, tolerances, a size) loads to the baseline it was written from and
// writes back to the same bytes. go test -run TestLoadSchema3 -update
// rewrites it after a deliberate format change.
func TestLoadSchema3(t *testing.T) {
	_, got := goldenRoundTrip(t, "schema3.json", "TestLoadSchema3", schema3Baseline(t))
	require.Len(t, got.Runs, 3)
	require.Equal(t, "*.iops=5%,*.clat.p99=off", got.Tolerances)
	require.Equal(t, uint64(1<<40), got.Fingerprint.Size)
	require.Len(t, got.PerSlice("write", SecondIOPS), 24, "two whole seconds and 400 ms, in whole slices")
}

// Damage to schema 3's additions is reported with the line and field.
func TestDecodeSchema3Errors(t *testing.T) {
	data, err := Marshal(schema3Baseline(t))
	require.NoError(t, err)
	good := string(data)
	for _, tc := range []struct {
		name  string
		text  string
		line  int
		field string
		msg   string
	}{
		{name: "slices-in-schema-2", text: strings.Replace(good, `"schema": 3`, `"schema": 2`, 1),
			line: lineOf(t, good, `"fingerprint"`, `"size"`), field: "fingerprint.size", msg: "not in schema 2 (schema 3 has it)"},
		{name: "tolerances-in-schema-2", text: regexp.MustCompile(`,\n +"size": \d+`).ReplaceAllString(strings.Replace(good, `"schema": 3`, `"schema": 2`, 1), ""),
			line: lineOf(t, good, "", `"tolerances"`) - 1 /* the size's line is gone */, field: "tolerances", msg: "not in schema 2 (schema 3 has it)"},
		{name: "short-column", text: regexp.MustCompile(`("read_ios": \[\d+),\d+`).ReplaceAllString(good, "$1"),
			line: lineOf(t, good, "", `"read_ios"`), field: "slices.read_ios", msg: "values for 24 slices"},
		{name: "zero-length", text: regexp.MustCompile(`"dur_ns": \[\d+`).ReplaceAllString(good, `"dur_ns": [0`),
			line: lineOf(t, good, `"slices"`, `"dur_ns"`), field: "slices.dur_ns", msg: "slice 0: length 0 is not positive"},
		{name: "no-interval", text: regexp.MustCompile(`"interval_ns": \d+`).ReplaceAllString(good, `"interval_ns": 0`),
			line: lineOf(t, good, "", `"interval_ns"`), field: "slices.interval_ns", msg: "want a positive interval"},
		{name: "run-without-iops", text: strings.Replace(good, `{"iops":`, `{"iopz":`, 1),
			line: lineOf(t, good, `"runs"`, `{"created"`), field: "runs.0", msg: `unknown field "iopz"`},
		{name: "run-bad-created", text: replaceAfter(t, good, `"runs"`, `{"created":"`, `{"created":"x`),
			line: lineOf(t, good, `"runs"`, `{"created"`), field: "runs.0", msg: "not an RFC 3339 time"},
		{name: "one-run", text: regexp.MustCompile(`(?s)("runs": \[\n[^\n]*?),\n.*?\]\n`).ReplaceAllString(good, "$1\n  ]\n"),
			line: lineOf(t, good, "", `"runs"`), field: "runs", msg: "a baseline of one run has no runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NotEqual(t, good, tc.text, "the damage applies")
			_, err := Decode(strings.NewReader(tc.text), "base.json")
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt)
			var e *Error
			require.True(t, errors.As(err, &e))
			require.Equal(t, tc.field, e.Field, "%v", err)
			require.Equal(t, tc.line, e.Line, "%v", err)
			require.Contains(t, err.Error(), fmt.Sprintf("base.json:%d: %s: ", tc.line, tc.field))
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}
