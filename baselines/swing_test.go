package baselines

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// secondsOf is a baseline of one read direction whose whole seconds
// completed ios[i] I/Os at a mean latency of 1e9/ios[i] ns (a closed loop
// at depth 1), and a last partial second.
func secondsOf(ios ...uint64) *Baseline {
	b := &Baseline{Name: "j", Created: time.Unix(1e9, 0).UTC(), Runtime: time.Duration(len(ios)) * time.Second}
	for i, n := range ios {
		sd := &SecondDir{IOs: n, Bytes: 4096 * n}
		if n > 0 {
			sd.ClatMean = 1e9 / n
		}
		b.Seconds = append(b.Seconds, Second{T: time.Duration(i+1) * time.Second, Dur: time.Second, Dirs: [3]*SecondDir{sd}})
	}
	b.Seconds = append(b.Seconds, Second{T: b.Runtime + time.Millisecond, Dur: time.Millisecond, Dirs: [3]*SecondDir{{IOs: 1, ClatMean: 5}}})
	b.Dirs = []*Dir{{Name: "read", IOPS: 1000, BW: 4096000}}
	return b
}

// A steady run swings 0 even with a throttle's first burst; a run whose
// seconds alternate between two rates swings by half their log ratio
// (the median absolute deviation of ±d is d); a stall, or too few
// seconds, leave it at 0. The swing goes into the run's summary and
// through the file.
func TestSwing(t *testing.T) {
	require.Zero(t, secondsOf(23969, 20000, 20000, 20000, 20000, 20000, 20000, 20000).Swing("read"))
	d := math.Log(2) / 2
	alt := secondsOf(1000, 2000, 1000, 2000, 1000, 2000, 1000, 2000)
	require.InDelta(t, 1.4826*d, alt.Swing("read"), 1e-9)
	require.Zero(t, secondsOf(1000, 0, 2000, 1000).Swing("read"), "a stall")
	require.Zero(t, secondsOf(1000, 2000).Swing("read"), "two seconds")
	require.Zero(t, alt.Swing("write"))
	require.InDelta(t, 1.4826*d, alt.LatSwing("read"), 1e-9, "its latency swings with it")
	// A rate-limited run: its throughput holds, its latency swings.
	rated := secondsOf(500, 500, 500, 500, 500, 500)
	for i := range 6 {
		rated.Seconds[i].Dirs[0].ClatMean = [...]uint64{1e5, 4e5}[i%2]
	}
	require.Zero(t, rated.Swing("read"))
	require.InDelta(t, 1.4826*math.Log(4)/2, rated.LatSwing("read"), 1e-9)

	alt.Session = "s1"
	sum := alt.RunSummaries()
	require.InDelta(t, 1.4826*d, sum[0].Dirs[0].Swing, 1e-9)
	require.InDelta(t, 1.4826*d, sum[0].Dirs[0].LatSwing, 1e-9)

	b := sessionRun(t, "s1", 1)
	require.NoError(t, b.AddRun(sessionRun(t, "s2", 2)))
	b.Runs[0].Dirs[0].Swing = 0.25
	b.Runs[0].Dirs[0].LatSwing = 0.5
	b.Runs[1].Dirs[0].Swing, b.Runs[1].Dirs[0].LatSwing = 0, 0
	data, err := Marshal(b)
	require.NoError(t, err)
	require.Contains(t, string(data), `"swing":0.25,"lat_swing":0.5`)
	require.Equal(t, 1, strings.Count(string(data), `"swing"`), "left out when steady")
	back, err := decode(data, "swing.json")
	require.NoError(t, err)
	require.Equal(t, b.Runs, back.Runs)
}
