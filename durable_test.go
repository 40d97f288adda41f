package stortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/history"
	"stortest.dev/internal/durable"
	"stortest.dev/internal/tmpfs"
	"stortest.dev/workload"
)

// forgetWritten makes this process forget the baselines it recorded, so
// that the next -stortest.update replaces the file (as a new test binary
// does) rather than adding a run to it; the test's end forgets its own.
func forgetWritten(t *testing.T) {
	written.mu.Lock()
	written.paths = nil
	written.mu.Unlock()
	t.Cleanup(func() {
		written.mu.Lock()
		written.paths = nil
		written.mu.Unlock()
	})
}

// -stortest.update on a full disk, and on a failing one: the test fails
// naming the file and the error, the baseline and its history stay as
// they were; with the space back, the update succeeds, and says that it
// replaced the partial entry an earlier version left in the history.
func TestUpdateBaselineFullDisk(t *testing.T) {
	settingsOff(t)
	forgetWritten(t)
	dir := tmpfs.ForTest(t, 1<<20)
	t.Setenv(EnvUpdate, "1")
	path := baselines.Path(dir, t.Name(), "mix")
	for range 2 { // the first records, the second keeps it in the history
		forgetWritten(t)
		ok, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
		require.True(t, ok, "%q", errs)
	}
	before := tmpfs.Files(t, dir)
	require.Len(t, before, 2, "the baseline and its history")
	// failsUnchanged: the check fails with one error naming the baseline
	// and saying each of want, and leaves the files as they were.
	failsUnchanged := func(want ...string) {
		t.Helper()
		forgetWritten(t)
		ok, errs, _ := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
		require.False(t, ok)
		require.Len(t, errs, 1)
		require.Contains(t, errs[0], path)
		for _, w := range want {
			require.Contains(t, errs[0], w)
		}
		require.Equal(t, before, tmpfs.Files(t, dir))
	}

	_, err := tmpfs.Fill(dir, 0)
	require.NoError(t, err)
	for range 3 {
		failsUnchanged("no space left on device", "as they were")
	}
	require.NoError(t, tmpfs.Free(dir))

	defer durable.Inject(func(op durable.Op, p string) error {
		if op == durable.OpSync && strings.HasPrefix(p, dir) {
			return syscall.EIO
		}
		return nil
	})()
	failsUnchanged("input/output error")
	durable.Inject(nil)

	// An earlier version's partial entry at the history's end.
	f, err := os.OpenFile(baselines.HistoryPath(path), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"schema":3,"name":"mix","crea`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	forgetWritten(t)
	ok, errs, logs := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	require.True(t, ok, "%q", errs)
	require.Contains(t, strings.Join(logs, "\n"), baselines.HistoryPath(path)+" ended in a partial entry of 30 bytes")
	hf, err := os.Open(baselines.HistoryPath(path))
	require.NoError(t, err)
	defer hf.Close()
	hist, skipped, err := baselines.ReadHistory(hf, baselines.HistoryPath(path))
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, hist, 1, "the same baseline replaced twice is kept once")
}

// A run whose artifacts do not fit: the test fails naming each file and
// the error, and no file is left half written (none at all here, the
// disk being full from the start), nor a temporary one.
func TestRunArtifactsFullDisk(t *testing.T) {
	settingsOff(t)
	out := tmpfs.ForTest(t, 256<<10)
	t.Setenv("STORTEST_OUT", out)
	t.Setenv("STORTEST_HISTORY", "")
	_, err := tmpfs.Fill(out, 0)
	require.NoError(t, err)
	f := fakeRandRead(t, "full")
	all := strings.Join(append(f.errors, f.fatals...), "\n")
	dir := filepath.Join(out, testDirName(t.Name()))
	for _, name := range []string{"full.fio.json", "full.summary.txt", "full.html", "full_clat_hist.1.log"} {
		require.Contains(t, all, filepath.Join(dir, name), "the failure names %s", name)
	}
	require.Contains(t, all, "no space left on device")
	require.Empty(t, tmpfs.Files(t, out), "no file, whole or partial")
}

// An artifact that fails to be written (EIO at its sync) fails the test
// naming it; the others are written whole.
func TestRunArtifactEIO(t *testing.T) {
	settingsOff(t)
	out := t.TempDir()
	t.Setenv("STORTEST_OUT", out)
	t.Setenv("STORTEST_HISTORY", "")
	defer durable.Inject(func(op durable.Op, p string) error {
		if op == durable.OpSync && strings.Contains(p, ".eio.summary.txt.tmp-") {
			return syscall.EIO
		}
		return nil
	})()
	f := fakeRandRead(t, "eio")
	dir := filepath.Join(out, testDirName(t.Name()))
	require.Len(t, f.errors, 1, "%q", f.errors)
	require.Contains(t, f.errors[0], filepath.Join(dir, "eio.summary.txt"))
	require.Contains(t, f.errors[0], "input/output error")
	files := tmpfs.Files(t, out)
	rel := func(name string) string { return filepath.Join(testDirName(t.Name()), name) }
	require.NotContains(t, files, rel("eio.summary.txt"))
	require.True(t, json.Valid([]byte(files[rel("eio.fio.json")])), "the json+ output is whole")
	require.Contains(t, files[rel("eio.html")], "</html>")
	for p := range files {
		require.NotContains(t, p, ".tmp-", "no temporary file left")
	}
}

// A run history (-stortest.history) on a full disk: the test fails naming
// the file and the error, and no file is left; with the space back the
// next run is appended.
func TestRunHistoryFullDisk(t *testing.T) {
	settingsOff(t)
	t.Setenv("STORTEST_OUT", t.TempDir())
	hist := tmpfs.ForTest(t, 256<<10)
	t.Setenv("STORTEST_HISTORY", hist)
	_, err := tmpfs.Fill(hist, 0)
	require.NoError(t, err)
	f := fakeRandRead(t, "hist")
	require.Len(t, f.errors, 1, "%q", f.errors)
	require.Contains(t, f.errors[0], "history: append "+history.Dir(hist, t.Name(), "hist"))
	require.Contains(t, f.errors[0], "no space left on device")
	require.Empty(t, tmpfs.Files(t, hist), "no file, whole or partial")

	require.NoError(t, tmpfs.Free(hist))
	f = fakeRandRead(t, "hist")
	require.Empty(t, f.errors)
	entries, err := history.Load(hist)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

// A history that an earlier version damaged on a full disk (a partial
// entry with the next entry glued to it) is read past, and the update
// says so rather than pass in silence.
func TestUpdateBaselineSaysHistoryDamage(t *testing.T) {
	settingsOff(t)
	dir := t.TempDir()
	t.Setenv(EnvUpdate, "1")
	path := baselines.Path(dir, t.Name(), "mix")
	r := syntheticResult()
	old, err := baselines.FromResult(r.Result, r.fp)
	require.NoError(t, err)
	older := *old
	older.Name = "older"
	var lines [][]byte
	for _, b := range []*baselines.Baseline{&older, old} {
		enc, err := baselines.Marshal(b)
		require.NoError(t, err)
		var c bytes.Buffer
		require.NoError(t, json.Compact(&c, enc))
		lines = append(lines, c.Bytes())
	}
	// A third of older's line, without its newline, then old's whole.
	n := len(lines[0]) / 3
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(baselines.HistoryPath(path), append(append(lines[0][:n:n], lines[1]...), '\n'), 0o644))
	old.Name = "mix"
	older.Name = "mix"
	require.NoError(t, baselines.WriteFile(path, &older))
	forgetWritten(t)
	ok, errs, logs := checkBaselineFake(t, syntheticResult(), BaselineDir(dir))
	require.True(t, ok, "%q", errs)
	require.Contains(t, strings.Join(logs, "\n"), fmt.Sprintf("%s:1: skipped %d bytes: an entry cut short", baselines.HistoryPath(path), n))
}

// fakeRandRead runs, under a fake testing.TB, a short time-based 4k
// random read named name on a 4 MiB file, and returns the finished fake.
func fakeRandRead(t *testing.T, name string) *fakeTB {
	f := runFake(t, func(tb testing.TB) {
		dev := File(tb, 4<<20)
		Run(tb, dev, workload.Job{Name: name, RW: workload.RandRead, BlockSize: 4096,
			Runtime: 300 * time.Millisecond, TimeBased: true})
	})
	return f
}
