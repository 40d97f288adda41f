package baselines

import (
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// A clone's absent histogram is skipped, and one that does not merge
// fails naming the job and clone.
func TestFromResultMergesPartialHistograms(t *testing.T) {
	a, c := synthJob(t, "x", 0, 3, 500, false, 7), synthJob(t, "x", 1, 3, 500, false, 7)
	a.Dirs[0].Slat = nil
	b, err := FromResult(&workload.Result{Jobs: []*workload.JobResult{a, c}}, Fingerprint{})
	require.NoError(t, err)
	require.Equal(t, c.Dirs[0].Slat.Count(), b.Dir("read").Slat.N, "clone 0 has no slat")
	c.Dirs[0].Clat = latency.New(latency.MustLayout(latency.LongGroups - 1))
	_, err = FromResult(&workload.Result{Jobs: []*workload.JobResult{a, c}}, Fingerprint{})
	require.ErrorContains(t, err, "baselines: job x.1: ")
}
