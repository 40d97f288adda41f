package regress

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"stortest.dev/baselines"
)

// looksStats is the repeat option on recorded sessions: how many runs
// it took and how the comparisons ended.
type looksStats struct {
	n, runs                    int
	regressions, ok, undecided int
}

func (s looksStats) String() string {
	return fmt.Sprintf("%.2f runs on average; %s regression, %s pass, %s inconclusive", float64(s.runs)/float64(s.n),
		rate(s.regressions, s.n), rate(s.ok, s.n), rate(s.undecided, s.n))
}

// repeatLooks runs the repeat option as stortest does, n times: a
// baseline of k sessions of base against one session of cur, whose runs
// come one look at a time (up to looks), each look judging the
// geometric mean of the session's runs so far at its share of the
// false-alarm rate (Config.Looks, Config.Look), stopping once the
// verdict is not inconclusive or another run would not settle it
// (Report.RunAgain). change alters each current run (nil: as recorded).
func repeatLooks(t testing.TB, base []*baselines.Baseline, cur [][]*baselines.Baseline, k, n, looks int, seed uint64,
	change func(*baselines.Baseline) *baselines.Baseline) looksStats {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	var st looksStats
	for range n {
		p := rng.Perm(len(base))[:k]
		idx := append([]int(nil), p...)
		slices.Sort(idx)
		bl := baselineOf(t, base, idx)
		runs := cur[rng.IntN(len(cur))]
		var taken []*baselines.Baseline
		var rep Report
		for l := 1; l <= min(looks, len(runs)); l++ {
			r := runs[l-1]
			if change != nil {
				r = change(r)
			}
			taken = append(taken, r)
			rep = Compare(bl, oneSession(t, taken...), Config{Looks: looks, Look: l})
			if rep.Verdict != Inconclusive || !rep.RunAgain() {
				break
			}
		}
		st.n++
		st.runs += len(taken)
		switch {
		case rep.Verdict == Regression:
			st.regressions++
		case rep.Verdict.OK():
			st.ok++
		default:
			st.undecided++
		}
	}
	return st
}
