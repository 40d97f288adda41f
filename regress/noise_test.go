package regress

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// The gate on recorded real noise: testdata/noise holds two sets of 16
// unchanged runs each of 2 s, 10 s and 30 s of the README's job (io_uring,
// 4 KiB random reads at depth 32) on a direct-I/O loop device over a file
// on this machine's virtual disk (scripts/record-noise.sh):
//
//   - cpu: while stress-ng kept both CPUs half busy;
//   - shared: with, besides, neighbours on the same disk: a fio job
//     reading and writing 20 MiB/s (NEIGHBOUR=1), and the rest of a busy
//     CI host (another test suite and its own 20 MiB/s of disk load,
//     builds). The disk gave the same job 3.7k to 15.8k IOPS from one run
//     to the next, shifts that no statistic of the runs can tell from a
//     regression. Every run carries the shared-device warning (the disk
//     moved 20-70 MiB/s besides the run's I/O), so the gate calls none of
//     them a regression. The table's "shared, unmarked" rows drop the
//     warning, to show what the statistics alone would call.
//
// Every ordered pair of distinct runs is an unchanged comparison; a
// slowdown is simulated by scaling the current run's completions
// (latencies left as recorded, so that only throughput carries the
// evidence).

// noiseRuns loads the recorded runs of one set ("cpu", "shared") and
// length ("2s", "10s", "30s"), kept gzipped. The set "shared, unmarked"
// is "shared" without the shared-device warning.
func noiseRuns(t testing.TB, set, length string) []*baselines.Baseline {
	t.Helper()
	unmark := set == "shared, unmarked"
	if unmark {
		set = "shared"
	}
	dir := filepath.Join("testdata", "noise", set, length)
	paths, err := filepath.Glob(filepath.Join(dir, "run-*.json.gz"))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Fatalf("no recorded runs in %s (scripts/record-noise.sh records them)", dir)
	}
	slices.Sort(paths)
	var out []*baselines.Baseline
	for _, p := range paths {
		b := loadGz(t, p)
		if unmark {
			b.Shared = ""
		}
		out = append(out, b)
	}
	return out
}

// slowed returns a copy of b whose throughput is factor times its own:
// every count of completions and bytes, per second, per slice and in
// total, scaled.
func slowed(b *baselines.Baseline, factor float64) *baselines.Baseline {
	c := *b
	scale := func(v uint64) uint64 { return uint64(float64(v)*factor + 0.5) }
	c.Dirs = nil
	for _, d := range b.Dirs {
		nd := *d
		nd.IOs, nd.Bytes = scale(d.IOs), scale(d.Bytes)
		nd.IOPS, nd.BW = d.IOPS*factor, d.BW*factor
		for _, m := range []*baselines.Moments{&nd.IOPSSamples, &nd.BWSamples} {
			m.Min, m.Max, m.Mean, m.Stddev = m.Min*factor, m.Max*factor, m.Mean*factor, m.Stddev*factor
		}
		c.Dirs = append(c.Dirs, &nd)
	}
	c.Seconds = slices.Clone(b.Seconds)
	for i := range c.Seconds {
		scaleDirs(&c.Seconds[i].Dirs, func(n *baselines.SecondDir) { n.IOs, n.Bytes = scale(n.IOs), scale(n.Bytes) })
	}
	c.Slices = slices.Clone(b.Slices)
	for i := range c.Slices {
		scaleDirs(&c.Slices[i].Dirs, func(n *baselines.SliceDir) { n.IOs, n.Bytes = scale(n.IOs), scale(n.Bytes) })
	}
	return &c
}

// scaleDirs replaces each direction of a second or a slice by a copy
// that scale changed, leaving the directions without I/O (nil) and the
// original sample as they were.
func scaleDirs[D any](dirs *[3]*D, scale func(*D)) {
	for d, sd := range dirs {
		if sd != nil {
			n := *sd
			scale(&n)
			dirs[d] = &n
		}
	}
}

// multiRun folds runs into one baseline of several runs.
func multiRun(t testing.TB, runs ...*baselines.Baseline) *baselines.Baseline {
	t.Helper()
	b := *runs[0]
	for _, r := range runs[1:] {
		require.NoError(t, b.AddRun(r))
	}
	return &b
}

// gateStats are the unchanged and slowed comparisons of one run length.
type gateStats struct {
	set, length  string
	pairs, false int      // unchanged comparisons and regressions among them
	inconclusive int      // unchanged comparisons neither pass nor regression
	caught       [][2]int // per drop in drops: regressions, trials
}

var drops = []float64{0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80}

// gate compares every ordered pair of distinct runs (k baseline runs
// against one other run) unchanged, and powerTrials pairs at each drop.
func gate(t testing.TB, set, length string, k, powerTrials int, cfg Config) gateStats {
	runs := noiseRuns(t, set, length)
	st := gateStats{set: set, length: length, caught: make([][2]int, len(drops))}
	rng := rand.New(rand.NewPCG(uint64(len(length)), uint64(k)))
	base := func(i int) *baselines.Baseline {
		if k == 1 {
			return runs[i]
		}
		var rs []*baselines.Baseline
		for j := range k {
			rs = append(rs, runs[(i+j)%len(runs)])
		}
		return multiRun(t, rs...)
	}
	var pairs [][2]int
	for i := range runs {
		for j := range runs {
			if (j-i+len(runs))%len(runs) < k {
				continue // the current run is one of the baseline's
			}
			pairs = append(pairs, [2]int{i, j})
		}
	}
	for _, p := range pairs {
		r := Compare(base(p[0]), runs[p[1]], cfg)
		st.pairs++
		switch r.Verdict {
		case Regression:
			st.false++
		case Inconclusive:
			st.inconclusive++
		}
	}
	for di, d := range drops {
		for range powerTrials {
			p := pairs[rng.IntN(len(pairs))]
			r := Compare(base(p[0]), slowed(runs[p[1]], 1-d), cfg)
			st.caught[di][1]++
			if r.Verdict == Regression {
				st.caught[di][0]++
			}
		}
	}
	return st
}

// smallest is the smallest drop caught at least 9 times in 10.
func (s gateStats) smallest() string {
	for i, c := range s.caught {
		if c[1] > 0 && c[0]*10 >= c[1]*9 {
			return fmt.Sprintf("%.0f%%", 100*drops[i])
		}
	}
	return "> 80%"
}

// TestGateOnRecordedNoise holds the defaults to their promise on real
// noise, the CPU-loaded host's, with baselines of one run and of three:
// unchanged runs are rarely flagged (target 1%; measured with one run 0
// of 240 at 2 s and 30 s, 3 of 240 at 10 s, all three against the one
// run whose p99 doubled, which a gate that flags a doubled p99 must;
// with three runs 0, 1 and 0 of 208, where three consecutive runs that
// agreed used to narrow the interval and flagged 13), and the largest
// simulated drop, to a fifth, is caught at least 9 times in 10. That host's disk moves 14% from run to run and shifts
// level within runs, so smaller drops are mostly inconclusive, not
// missed: the power table (make bench) has the figures.
func TestGateOnRecordedNoise(t *testing.T) {
	for _, length := range []string{"2s", "10s", "30s"} {
		for _, k := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d-runs", length, k), func(t *testing.T) {
				st := gate(t, "cpu", length, k, 10, Config{})
				t.Logf("%s, %d baseline runs: %d of %d unchanged comparisons flagged, %d inconclusive; smallest drop caught 9 in 10: %s",
					length, k, st.false, st.pairs, st.inconclusive, st.smallest())
				require.GreaterOrEqual(t, st.pairs, 200)
				require.LessOrEqual(t, float64(st.false)/float64(st.pairs), 0.015, "false alarms on unchanged runs")
				last := st.caught[len(drops)-1]
				require.GreaterOrEqual(t, last[0]*10, last[1]*9, "an 80%% drop missed")
			})
			// The shared host's runs all carry the shared-device warning:
			// none of them is a regression, whatever its IOPS (3.7k-15.8k).
			t.Run(fmt.Sprintf("shared/%s/%d-runs", length, k), func(t *testing.T) {
				st := gate(t, "shared", length, k, 0, Config{})
				require.GreaterOrEqual(t, st.pairs, 200)
				require.Zero(t, st.false, "regressions on a shared device")
			})
		}
	}
}

// TestGatePowerTable prints the table make bench shows: per run length
// and number of baseline runs, the false alarms over every unchanged
// pair and the smallest IOPS drop caught 9 times in 10. It runs under
// STORTEST_GATE_TABLE=1 (scripts/bench-gate.sh).
func TestGatePowerTable(t *testing.T) {
	if os.Getenv("STORTEST_GATE_TABLE") != "1" {
		t.Skip("STORTEST_GATE_TABLE=1 prints the gate's power table (make bench)")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| host | run | baseline runs | unchanged pairs | false alarms | inconclusive | smallest drop caught 9/10 |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, set := range []string{"cpu", "shared", "shared, unmarked"} {
		for _, length := range []string{"2s", "10s", "30s"} {
			for _, k := range []int{1, 3} {
				st := gate(t, set, length, k, 40, Config{})
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %d (%.1f%%) | %d (%.0f%%) | %s |\n", set, length, k, st.pairs, st.false,
					100*float64(st.false)/float64(st.pairs), st.inconclusive, 100*float64(st.inconclusive)/float64(st.pairs), st.smallest())
			}
		}
	}
	fmt.Print(b.String())
}
