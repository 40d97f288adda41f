package regress

import (
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// A session that swung from second to second is not held to one
// session's assumed spread: on the noisy device (testdata/sessions), an
// unshared session at half the IOPS of the one baseline session, whose
// seconds swung 38%, is inconclusive, and says why and what would settle
// it; slowed to a fifth it is still a regression (a swing widens the
// interval, it excuses nothing). A steady session of the throttled
// device, which swings under 1%, is judged as before: halved, a
// regression; and a spread said (Config.RunSpread) is taken as said.
func TestSwingWidensUnsettledSessions(t *testing.T) {
	byName := func(set, name string) *baselines.Baseline {
		for _, b := range gateSessions(t, set) {
			if b.Session == set+"/"+name {
				return b
			}
		}
		t.Fatalf("no %s/%s", set, name)
		return nil
	}
	base, cur := byName("noisy", "session-23"), byName("noisy", "session-19")
	require.Empty(t, cur.Shared, "an unshared session")
	r := Compare(base, cur, Config{})
	require.Equal(t, Inconclusive, r.Verdict)
	f, ok := r.Finding("read.iops")
	require.True(t, ok)
	require.Less(t, f.Change(), -0.45)
	require.Contains(t, f.Reason, "this run swung 38.2% from second to second")
	require.Contains(t, f.Reason, "a rerun while the host is quiet would settle it")
	require.False(t, r.RunAgain(), "another run of this session would swing as much")

	require.Equal(t, Regression, Compare(base, slowed(cur, 0.2), Config{}).Verdict)
	require.Equal(t, Regression, Compare(base, cur, Config{RunSpread: 0.10}).Verdict, "a spread said is taken as said")

	steady := gateSessions(t, "steady")
	require.Less(t, steady[1].Swing("read"), 0.01)
	require.Equal(t, Regression, Compare(steady[0], slowed(steady[1], 0.5), Config{}).Verdict)
}
