package baselines

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// sessionRun is a synthetic run of randread-4k recorded in session s.
func sessionRun(t *testing.T, s string, seed uint64) *Baseline {
	t.Helper()
	b := synthBaseline(t, 2, 300, false, seed)
	b.Session = s
	return b
}

// A baseline grows one session at a time: each Grow adds the session's
// runs after the others, and beyond keep sessions the oldest go, all
// their runs with them. The full data is the newest session's.
func TestGrow(t *testing.T) {
	b := sessionRun(t, "s01", 1)
	// The first session recorded two runs (-count=2).
	require.NoError(t, b.AddRun(sessionRun(t, "s01", 2)))
	for i := 2; i <= 12; i++ {
		cur := sessionRun(t, fmt.Sprintf("s%02d", i), uint64(10+i))
		before := len(b.RunSummaries())
		grown, g, err := Grow(b, cur, 10)
		require.NoError(t, err)
		require.Len(t, b.RunSummaries(), before, "old is not changed")
		require.Equal(t, grown.Sessions(), g.Sessions)
		switch {
		case i <= 10:
			require.Len(t, g.Sessions, i)
			require.Empty(t, g.Evicted)
		case i == 11:
			require.Len(t, g.Sessions, 10)
			require.Equal(t, []string{"s01"}, g.Evicted, "the oldest session goes first")
			require.Equal(t, 2, g.EvictedRuns, "with both its runs")
		case i == 12:
			require.Equal(t, []string{"s02"}, g.Evicted)
			require.Equal(t, 1, g.EvictedRuns)
		}
		require.Equal(t, cur.Session, g.Sessions[len(g.Sessions)-1], "this session last")
		require.Equal(t, cur.Session, grown.Session, "the full data is the newest session's")
		require.Equal(t, cur.Dir("read").IOPS, grown.Dir("read").IOPS)
		require.Equal(t, cur.Seconds, grown.Seconds)
		require.Equal(t, SchemaVersion, grown.Schema)
		// It writes and loads back.
		data, err := Marshal(grown)
		require.NoError(t, err)
		back, err := decode(data, "grown.json")
		require.NoError(t, err)
		require.Equal(t, g.Sessions, back.Sessions())
		b = back
	}
	want := []string{"s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s11", "s12"}
	require.Equal(t, want, b.Sessions())
	require.Len(t, b.Runs, 10)

	// Runs of one session (-count=3 in this process) count once: keep 2
	// keeps the session before and all three.
	cur := sessionRun(t, "s13", 40)
	require.NoError(t, cur.AddRun(sessionRun(t, "s13", 41)))
	require.NoError(t, cur.AddRun(sessionRun(t, "s13", 42)))
	grown, g, err := Grow(b, cur, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"s12", "s13"}, g.Sessions)
	require.Equal(t, want[:9], g.Evicted)
	require.Len(t, grown.Runs, 4)

	// keep 1 keeps this session only: a baseline of one run has no Runs.
	grown, _, err = Grow(b, sessionRun(t, "s14", 50), 1)
	require.NoError(t, err)
	require.Nil(t, grown.Runs)
	require.Equal(t, []string{"s14"}, grown.Sessions())

	_, _, err = Grow(b, cur, 0)
	require.ErrorContains(t, err, "keep 0 sessions: want at least 1")
}

// Schema 3 runs have no session: together they are one session, the
// oldest, and go together.
func TestGrowSchema3(t *testing.T) {
	old := sessionRun(t, "", 1)
	require.NoError(t, old.AddRun(sessionRun(t, "", 2)))
	require.NoError(t, old.AddRun(sessionRun(t, "", 3)))
	old.Schema = 3
	grown, g, err := Grow(old, sessionRun(t, "s1", 4), 10)
	require.NoError(t, err)
	require.Equal(t, []string{"", "s1"}, g.Sessions)
	require.Len(t, grown.Runs, 4)
	_, g, err = Grow(grown, sessionRun(t, "s2", 5), 2)
	require.NoError(t, err)
	require.Equal(t, []string{""}, g.Evicted)
	require.Equal(t, 3, g.EvictedRuns)
}

// A baseline of another job, workload or device is refused, saying what
// differs.
func TestGrowRefuses(t *testing.T) {
	old := sessionRun(t, "s1", 1)
	cur := sessionRun(t, "s2", 2)
	cur.Name = "other"
	_, _, err := Grow(old, cur, 10)
	require.ErrorIs(t, err, ErrOtherJob)
	require.ErrorContains(t, err, `"other" is not "randread-4k"`)

	cur = sessionRun(t, "s2", 2)
	cur.Job.IODepth = old.Job.IODepth * 2
	_, _, err = Grow(old, cur, 10)
	require.ErrorIs(t, err, ErrOtherJob)
	require.ErrorContains(t, err, "the workload differs: iodepth")

	cur = sessionRun(t, "s2", 2)
	cur.Fingerprint.Serial = "S999"
	_, _, err = Grow(old, cur, 10)
	require.ErrorIs(t, err, ErrOtherDevice)
	require.ErrorContains(t, err, "serial S123 -> S999")

	cur = sessionRun(t, "s2", 2)
	cur.Fingerprint.Firmware = "1.3"
	_, _, err = Grow(old, cur, 10)
	require.NoError(t, err, "a firmware update is the same device")
}
