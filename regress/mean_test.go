package regress

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// pacedRun makes the baseline of a short paced run at depth 1 (as the
// gate test's): about perSec I/Os in each of seconds whole seconds, the
// I/Os of second s drawn from lat(s)(), then a last interval without I/O,
// as a throttled run ends.
func pacedRun(t testing.TB, seconds, perSec int, rng *rand.Rand, lat func(s int) func() float64) *baselines.Baseline {
	t.Helper()
	layout := latency.MustLayout(latency.LongGroups)
	total, sec := latency.New(layout), latency.New(layout)
	runtime := time.Duration(seconds)*time.Second + 300*time.Millisecond
	jr := &workload.JobResult{
		Name: "paced", Engine: "psync", Target: "/dev/loop9",
		Job:     workload.Job{Name: "paced", Engine: "psync", RW: workload.RandRead, Direct: true, Runtime: runtime, TimeBased: true},
		Start:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Runtime: runtime,
	}
	for s := range seconds {
		draw := lat(s)
		n := int(math.Round(float64(perSec) + math.Sqrt(float64(perSec))*rng.NormFloat64()))
		sec.Reset()
		for range n {
			sec.Add(uint64(draw()))
		}
		if err := total.Merge(sec); err != nil {
			t.Fatal(err)
		}
		var second workload.Second
		second.T, second.Dur = time.Duration(s+1)*time.Second, time.Second
		second.IOs[workload.DirRead], second.Bytes[workload.DirRead] = uint64(n), uint64(n)*4096
		second.Clat[workload.DirRead] = latency.NewSparse(sec)
		jr.Seconds = append(jr.Seconds, second)
	}
	jr.Seconds = append(jr.Seconds, workload.Second{T: runtime, Dur: runtime - time.Duration(seconds)*time.Second})
	jr.Dirs[workload.DirRead] = workload.DirStats{IOs: total.Count(), Bytes: total.Count() * 4096, Clat: total, Lat: total.Clone()}
	b, err := baselines.FromJobResult(jr, baselines.Fingerprint{Kind: "loop", Device: "loop9", Kernel: "6.18"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// drifting is an unthrottled device: lognormal latencies around a 100µs
// median whose level drifts from second to second (AR(1), phi 0.7, 10%).
func drifting(rng *rand.Rand) func(int) func() float64 {
	x := 0.0
	return func(int) func() float64 {
		x = 0.7*x + 0.1*math.Sqrt(1-0.7*0.7)*rng.NormFloat64()
		median := 100e3 * math.Exp(x)
		return func() float64 { return median * math.Exp(0.35*rng.NormFloat64()) }
	}
}

// throttled is a device behind blk-throttle, which lets I/O through in
// bursts: in some seconds most I/Os pass at once and a few wait long, in
// others most wait, in runs of seconds. Each second's mean clat is about
// mean; its median swings about 4x between ~100µs and ~mean.
func throttled(rng *rand.Rand, mean float64) func(int) func() float64 {
	waitMost := rng.IntN(2) == 0
	fast := 100e3 * math.Exp(0.35*0.35/2) // the mean of an unthrottled I/O
	return func(int) func() float64 {
		if rng.Float64() < 0.3 {
			waitMost = !waitMost
		}
		f := 0.1 // of the I/Os wait
		if waitMost {
			f = 0.9
		}
		wait := (mean - (1-f)*fast) / f
		return func() float64 {
			if rng.Float64() < f {
				return wait * math.Exp(0.2*rng.NormFloat64()-0.02)
			}
			return 100e3 * math.Exp(0.35*rng.NormFloat64())
		}
	}
}

// withoutMeans returns b as a baseline of schema 1 has it: no per-second
// clat means.
func withoutMeans(b *baselines.Baseline) *baselines.Baseline {
	c := *b
	c.Schema = 1
	c.Seconds = append([]baselines.Second(nil), b.Seconds...)
	for i := range c.Seconds {
		for j, d := range c.Seconds[i].Dirs {
			if d != nil {
				dd := *d
				dd.ClatMean = 0
				c.Seconds[i].Dirs[j] = &dd
			}
		}
	}
	return &c
}

// meanConfig compares mean clat, as a gate on a device whose percentiles
// are too noisy to gate on would: regression beyond 2x.
func meanConfig() Config {
	var cfg Config
	cfg.Set("*.clat.mean", Tolerance{Fraction: 1, Floor: 20e3})
	return cfg
}

// A throttled device's mean clat is 4x the baseline's in every second
// while its per-second median swings between ~100µs and the mean: the
// drift of the mean is measured on the per-second means, so 11 seconds
// are enough for a regression. (The per-second median, which the mean
// used to take its drift from, left about a third of these inconclusive
// with intervals such as -71%..+5552%.) An unchanged run of the same
// drifting device is not flagged.
func TestMeanDriftFromPerSecondMeans(t *testing.T) {
	const trials, seconds = 30, 11
	cfg := meanConfig()
	for i := range trials {
		rng := rand.New(rand.NewPCG(21, uint64(i)))
		base := pacedRun(t, seconds, 2000, rng, drifting(rng))
		same := pacedRun(t, seconds, 2000, rng, drifting(rng))
		slow := pacedRun(t, seconds, 1000, rng, throttled(rng, 4*base.Dir("read").Clat.Mean))
		require.Len(t, slow.PerSecond("read", baselines.SecondClatMean), seconds, "the idle last interval has no mean")

		f, ok := Compare(base, slow, cfg).Finding("read.clat.mean")
		require.True(t, ok)
		require.Equal(t, Regression, f.Verdict, "trial %d: %s", i, f.Reason)
		require.Contains(t, f.Samples.Method, "moving-block bootstrap of per-second clat means (blocks of 4 and 4 s)")
		if f.Samples.Kind == "seconds" { // the drift dominates the standard errors
			require.Equal(t, uint64(seconds), f.Samples.Base)
		}

		f, _ = Compare(base, same, cfg).Finding("read.clat.mean")
		require.NotEqual(t, Regression, f.Verdict, "trial %d, unchanged: %s", i, f.Reason)
		require.Contains(t, f.Samples.Method, "per-second clat means")
	}
}

// Baselines without per-second means (schema 1) are compared as before,
// with the drift of the per-second p50, also when only one of the runs
// has them; too few per-second means is inconclusive, with how many more
// seconds would do.
func TestMeanDriftFallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	base := pacedRun(t, 20, 2000, rng, drifting(rng))
	cur := pacedRun(t, 20, 2000, rng, drifting(rng))
	cfg := meanConfig()
	for _, tc := range []struct {
		name string
		b, c *baselines.Baseline
	}{
		{"both-old", withoutMeans(base), withoutMeans(cur)},
		{"old-baseline", withoutMeans(base), cur},
		{"old-current", base, withoutMeans(cur)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := Compare(tc.b, tc.c, cfg).Finding("read.clat.mean")
			require.True(t, ok)
			require.NotNil(t, f.Interval, f.Reason)
			require.Contains(t, f.Samples.Method, "per-second clat p50")
			require.NotEqual(t, Regression, f.Verdict, f.Reason)
		})
	}

	short := pacedRun(t, 6, 2000, rng, drifting(rng))
	f, _ := Compare(base, short, cfg).Finding("read.clat.mean")
	require.Equal(t, Inconclusive, f.Verdict)
	require.Contains(t, f.Reason, "6 per-second samples, need 10 to measure the drift between seconds (4 more seconds per run)")
	require.Equal(t, uint64(4), f.More)
}
