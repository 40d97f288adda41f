package baselines

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		name, dir, test, job, want string
	}{
		{"plain", "testdata/baselines", "TestRandRead4K", "randread-4k-qd32", "testdata/baselines/TestRandRead4K/randread-4k-qd32.json"},
		{"subtest", "b", "TestX/qd=32", "job", "b/TestX/qd=32/job.json"},
		{"nested-subtests", "b", "TestX/a/b", "j", "b/TestX/a/b/j.json"},
		{"spaces-and-colons", "b", "TestX/4k qd:32", "a:b", "b/TestX/4k%20qd%3A32/a%3Ab.json"},
		{"distinct-escapes", "b", "T", "a?b", "b/T/a%3Fb.json"},
		{"dot-dot", "b", "TestX/..", "..", "b/TestX/%2E./%2E..json"},
		{"hidden", "b", "T", ".hidden", "b/T/%2Ehidden.json"},
		{"empty-subtest", "b", "TestX/", "j", "b/TestX/%/j.json"},
		{"no-test", "out", "", "job", "out/job.json"},
		{"percent", "b", "T", "50%", "b/T/50%25.json"},
		{"slash-in-job", "b", "T", "a/b", "b/T/a%2Fb.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Path(tc.dir, tc.test, tc.job)
			require.Equal(t, filepath.FromSlash(tc.want), got)
			rel, err := filepath.Rel(tc.dir, got)
			require.NoError(t, err)
			require.False(t, strings.HasPrefix(rel, ".."), "escapes %s: %s", tc.dir, got)
		})
	}
}

func TestIsBaselineFile(t *testing.T) {
	for name, want := range map[string]bool{
		"job.json": true, "job.history.jsonl": false, ".job.json.tmp-123": false, ".x.json": false, "notes.txt": false,
	} {
		require.Equal(t, want, IsBaselineFile(name), name)
	}
}

func TestWriteFileAndLoad(t *testing.T) {
	b := synthBaseline(t, 3, 300, true, 10)
	path := Path(t.TempDir(), "TestX/sub", b.Name)
	require.NoError(t, WriteFile(path, b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o644), fi.Mode().Perm())
	back, err := Load(path)
	require.NoError(t, err)
	if diff := cmp.Diff(b, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
}

// A crash after the temporary file is written and synced, before the
// rename, leaves the old baseline intact and loadable; the stale
// temporary file is hidden and is not a baseline; the next write
// succeeds.
func TestCrashBeforeRenameKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	old := synthBaseline(t, 2, 200, false, 11)
	path := filepath.Join(dir, "job.json")
	require.NoError(t, WriteFile(path, old))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	cur := synthBaseline(t, 2, 400, false, 12)
	data, err := Marshal(cur)
	require.NoError(t, err)
	s, err := stage(path, cur) // ... and the process dies here
	require.NoError(t, err)
	tmp := s.Name()

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after, "target changed")
	_, err = Load(path)
	require.NoError(t, err)
	require.FileExists(t, tmp)
	require.Equal(t, dir, filepath.Dir(tmp), "temporary file in the same directory (same file system for rename)")
	require.False(t, IsBaselineFile(filepath.Base(tmp)))
	tmpData, err := os.ReadFile(tmp)
	require.NoError(t, err)
	require.Equal(t, data, tmpData, "the temporary file holds the complete new baseline")

	require.NoError(t, WriteFile(path, cur))
	got, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, cur.Dirs[0].IOs, got.Dirs[0].IOs)
}

// A failing commit (here: the target is a directory) removes the
// temporary file and leaves nothing half-written.
func TestWriteFileFailureCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.json")
	require.NoError(t, os.MkdirAll(filepath.Join(path, "x"), 0o755))
	err := WriteFile(path, synthBaseline(t, 2, 100, false, 13))
	require.Error(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the directory in the way: %v", entries)
}

// Create never replaces a baseline, valid or corrupt.
func TestCreateRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	b := synthBaseline(t, 2, 100, false, 14)
	for _, tc := range []struct {
		name     string
		existing []byte
	}{
		{"valid", nil},
		{"corrupt", []byte(`{"schema": 1, "name": "trunc`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".json")
			if tc.existing == nil {
				require.NoError(t, Create(path, b))
			} else {
				require.NoError(t, os.WriteFile(path, tc.existing, 0o644))
			}
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			err = Create(path, synthBaseline(t, 2, 999, false, 15))
			require.ErrorIs(t, err, fs.ErrExist)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, before, after)
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary files left")
}

// Update keeps the replaced baseline in the history; a corrupt baseline is
// replaced (the update is explicit) and not kept.
func TestUpdateKeepsHistory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.json")
	first, second, third := synthBaseline(t, 2, 100, false, 16), synthBaseline(t, 2, 200, false, 17), synthBaseline(t, 2, 300, false, 18)
	require.NoError(t, updateH(path, first)) // nothing to keep yet
	require.NoFileExists(t, HistoryPath(path))
	require.NoError(t, updateH(path, second))
	require.NoError(t, updateH(path, third))
	require.NoError(t, os.WriteFile(path, []byte("{garbage"), 0o644))
	require.NoError(t, updateH(path, first))

	f, err := os.Open(HistoryPath(path))
	require.NoError(t, err)
	defer f.Close()
	hist, skipped, err := ReadHistory(f, HistoryPath(path))
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, hist, 2)
	require.Equal(t, first.Dirs[0].IOs, hist[0].Dirs[0].IOs)
	require.Equal(t, second.Dirs[0].IOs, hist[1].Dirs[0].IOs)
	require.Empty(t, hist[0].Seconds, "history keeps summaries and histograms, not seconds")
	require.NotNil(t, hist[0].Dirs[0].Clat.Hist)
	cur, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, first.Dirs[0].IOs, cur.Dirs[0].IOs)
	require.Equal(t, filepath.Join(dir, "job.history.jsonl"), HistoryPath(path))
}

func TestReadHistory(t *testing.T) {
	var lines [][]byte
	for i := range 3 {
		b := synthBaseline(t, 1, 50, false, uint64(20+i))
		b.Seconds = nil
		data, err := Marshal(b)
		require.NoError(t, err)
		var c bytes.Buffer
		require.NoError(t, compact(&c, data))
		lines = append(lines, c.Bytes())
	}
	join := func(parts ...[]byte) string { return string(bytes.Join(parts, []byte("\n"))) }
	half := lines[1][:706]
	glued := append(append([]byte(nil), half...), lines[2]...)
	for _, tc := range []struct {
		name    string
		text    string
		want    int
		skipped []Skipped // Reason not compared
		errLine int
	}{
		{"empty", "", 0, nil, 0},
		{"complete", join(lines[0], lines[1], nil), 2, nil, 0},
		{"partial-last-line", join(lines[0], lines[1], lines[2][:len(lines[2])/2]), 2,
			[]Skipped{{File: "h.jsonl", Line: 3, Bytes: len(lines[2]) / 2}}, 0},
		{"blank-lines", join(lines[0], nil, lines[1], nil), 2, nil, 0},
		{"corrupt-middle", join(lines[0], []byte(`{"schema":1}`), lines[1], nil), 1, nil, 2},
		// An earlier version on a full disk: a 706-byte partial entry,
		// then the next update's entry glued to it.
		{"glued-partial", join(lines[0], glued, nil), 2,
			[]Skipped{{File: "h.jsonl", Line: 2, Bytes: 706}}, 0},
		{"glued-partials", join(lines[0], append(append([]byte(nil), lines[0][:99]...), glued...), lines[1], nil), 3,
			[]Skipped{{File: "h.jsonl", Line: 2, Bytes: 99 + 706}}, 0},
		// Garbage before a whole entry is no append's damage.
		{"garbage-then-entry", join(lines[0], append([]byte(`{"x":1}`), lines[1]...), nil), 1, nil, 2},
		{"partial-in-middle", join(lines[0], half, lines[2], nil), 1, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped, err := ReadHistory(strings.NewReader(tc.text), "h.jsonl")
			require.Len(t, got, tc.want)
			for i := range skipped {
				require.NotEmpty(t, skipped[i].Reason)
				require.Contains(t, skipped[i].String(), fmt.Sprintf("h.jsonl:%d: skipped %d bytes: ", skipped[i].Line, skipped[i].Bytes))
				skipped[i].Reason = ""
			}
			require.Equal(t, tc.skipped, skipped)
			if tc.errLine == 0 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrCorrupt)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.errLine, e.Line)
		})
	}
}

// updateH is Update with history, for tests that need no more than its
// error.
func updateH(path string, b *Baseline) error {
	_, err := Update(path, b, true)
	return err
}
