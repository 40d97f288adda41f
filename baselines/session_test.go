package baselines

import (
	"bytes"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The file format of schema 4 is stable: testdata/schema4.json (two runs
// of one session and one of another) loads to the baseline it was
// written from, with each run's session, and writes back to the same
// bytes. go test -run TestLoadSchema4 -update rewrites it after a
// deliberate format change.
func TestLoadSchema4(t *testing.T) {
	data, got := goldenRoundTrip(t, "schema4.json", "TestLoadSchema4", schema4Baseline(t))
	require.Contains(t, string(data), "\n  \"session\": \"5e55000000000001\",\n")
	require.Contains(t, string(data), `{"created":"2026-03-04T05:06:07Z","session":"5e55000000000002",`)
	require.Equal(t, 4, got.Schema)
	require.Equal(t, "5e55000000000001", got.Session)
	require.Equal(t, []string{"5e55000000000001", "5e55000000000001", "5e55000000000002"},
		[]string{got.Runs[0].Session, got.Runs[1].Session, got.Runs[2].Session})
	require.Equal(t, []string{"5e55000000000001", "5e55000000000002"}, got.Sessions())
}

// A schema 3 file still loads, without sessions: its runs are one
// session (recorded with -count=N before sessions existed), and it
// writes back as it was, still schema 3. Adding a run of this process
// makes it schema 4.
func TestLoadSchema3Sessions(t *testing.T) {
	old, err := Load(filepath.Join("testdata", "schema3.json"))
	require.NoError(t, err)
	require.Equal(t, 3, old.Schema)
	require.Empty(t, old.Session)
	require.Len(t, old.Runs, 3)
	require.Equal(t, []string{""}, old.Sessions(), "three runs without a session are one session")

	cur := synthBaseline(t, 2, 300, false, 40)
	cur.Name, cur.Job = old.Name, old.Job
	cur.Session = ProcessSession()
	require.NoError(t, old.AddRun(cur))
	require.Equal(t, SchemaVersion, old.Schema)
	require.Equal(t, []string{"", ProcessSession()}, old.Sessions())
	data, err := Marshal(old)
	require.NoError(t, err)
	back, err := Decode(bytes.NewReader(data), "grown.json")
	require.NoError(t, err)
	require.Equal(t, ProcessSession(), back.Runs[3].Session)
}

// A session where the schema has none, or of the wrong type, is an
// error naming the line and field; Marshal refuses to write one into a
// schema 3 file.
func TestDecodeSessionErrors(t *testing.T) {
	data, err := Marshal(schema4Baseline(t))
	require.NoError(t, err)
	good := string(data)
	for _, tc := range []struct {
		name, text, field, msg string
		line                   int
	}{
		{name: "top-in-schema-3", text: strings.Replace(good, `"schema": 4`, `"schema": 3`, 1),
			field: "session", line: lineOf(t, good, "", `"session"`), msg: "not in schema 3 (schema 4 has it)"},
		{name: "run-in-schema-3", text: regexp.MustCompile(`\n  "session": "[0-9a-f]+",`).ReplaceAllString(strings.Replace(good, `"schema": 4`, `"schema": 3`, 1), ""),
			field: "runs.0", line: lineOf(t, good, `"runs"`, `{"created"`) - 1, msg: "session: not in schema 3 (schema 4 has it)"},
		{name: "top-not-a-string", text: strings.Replace(good, `"session": "5e55000000000001"`, `"session": 7`, 1),
			field: "session", line: lineOf(t, good, "", `"session"`), msg: "want string"},
		{name: "run-not-a-string", text: strings.Replace(good, `"session":"5e55000000000002"`, `"session":null`, 1),
			field: "runs.2", line: lineOf(t, good, "", `"session":"5e55000000000002"`), msg: "session null is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NotEqual(t, good, tc.text, "the damage applies")
			_, err := Decode(strings.NewReader(tc.text), "base.json")
			require.ErrorIs(t, err, ErrCorrupt)
			var e *Error
			require.True(t, errors.As(err, &e))
			require.Equal(t, tc.field, e.Field, "%v", err)
			require.Equal(t, tc.line, e.Line, "%v", err)
			require.Contains(t, err.Error(), tc.msg)
		})
	}

	b := schema4Baseline(t)
	b.Schema = 3
	_, err = Marshal(b)
	require.ErrorContains(t, err, "it has a session, which schema 3 cannot hold (schema 4 can)")
	b.Session = ""
	_, err = Marshal(b)
	require.ErrorContains(t, err, "session", "a run's session counts too")
}

// FromResult records this process's session, the same in every baseline
// the process makes; AddRun keeps each run's, so that runs of separate
// sessions are told apart.
func TestFromResultSession(t *testing.T) {
	s := ProcessSession()
	require.Regexp(t, `^[0-9a-f]{16}$`, s)
	require.Equal(t, s, ProcessSession(), "one session per process")
	fp := Fingerprint{Kind: "block", Device: "nvme0n1"}
	a, err := FromJobResult(synthJob(t, "randread-4k", 0, 2, 300, false, 1), fp)
	require.NoError(t, err)
	b, err := FromJobResult(synthJob(t, "randread-4k", 0, 2, 300, false, 2), fp)
	require.NoError(t, err)
	require.Equal(t, s, a.Session)
	require.Equal(t, s, b.Session)

	// b as if recorded by another process.
	b.Session = "0123456789abcdef"
	require.NoError(t, a.AddRun(b))
	require.Equal(t, []string{s, "0123456789abcdef"}, []string{a.Runs[0].Session, a.Runs[1].Session})
	require.Equal(t, []string{s, "0123456789abcdef"}, a.Sessions())
	require.Equal(t, s, a.Session, "the full data stays the first run's")

	// A baseline of one run is one session, with or without its id.
	c, err := FromJobResult(synthJob(t, "randread-4k", 0, 2, 300, false, 4), fp)
	require.NoError(t, err)
	require.Equal(t, []string{s}, c.Sessions())
	old := synthBaseline(t, 2, 300, false, 3)
	require.Equal(t, []string{""}, old.Sessions())
}

// The summary says what the gate learns a spread from: how many
// independent sessions the runs came from, and over what time.
func TestSummarySessions(t *testing.T) {
	b := schema4Baseline(t)
	var s strings.Builder
	require.NoError(t, b.WriteSummary(&s))
	require.Contains(t, s.String(), "\n  runs: 3 in 2 sessions, ")
}
