package baselines

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/internal/durable"
	"stortest.dev/internal/tmpfs"
)

// readHistory reads the history of the baseline at path.
func readHistory(t *testing.T, path string) ([]*Baseline, []Skipped) {
	t.Helper()
	f, err := os.Open(HistoryPath(path))
	require.NoError(t, err)
	defer f.Close()
	hist, skipped, err := ReadHistory(f, HistoryPath(path))
	require.NoError(t, err)
	return hist, skipped
}

// A full disk during updates: each update fails with ENOSPC naming the
// file, and leaves the baseline and its history byte for byte as they
// were (no entry kept twice, no partial line, no temporary file), at
// every amount of space short of enough; the update once the space is
// there succeeds and the history reads whole.
func TestUpdateFullDisk(t *testing.T) {
	dir := tmpfs.ForTest(t, 1<<20)
	path := filepath.Join(dir, "rr.json")
	v1, v2, v3 := synthBaseline(t, 2, 100, false, 41), synthBaseline(t, 2, 200, false, 42), synthBaseline(t, 2, 300, false, 43)
	require.NoError(t, updateH(path, v1))
	require.NoError(t, updateH(path, v2))
	line, err := historyLine(v2)
	require.NoError(t, err)
	data, err := Marshal(v3)
	require.NoError(t, err)
	before := tmpfs.Files(t, dir)
	require.Len(t, before, 2)

	// From no space at all, a page more each time: the new baseline's
	// temporary file fails first, then (with room for it) the history's
	// append, part of its line written.
	failed, inHistory := 0, 0
	for leave := int64(0); ; leave += 2048 {
		_, err := tmpfs.Fill(dir, leave)
		require.NoError(t, err)
		_, err = Update(path, v3, true)
		require.NoError(t, tmpfs.Free(dir))
		if err == nil {
			break
		}
		failed++
		if strings.Contains(err.Error(), HistoryPath(path)) {
			inHistory++
		}
		require.ErrorIs(t, err, syscall.ENOSPC)
		require.True(t, strings.Contains(err.Error(), path) || strings.Contains(err.Error(), HistoryPath(path)),
			"the error names the file: %v", err)
		require.Equal(t, before, tmpfs.Files(t, dir), "after %d failed updates (%d bytes left): %v", failed, leave, err)
		require.Less(t, leave, int64(len(data)+len(line))+64<<10, "no update succeeds with room to spare")
	}
	t.Logf("%d updates failed before one fitted, %d of them appending to the history (baseline %d bytes, history line %d)",
		failed, inHistory, len(data), len(line))
	require.Greater(t, failed, 2)
	require.Positive(t, inHistory, "some updates fail in the history's append")
	hist, skipped := readHistory(t, path)
	require.Empty(t, skipped)
	require.Len(t, hist, 2, "v1 and v2, each once")
	require.Equal(t, v1.Dirs[0].IOs, hist[0].Dirs[0].IOs)
	require.Equal(t, v2.Dirs[0].IOs, hist[1].Dirs[0].IOs)
	got, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, v3.Dirs[0].IOs, got.Dirs[0].IOs)
	require.Len(t, tmpfs.Files(t, dir), 2, "no temporary file left")
}

// step is one call the injector saw.
type step struct {
	op   durable.Op
	path string
}

// An I/O error (EIO) at any step of an update: the update fails naming
// the file, and leaves the baseline and its history byte for byte as they
// were, a partial entry at the history's end too; only a failed sync of
// the directory after the rename leaves the update done (and is an error
// all the same, the rename perhaps not durable). No temporary file stays.
func TestUpdateEIOAtEveryStep(t *testing.T) {
	v1, v2, v3 := synthBaseline(t, 2, 100, false, 44), synthBaseline(t, 2, 200, false, 45), synthBaseline(t, 2, 300, false, 46)
	for _, partial := range []bool{false, true} {
		// setup makes the baseline v2 with the history [v1] (and a
		// partial entry after it) in a new directory.
		setup := func(t *testing.T) (string, map[string]string) {
			dir := t.TempDir()
			path := filepath.Join(dir, "rr.json")
			require.NoError(t, updateH(path, v1))
			require.NoError(t, updateH(path, v2))
			if partial {
				line, err := historyLine(v3)
				require.NoError(t, err)
				f, err := os.OpenFile(HistoryPath(path), os.O_WRONLY|os.O_APPEND, 0)
				require.NoError(t, err)
				_, err = f.Write(line[:706])
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}
			return path, tmpfs.Files(t, filepath.Dir(path))
		}
		// The steps of a successful update.
		path, _ := setup(t)
		var steps []step
		restore := durable.Inject(func(op durable.Op, p string) error {
			steps = append(steps, step{op, p})
			return nil
		})
		_, err := Update(path, v3, true)
		restore()
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(steps), 5, "%v", steps)
		doneAfter := len(steps)
		for i, s := range steps {
			if s.op == durable.OpRename && strings.HasSuffix(s.path, "rr.json") {
				doneAfter = i
			}
		}
		for i, s := range steps {
			t.Run(fmt.Sprintf("partial=%v/%d-%s-%s", partial, i, s.op, filepath.Base(s.path)), func(t *testing.T) {
				path, before := setup(t)
				n := 0
				defer durable.Inject(func(op durable.Op, p string) error {
					n++
					if n == i+1 {
						return syscall.EIO
					}
					return nil
				})()
				up, err := Update(path, v3, true)
				require.ErrorIs(t, err, syscall.EIO)
				dir := filepath.Dir(path)
				require.True(t, strings.Contains(err.Error(), path) || strings.Contains(err.Error(), HistoryPath(path)) ||
					strings.Contains(err.Error(), dir), "the error names the file: %v", err)
				require.Equal(t, Updated{}, up)
				after := tmpfs.Files(t, dir)
				if i <= doneAfter {
					require.Equal(t, before, after, "%v", err)
					return
				}
				// The rename is done: the new baseline, the old one kept once.
				require.Len(t, after, 2, "no temporary file")
				got, err := Load(path)
				require.NoError(t, err)
				require.Equal(t, v3.Dirs[0].IOs, got.Dirs[0].IOs)
				hist, _ := readHistory(t, path)
				require.Len(t, hist, 2)
			})
		}
	}
}

// A history ending in a partial entry (a crash, or a full disk under an
// earlier version) gets the next entry in its place, not glued after it:
// the file holds whole lines only, and Update says how much it dropped.
// An entry equal to the last one (an update cut short after the append)
// is not kept twice.
func TestAppendHistoryReplacesPartialEntry(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rr.json")
	v1, v2 := synthBaseline(t, 2, 100, false, 47), synthBaseline(t, 2, 200, false, 48)
	l1, err := historyLine(v1)
	require.NoError(t, err)
	l2, err := historyLine(v2)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(HistoryPath(path), append(append([]byte(nil), l1...), l2[:706]...), 0o644))

	up, err := AppendHistory(HistoryPath(path), v2)
	require.NoError(t, err)
	require.Equal(t, Updated{Kept: true, Dropped: 706}, up)
	got, err := os.ReadFile(HistoryPath(path))
	require.NoError(t, err)
	require.Equal(t, string(l1)+string(l2), string(got))

	up, err = AppendHistory(HistoryPath(path), v2)
	require.NoError(t, err)
	require.Equal(t, Updated{}, up, "the last entry again")
	got, err = os.ReadFile(HistoryPath(path))
	require.NoError(t, err)
	require.Equal(t, string(l1)+string(l2), string(got))

	// The last entry again, with a partial one after it: the partial
	// entry goes, the last one stays once.
	f, err := os.OpenFile(HistoryPath(path), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(l1[:100])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	up, err = AppendHistory(HistoryPath(path), v2)
	require.NoError(t, err)
	require.Equal(t, Updated{Dropped: 100}, up)
	got, err = os.ReadFile(HistoryPath(path))
	require.NoError(t, err)
	require.Equal(t, string(l1)+string(l2), string(got))

	// Update likewise: v2 is the baseline and the last entry.
	require.NoError(t, WriteFile(path, v2))
	up, err = Update(path, v1, true)
	require.NoError(t, err)
	require.Equal(t, Updated{}, up)
	got, err = os.ReadFile(HistoryPath(path))
	require.NoError(t, err)
	require.True(t, bytes.Equal(append(l1, l2...), got))
	hist, skipped := readHistory(t, path)
	require.Empty(t, skipped)
	require.Len(t, hist, 2)
}

// A failed append to a history that did not exist leaves none; a file
// that is not lines is refused, not appended to.
func TestAppendHistoryNewAndForeign(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.jsonl")
	defer durable.Inject(func(op durable.Op, p string) error {
		if op == durable.OpWrite {
			return syscall.EIO
		}
		return nil
	})()
	_, err := AppendHistory(path, synthBaseline(t, 2, 100, false, 49))
	require.ErrorIs(t, err, syscall.EIO)
	require.ErrorContains(t, err, path)
	require.NoFileExists(t, path)
	durable.Inject(nil)

	require.NoError(t, os.WriteFile(path, nil, 0o644))
	require.NoError(t, os.Truncate(path, durable.MaxTail+1)) // sparse: no disk, no newline
	_, err = AppendHistory(path, synthBaseline(t, 2, 100, false, 49))
	require.True(t, errors.Is(err, durable.ErrNotLines), "%v", err)
	require.ErrorContains(t, err, path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.EqualValues(t, durable.MaxTail+1, fi.Size())
}
