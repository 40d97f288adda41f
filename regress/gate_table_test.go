package regress

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
	"stortest.dev/internal/testenv"
	"stortest.dev/latency"
)

// The gate's operating table on recorded sessions: testdata/sessions
// holds unchanged runs of the README's job (io_uring, 4 KiB random reads
// at depth 32, 10 s), each recorded by its own process, as a CI job's
// `go test` is (scripts/record-sessions.sh; the README there says how):
//
//   - steady: a loop device over /dev/shm, its reads throttled by cgroup
//     v1 blkio to 20000 IOPS, on a quiet machine (no other work);
//   - loaded: the same device once other builds saturated the machine's
//     two CPUs, which the throttled device then could not keep up with;
//   - steady17k: the same device throttled to 17000 IOPS, a real -15%;
//   - repeat: the same device, three runs per session (-rK files), for
//     the repeat option's looks;
//   - loaded17k, loaded-repeat, loaded-repeat17k: as steady17k and
//     repeat (at 20000 and 17000 IOPS), on the loaded host;
//   - noisy: a direct-I/O loop device over a file on the machine's disk
//     while stress-ng keeps both CPUs half busy.
//
// A baseline of k sessions is grown one session at a time, oldest
// first, as a user appending each session's run would; every
// comparison's current run is a session the baseline does not hold.
// Baselines and current runs are drawn with a fixed seed, so the table
// is the same on every machine. A slowdown is simulated by scaling the
// current run's completions (slowed: latencies as recorded), a tail
// latency rise by scaling its latencies above p90 (tailSlowed:
// throughput as recorded).

// gateSetDir is the directory of a set of sessions:
// testdata/sessions/<set>, unless STORTEST_GATE_SETS maps the set to
// another (absolute, or relative to testdata/sessions), so that the
// table can be made of other recordings without copying them, e.g.
// STORTEST_GATE_SETS=steady=/rec/quiet-steady,steady17k=/rec/quiet-steady17k.
func gateSetDir(t testing.TB, set string) string {
	t.Helper()
	dir := set
	for m := range strings.SplitSeq(os.Getenv("STORTEST_GATE_SETS"), ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		k, v, ok := strings.Cut(m, "=")
		if !ok || v == "" {
			t.Fatalf("STORTEST_GATE_SETS: %q is not SET=DIR", m)
		}
		if k == set {
			dir = v
		}
	}
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join("testdata", "sessions", dir)
}

// sessionFiles returns the recorded files of set, sorted.
func sessionFiles(t testing.TB, set, pattern string) []string {
	t.Helper()
	dir := gateSetDir(t, set)
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Fatalf("no recorded sessions in %s (scripts/record-sessions.sh records them)", dir)
	}
	slices.Sort(paths)
	return paths
}

// loadGz reads one gzipped baseline.
func loadGz(t testing.TB, path string) *baselines.Baseline {
	t.Helper()
	b, err := baselines.Decode(bytes.NewReader(testenv.Gunzip(t, path)), path)
	require.NoError(t, err)
	return b
}

// sessionID names a recorded file's session: "steady/session-07" for
// testdata/sessions/steady/session-07.json.gz and for its runs
// session-07-r2.json.gz alike.
var sessionFile = regexp.MustCompile(`^(session-\d+)(?:-r\d+)?\.json\.gz$`)

func sessionID(t testing.TB, set, path string) string {
	t.Helper()
	m := sessionFile.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		t.Fatalf("%s: not a session file (session-NN.json.gz or session-NN-rK.json.gz)", path)
	}
	return set + "/" + m[1]
}

// gateSessions loads the sessions of set, one run each, oldest first.
func gateSessions(t testing.TB, set string) []*baselines.Baseline {
	t.Helper()
	var out []*baselines.Baseline
	for _, p := range sessionFiles(t, set, "session-*.json.gz") {
		b := loadGz(t, p)
		asSession(b, sessionID(t, set, p))
		out = append(out, b)
	}
	slices.SortStableFunc(out, func(a, b *baselines.Baseline) int { return a.Created.Compare(b.Created) })
	return out
}

// repeatSessions loads the sessions of set that hold several runs each
// (session-NN-rK.json.gz), as each session's runs in order.
func repeatSessions(t testing.TB, set string) [][]*baselines.Baseline {
	t.Helper()
	var out [][]*baselines.Baseline
	last := ""
	for _, p := range sessionFiles(t, set, "session-*-r*.json.gz") {
		id := sessionID(t, set, p)
		b := loadGz(t, p)
		asSession(b, id)
		if id != last {
			out = append(out, nil)
			last = id
		}
		out[len(out)-1] = append(out[len(out)-1], b)
	}
	for _, runs := range out {
		slices.SortFunc(runs, func(a, b *baselines.Baseline) int { return a.Created.Compare(b.Created) })
	}
	return out
}

// grown is the baseline that sessions, oldest first, leave when each
// adds its run with -stortest.update=append (baselines.Grow, keeping
// the default number of sessions): the newest session's full data and
// every session's run summary. sessions are not modified.
func grown(t testing.TB, sessions ...*baselines.Baseline) *baselines.Baseline {
	t.Helper()
	b := sessions[0]
	for _, s := range sessions[1:] {
		var err error
		b, _, err = baselines.Grow(b, s, baselines.DefaultKeep)
		require.NoError(t, err)
	}
	return b
}

// oneSession is the current run of a session that ran several times
// (the repeat option): the first run's full data and every run's
// summary, as baselines.Baseline.AddRun keeps them.
func oneSession(t testing.TB, runs ...*baselines.Baseline) *baselines.Baseline {
	t.Helper()
	b := *runs[0]
	b.Runs = nil
	for _, r := range runs[1:] {
		require.NoError(t, b.AddRun(r))
	}
	return &b
}

// tailSlowed returns a copy of b whose completion latencies above the
// run's p90 are factor times their own, so that its clat p99, p99.9 and
// p99.99 rise by factor (to fio's bucket resolution, about 1.6%) while
// its p50, p90 and throughput stay as recorded: the tail regression a
// firmware's garbage collection or a driver's timeout shows. Each
// latency stat (clat and lat) is rebuilt from its histogram: the
// buckets above p90 move to the bucket of their value times factor, and
// the percentiles, maximum, mean and deviation follow (the mean and
// deviation by the histogram's change, kept exact where unmoved). Each
// second's clat p99 and p99.9 (at or above the run's p90) rise by
// factor, its p50 where it is above the run's p90, and its mean by the
// run's mean's ratio. A closed-loop job at a fixed depth could keep its
// throughput so only if its other latencies fell (Little's law); on the
// throttled device the latencies above p90 carry most of the mean, so
// the mean rises nearly as much as the tail: the table shows apart what
// a clat percentile catches.
func tailSlowed(t testing.TB, b *baselines.Baseline, factor float64) *baselines.Baseline {
	t.Helper()
	c := *b
	c.Dirs = nil
	meanRatio := map[string]float64{}
	p90 := map[string]uint64{}
	for _, d := range b.Dirs {
		nd := *d
		for _, s := range []**baselines.Stat{&nd.Clat, &nd.Lat} {
			if *s == nil {
				continue
			}
			ns := tailScaled(t, *s, factor)
			if s == &nd.Clat {
				meanRatio[d.Name] = ns.Mean / (*s).Mean
				p90[d.Name] = (*s).P90
			}
			*s = ns
		}
		c.Dirs = append(c.Dirs, &nd)
	}
	scale := func(v uint64, dir string) uint64 {
		if v == 0 || v < p90[dir] {
			return v
		}
		return uint64(float64(v)*factor + 0.5)
	}
	c.Seconds = make([]baselines.Second, len(b.Seconds))
	for i, s := range b.Seconds {
		c.Seconds[i] = s
		for di, sd := range s.Dirs {
			if sd == nil {
				continue
			}
			dir := baselines.DirNames[di]
			n := *sd
			n.ClatP50, n.ClatP99, n.ClatP999 = scale(sd.ClatP50, dir), scale(sd.ClatP99, dir), scale(sd.ClatP999, dir)
			if r, ok := meanRatio[dir]; ok {
				n.ClatMean = uint64(float64(sd.ClatMean)*r + 0.5)
			}
			c.Seconds[i].Dirs[di] = &n
		}
	}
	return &c
}

// tailScaled is one latency stat with its values above P90 times factor.
func tailScaled(t testing.TB, s *baselines.Stat, factor float64) *baselines.Stat {
	t.Helper()
	require.NotNil(t, s.Hist, "tailSlowed needs histograms")
	old, err := s.Hist.Histogram()
	require.NoError(t, err)
	l := old.Layout()
	h := latency.New(l)
	for _, bin := range s.Hist.Bins {
		v := bin.Value
		if v > s.P90 {
			v = l.Value(l.Index(uint64(float64(v)*factor + 0.5)))
		}
		h.AddBin(v, bin.Count)
	}
	ns := *s
	ns.Hist = &baselines.Hist{Groups: s.Hist.Groups, Bins: h.Bins()}
	ns.Max = max(s.Max, uint64(float64(s.Max)*factor+0.5))
	ns.Mean = s.Mean + (h.Mean() - old.Mean())
	if old.Stddev() > 0 {
		ns.Stddev = s.Stddev * h.Stddev() / old.Stddev()
	}
	ns.P50, ns.P90, ns.P99, ns.P999, ns.P9999 = h.Percentile(50), h.Percentile(90), h.Percentile(99), h.Percentile(99.9), h.Percentile(99.99)
	return &ns
}

// draw is one comparison: baseline sessions (indices, oldest first) and
// the current session.
type draw struct {
	base []int
	cur  int
}

// draws returns n comparisons of k baseline sessions out of total and a
// current session not among them, drawn with seed.
func draws(n, k, total int, seed uint64) []draw {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	out := make([]draw, n)
	for i := range out {
		p := rng.Perm(total)
		base := slices.Clone(p[:k])
		slices.Sort(base)
		out[i] = draw{base: base, cur: p[k]}
	}
	return out
}

// opStats is one row of the operating table.
type opStats struct {
	set          string
	k            int // baseline sessions
	n            int // unchanged comparisons
	alarms       int // regressions among them
	strict       int // pass or improvement
	inconclusive int
	// unsettled are inconclusive findings' reasons that name nothing that
	// would settle them (see settles).
	unsettled []string
	// drop and rise: the smallest IOPS drop and p99 rise caught 9 times
	// in 10 (NaN: none on the grid); risePct, the smallest rise caught
	// so by a clat percentile's finding.
	drop, rise, risePct float64
}

// gateGrid are the levels tried for the smallest drop and rise.
var gateGrid = []float64{0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80}

// settles matches what an inconclusive reason may name to settle it:
// more runs, sessions, seconds or samples, a longer run, another run or
// a rerun elsewhere, a baseline recorded again, a spread said to be
// smaller.
var settles = regexp.MustCompile(`more (runs?|sessions?|seconds?|slices?|I/Os|intervals?|baseline)|another run|run again|rerun|longer|record|AssumeRunSpread|run-spread`)

// unchangedStats compares n unchanged draws of k sessions of set.
func unchangedStats(t testing.TB, sess []*baselines.Baseline, set string, k, n int, seed uint64, cfg Config) opStats {
	t.Helper()
	st := opStats{set: set, k: k, n: n, drop: math.NaN(), rise: math.NaN(), risePct: math.NaN()}
	for _, d := range draws(n, k, len(sess), seed) {
		r := Compare(baselineOf(t, sess, d.base), sess[d.cur], cfg)
		switch {
		case r.Verdict == Regression:
			st.alarms++
		case r.Verdict.OK():
			st.strict++
		default:
			st.inconclusive++
		}
		for _, f := range r.Inconclusive() {
			if !settles.MatchString(f.Reason) {
				st.unsettled = append(st.unsettled, f.Reason)
			}
		}
	}
	return st
}

// baselineOf grows the baseline of sessions idx of sess.
func baselineOf(t testing.TB, sess []*baselines.Baseline, idx []int) *baselines.Baseline {
	t.Helper()
	runs := make([]*baselines.Baseline, len(idx))
	for i, j := range idx {
		runs[i] = sess[j]
	}
	if len(runs) == 1 {
		return runs[0]
	}
	return grown(t, runs...)
}

// caught counts, over trials draws, the comparisons of a changed current
// run that are regressions, and those with a regression on a clat
// percentile (p50 to p99.99) among them.
func caught(t testing.TB, sess []*baselines.Baseline, k, trials int, seed uint64, cfg Config,
	change func(*baselines.Baseline) *baselines.Baseline) (n, byPercentile int) {
	t.Helper()
	for _, d := range draws(trials, k, len(sess), seed) {
		r := Compare(baselineOf(t, sess, d.base), change(sess[d.cur]), cfg)
		if r.Verdict != Regression {
			continue
		}
		n++
		if slices.ContainsFunc(r.Regressions(), func(f Finding) bool { return strings.Contains(f.Metric, ".clat.p") }) {
			byPercentile++
		}
	}
	return n, byPercentile
}

// smallestCaught scans the grid upwards for the first level caught at
// least 9 times in 10, and the first caught so by a clat percentile's
// finding; NaN when none is.
func smallestCaught(t testing.TB, sess []*baselines.Baseline, k, trials int, seed uint64, cfg Config,
	change func(b *baselines.Baseline, level float64) *baselines.Baseline) (level, byPercentile float64) {
	t.Helper()
	level, byPercentile = math.NaN(), math.NaN()
	for _, l := range gateGrid {
		n, p := caught(t, sess, k, trials, seed, cfg, func(b *baselines.Baseline) *baselines.Baseline { return change(b, l) })
		if math.IsNaN(level) && n*10 >= trials*9 {
			level = l
		}
		if math.IsNaN(byPercentile) && p*10 >= trials*9 {
			byPercentile = l
		}
		if !math.IsNaN(level) && !math.IsNaN(byPercentile) {
			break
		}
	}
	return level, byPercentile
}

func dropBy(_ testing.TB) func(*baselines.Baseline, float64) *baselines.Baseline {
	return func(b *baselines.Baseline, d float64) *baselines.Baseline { return slowed(b, 1-d) }
}

func riseBy(t testing.TB) func(*baselines.Baseline, float64) *baselines.Baseline {
	return func(b *baselines.Baseline, r float64) *baselines.Baseline { return tailSlowed(t, b, 1+r) }
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "> 80%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}

func rate(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", n, of, 100*float64(n)/float64(of))
}

// TestGateOperatingTable prints the table make bench shows
// (scripts/bench-gate.sh, under STORTEST_GATE_TABLE=1): per device and
// baseline size, over 240 unchanged comparisons, the false alarms (any
// regression), the strict pass rate (pass or improvement) and the
// inconclusive ones, and the smallest IOPS drop and p99 rise caught 9
// times in 10 (40 trials per level); then how the real -15% sessions
// (steady17k) are judged beside the simulated -15%, and how many runs
// the repeat option takes (repeatLooks) on unchanged and -15% sessions.
func TestGateOperatingTable(t *testing.T) {
	if os.Getenv("STORTEST_GATE_TABLE") != "1" {
		t.Skip("STORTEST_GATE_TABLE=1 prints the gate's operating table (make bench)")
	}
	const n, trials = 240, 40
	var b strings.Builder
	fmt.Fprintf(&b, "### The gate on recorded sessions (10 s runs, default rules)\n\n")
	fmt.Fprintf(&b, "| device | baseline sessions | false alarms | strict pass | inconclusive | smallest IOPS drop caught 9/10 | smallest p99 rise caught 9/10 | the same by a clat percentile |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
	sets := map[string][]*baselines.Baseline{}
	var notes []string
	for _, set := range []string{"steady", "loaded", "noisy"} {
		sets[set] = gateSessions(t, set)
		for _, k := range []int{1, 5, 10} {
			sess := sets[set]
			st := unchangedStats(t, sess, set, k, n, 1, Config{})
			st.drop, _ = smallestCaught(t, sess, k, trials, 2, Config{}, dropBy(t))
			st.rise, st.risePct = smallestCaught(t, sess, k, trials, 3, Config{}, riseBy(t))
			fmt.Fprintf(&b, "| %s (%d sessions) | %d | %s | %s | %s | %s | %s | %s |\n", set, len(sess), k,
				rate(st.alarms, st.n), rate(st.strict, st.n), rate(st.inconclusive, st.n), pct(st.drop), pct(st.rise), pct(st.risePct))
			if len(st.unsettled) > 0 {
				notes = append(notes, fmt.Sprintf("%s, %d sessions: %d inconclusive findings name nothing that would settle them, e.g. %q",
					set, k, len(st.unsettled), st.unsettled[0]))
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	// The simulation of a slower device against the real one: baselines
	// of the steady (and loaded) sessions against each session recorded
	// at 17000 IOPS on the same host, and against as many of the set's
	// other sessions slowed to 85%.
	fmt.Fprintf(&b, "\n### Real -15%% (sessions at 17000 IOPS) and simulated -15%%\n\n")
	fmt.Fprintf(&b, "| baseline | real -15%% | baseline sessions | real -15%% caught | simulated -15%% caught |\n|---|---|---:|---:|---:|\n")
	for _, pair := range [][2]string{{"steady", "steady17k"}, {"loaded", "loaded17k"}} {
		sess, real := sets[pair[0]], gateSessions(t, pair[1])
		for _, k := range []int{1, 5, 10} {
			rng := rand.New(rand.NewPCG(4, uint64(k)))
			var got, sim, tries, simTries int
			for range 10 {
				p := rng.Perm(len(sess))
				base := slices.Clone(p[:k])
				slices.Sort(base)
				bl := baselineOf(t, sess, base)
				for _, r := range real {
					tries++
					if Compare(bl, r, Config{}).Verdict == Regression {
						got++
					}
				}
				for _, j := range p[k:min(len(p), k+len(real))] {
					simTries++
					if Compare(bl, slowed(sess[j], 0.85), Config{}).Verdict == Regression {
						sim++
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %s (%d sessions) | %d | %s | %s |\n", pair[0], pair[1], len(real), k, rate(got, tries), rate(sim, simTries))
		}
	}
	// The repeat option: the current session runs again while the
	// comparison is inconclusive and another run could settle it, up to
	// three runs, each look at its share of the false-alarm rate. The
	// current sessions are recorded on the baseline's host: repeat/ on
	// the quiet one, loaded-repeat/ and loaded-repeat17k/ on the loaded
	// one.
	fmt.Fprintf(&b, "\n### The repeat option (up to 3 runs of the current session)\n\n")
	fmt.Fprintf(&b, "| baseline | baseline sessions | current | runs taken on average, verdicts |\n|---|---:|---|---|\n")
	slower := func(b *baselines.Baseline) *baselines.Baseline { return slowed(b, 0.85) }
	type looksRow struct {
		name, set string
		change    func(*baselines.Baseline) *baselines.Baseline
	}
	for _, c := range []struct {
		base string
		rows []looksRow
	}{
		{"steady", []looksRow{{"unchanged", "repeat", nil}, {"simulated -15%", "repeat", slower}}},
		{"loaded", []looksRow{{"unchanged", "loaded-repeat", nil}, {"simulated -15%", "loaded-repeat", slower}, {"real -15%", "loaded-repeat17k", nil}}},
	} {
		for _, k := range []int{5, 10} {
			for _, row := range c.rows {
				cur := repeatSessions(t, row.set)
				st := repeatLooks(t, sets[c.base], cur, k, 100, 3, 5, row.change)
				fmt.Fprintf(&b, "| %s | %d | %s (%s: %d sessions) | %s |\n", c.base, k, row.name, row.set, len(cur), st)
			}
		}
	}
	fmt.Print(b.String())
}

// The helpers' own checks: tailSlowed raises p99 and the tail by the
// factor, to the bucket resolution, and leaves p50, p90 and throughput
// as recorded; sessions are named by their files.
func TestTailSlowed(t *testing.T) {
	b := gateSessions(t, "steady")[0]
	c := tailSlowed(t, b, 1.3)
	bd, cd := b.Dir("read"), c.Dir("read")
	require.Equal(t, bd.IOPS, cd.IOPS)
	require.Equal(t, bd.Clat.P50, cd.Clat.P50)
	require.Equal(t, bd.Clat.P90, cd.Clat.P90)
	require.Equal(t, bd.Clat.N, cd.Clat.N)
	for _, p := range []struct{ b, c uint64 }{{bd.Clat.P99, cd.Clat.P99}, {bd.Clat.P999, cd.Clat.P999}, {bd.Clat.P9999, cd.Clat.P9999}} {
		require.InDelta(t, 1.3, float64(p.c)/float64(p.b), 0.03)
	}
	require.Greater(t, cd.Clat.Mean, bd.Clat.Mean)
	require.Equal(t, bd.Clat.P99, b.Dir("read").Clat.P99, "the original is not modified")
	for i, s := range c.Seconds {
		if s.Dirs[0] != nil && b.Seconds[i].Dirs[0].ClatP99 >= bd.Clat.P90 {
			require.InDelta(t, 1.3, float64(s.Dirs[0].ClatP99)/float64(b.Seconds[i].Dirs[0].ClatP99), 0.01)
		}
	}
	r := Compare(b, c, Config{})
	f, ok := r.Finding("read.clat.p99")
	require.True(t, ok)
	require.InDelta(t, 0.3, f.Change(), 0.03)
	f, _ = r.Finding("read.clat.p50")
	require.Zero(t, f.Change())
}

// asSession marks b as the run of session id: the recorded files predate
// sessions (schema 3), so their file names say which process made them.
func asSession(b *baselines.Baseline, id string) { b.Session = id }
