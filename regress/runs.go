package regress

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"stortest.dev/baselines"
)

// Run-to-run spread: a model of sessions.
//
// Everything a single run records (its seconds, its slices, its I/Os)
// measures the noise within that run. Two runs of an unchanged device
// also differ by what stays fixed for a run's length: the neighbour busy
// for a minute, the state of the SSD's garbage collection, the page
// cache, the CPU the job thread landed on. No interval from inside one
// run sees it, and a gate blind to it flags unchanged devices on noisy
// hosts. So every compared metric also carries a run-to-run spread.
//
// Runs come in sessions: the runs one process made (go test -count=N)
// share the host's state of the moment, while runs of separate
// processes, hours or days apart, do not. Each metric's value is
// modelled on the log scale as
//
//	y_ij = μ + b_j + e_ij,   b_j ~ N(0, σ_b²),   e_ij ~ N(0, σ_w²)
//
// for run i of session j: σ_b is the spread between sessions, σ_w the
// spread within one. The baseline's runs, grouped by their Session,
// give a posterior of (σ_b, σ_w) on a grid (sessionGrid points,
// log-spaced from 0.2% to 80%), from
//
//   - the deviations of runs from their session's mean, whose sum of
//     squares SS_w has N-J degrees of freedom and speaks of σ_w only;
//   - the session means ȳ_j of the J sessions of n_j runs, each normal
//     around μ with variance v_j = σ_b² + σ_w²/n_j, μ integrated out
//     under a flat prior: Π v_j^-1/2 · (Σ 1/v_j)^-1/2 · exp(-½ Σ (ȳ_j-μ̂)²/v_j);
//   - a split log-normal prior on σ_b centred on the assumed spread
//     (DefaultRunSpread, or Config.RunSpread), with a log-scale sd of
//     runSpreadTau(Config.RunSpreadRuns) below it (1.0 by default: a
//     quiet device's 1% lies within 2.3 sd of 10%) and upperTau times
//     that above it (0.48: a noisy device's 30% lies within 2.3 sd), and
//     a weak one on σ_w centred on a quarter of it (sd 1.5 below, 0.72
//     above).
//
// A baseline of one session says nothing of σ_b (the session means'
// likelihood is flat when J = 1), so it is judged on the prior alone, a
// mixture a little wider than the assumed spread was as Student's t
// (a drop beyond 43% is a regression at 99.17%, against 42%). Runs of
// one session (-count=3) measure σ_w and leave σ_b where the prior put
// it. Ten sessions agreeing within 2% (sd 1.1%) are judged at 1.6%.
//
// A session can say itself that it was off: a run whose IOPS or mean
// latency swung from second to second (baselines.RunDir.Swing, a robust
// spread of its seconds; a throttled device swings under 1%, one whose
// host was short of CPU or whose disk others used 10-90%) was not at
// the device's usual level, by about as much as it swung. So in the
// predictive each session's level varies by max(σ_b, u_j), u_j its
// swing (scaled for the metric as the assumed spreads are: a tail twice
// throughput's), the baseline's sessions in the baseline's mean and the
// current one's in its own share. σ_b is learned from the sessions'
// values as they are: a swing only widens a comparison where it exceeds
// what the sessions showed, and a device that holds its level however
// much its seconds swing is judged at that level. On the recorded sessions of a disk-backed loop device
// under CPU load (regress/testdata/sessions/noisy), which moved 8k-49k
// IOPS between sessions, one session's assumed 10% called 3.8% of
// unchanged sessions regressions; their swings of 20-90% make them
// inconclusive, "this run swung 45% from second to second ...: a rerun
// while the host is quiet would settle it". A spread said
// (Config.RunSpread) is taken as said, swings included.
//
// The current run is the mean of R runs of one new session (R = 1 but
// for a repeat); its difference from the baseline's value, the mean of
// the J session means, is normal given (σ_b, σ_w) with variance
//
//	V = max(σ_b², u²) + σ_w²/R + (1/J²) Σ_j (max(σ_b², u_j²) + σ_w²/n_j)
//
// (u and u_j the sessions' swings, 0 for a steady one)
//
// and its predictive distribution is the posterior mixture of those
// normals: a comparison's interval of the change is that mixture's
// quantile at the level judged, found by bisection (predictive.quantile).
// The mixture's components are merged into predictiveBins bins of V, so
// that a quantile costs a few thousand evaluations of erfc. A metric's
// posterior and two quantiles take about 0.15 ms of CPU
// (BenchmarkRunSpread, ten sessions): a comparison of ten metrics spends
// under 2 ms on them.
//
// The spread guards the regression (and improvement) verdict: a change
// is a regression when it stands out from the noise within the runs and
// from the spread between sessions. Whether a run is precise enough to
// call within tolerance rests on the noise within the runs, or, once two
// or more sessions measured the metric, on the spread learned from them,
// where that is narrower (the whole runs' values vary by that much, and
// a within-run interval from ten seconds of a bursty device extrapolates
// far beyond it).

// DefaultRunSpreadRuns is the weight of the assumed run-to-run spread, in
// sessions' worth of evidence: half a session, a log-normal prior on the
// spread between sessions with a log-scale sd of 1 (runSpreadTau), so
// that a quiet device's 1% and a noisy one's 30% are both within reach
// of a few sessions, and a baseline of one session is judged at least as
// cautiously as the assumed spread alone.
const DefaultRunSpreadRuns = 0.5

// runSpreadTau is the log-scale sd of the prior on σ_b worth nu sessions:
// the sd of log s from nu degrees of freedom of a variance, 1/sqrt(2ν).
func runSpreadTau(nu float64) float64 { return 1 / math.Sqrt(2*nu) }

// withinPriorTau is the log-scale sd of the weak prior on σ_w.
// The prior of σ_w is centred on a quarter of the assumed spread (runs
// of one process agree better than sessions do), with log-scale sds of
// withinPriorTau below and withinPriorTau·upperTau above: weak.
const (
	withinPriorTau   = 1.5
	withinPriorScale = 0.25
)

// DefaultRunSpread returns the run-to-run spread assumed of a metric
// ("read.iops", "write.clat.p99.9") before sessions measure it, as a
// log-scale standard deviation: 10% for throughput and for mean and
// median latency, 12% for p90 and p99, 15% for p99.9 and 20% for p99.99.
// These are what unchanged runs of the README's job on a disk-backed loop
// device of a CPU-loaded 2-core VM showed (regress/testdata/noise/cpu:
// IOPS and p50 13-15%, p99 10-16%, p99.9 13-15%, p99.99 17-25%), rounded
// down. It is the centre of the prior on the spread between sessions;
// the sessions a baseline holds move it to the device's own.
func DefaultRunSpread(metric string) float64 {
	if m, _, ok := LookupMetric(metric); ok {
		return m.Spread
	}
	return 0.10
}

// Grid of the posterior: sessionGrid values of σ_b and of σ_w,
// log-spaced from gridMin to gridMax.
const (
	sessionGrid    = 40
	gridMin        = 0.002
	gridMax        = 0.8
	predictiveBins = 96
)

// runSpread is a metric's run-to-run spread: the posterior of the
// session model and the predictive distribution of the change it gives.
type runSpread struct {
	// sessions is the number of independent baseline sessions (J), runs
	// the baseline runs (N), cur the current runs (R).
	sessions, runs, cur int
	// mean is the baseline's value: the geometric mean of its session
	// means; 0 when the baseline has no per-run values of this metric
	// (one run, or a metric the run summaries do not keep).
	mean float64
	// curMean is the geometric mean of the current runs (0 as mean).
	curMean float64
	// span is the time from the first baseline session to the last.
	span time.Duration
	// prior is the assumed spread (the prior's centre); 0 for none.
	prior float64
	// sd is the spread shown: the posterior median of
	// sqrt(σ_b² + σ_w²), one run's spread from session to session; sdB
	// is the posterior median of σ_b alone.
	sd, sdB float64
	// between and within are the posterior means of the parts of the
	// predictive variance that more current runs cannot shrink (σ_b² and
	// the baseline's mean) and that they can (σ_w²/R).
	between, within float64
	// pred is the predictive mixture; empty without a spread. hold is
	// its part that more current runs cannot shrink (R → ∞) for a
	// current session that holds steady (swing 0).
	pred, hold predictive
	// swing is the current session's swing (its runs' root mean square
	// of baselines.RunDir.Swing), swingVar its share of the predictive
	// variance; baseSwing the largest of the baseline sessions'.
	swing, swingVar, baseSwing float64
	// swingRun is the current session's swing as measured (on throughput
	// and mean latency), before swing's share for this metric.
	swingRun float64
	// groupSwing is each baseline session's swing squared, in the order
	// of fit's groups (none: all 0).
	groupSwing []float64
}

// unsettled reports whether the current session's swing is the larger
// part of what more current runs cannot narrow: the run itself says
// that the host or the device was unsettled while it ran.
func (s runSpread) unsettled() bool { return s.swingVar > 0 && 2*s.swingVar >= s.between }

// learned reports whether sessions measured the spread (two or more).
func (s runSpread) learned() bool { return s.sessions >= 2 }

// halfWidth is the half-width, on the log scale, of the conf-level
// interval of the change between the current runs and the baseline: the
// predictive mixture's quantile. 0 without a spread.
func (s runSpread) halfWidth(conf float64) float64 {
	return s.pred.quantile(1 - conf)
}

// shown is the spread a finding reports (Finding.Spread): the learned
// one, or the assumed one before sessions teach it, as the reason says.
func (s runSpread) shown() float64 {
	if !s.learned() && !s.pred.empty() {
		return s.prior
	}
	return s.sd
}

// source says where the spread came from, for a reason's head:
// "spread 2.1% from 8 sessions over 6 days", "spread 10% assumed: the
// baseline holds 1 session".
func (s runSpread) source() string {
	if s.pred.empty() {
		return "no spread between sessions assumed"
	}
	if !s.learned() {
		what := "1 session"
		if s.runs > 1 {
			what = fmt.Sprintf("1 session of %d runs, which measures the spread within a session only", s.runs)
		}
		return fmt.Sprintf("spread %s assumed: the baseline holds %s", pctOf(s.prior), what)
	}
	src := fmt.Sprintf("spread %s from %d sessions", pctOf(s.sd), s.sessions)
	if d := s.span; d >= 48*time.Hour {
		src += fmt.Sprintf(" over %d days", int(d.Hours()/24+0.5))
	} else if d >= 2*time.Hour {
		src += fmt.Sprintf(" over %d hours", int(d.Hours()+0.5))
	}
	return src
}

// sessionOf is the session a run belongs to ("" for runs recorded
// before sessions were).
func sessionOf(r baselines.RunSummary) string { return r.Session }

// groupSessions groups run indices by session. Runs without a Session
// form one session together (a -count=N baseline recorded before
// sessions were), as does a baseline's only run.
func groupSessions(runs []baselines.RunSummary) [][]int {
	var out [][]int
	idx := map[string]int{}
	for i, r := range runs {
		k := sessionOf(r)
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// spread returns the run-to-run spread of metric ("read.iops") for the
// baseline's runs and the current runs.
func (c *comparer) spread(metric string) runSpread {
	prior, nu := c.cfg.RunSpread, c.cfg.RunSpreadRuns
	if prior == 0 {
		prior = DefaultRunSpread(metric)
	}
	tau := runSpreadTau(nu)
	if prior < 0 {
		prior, tau = 0, 0 // no assumed spread: flat, and nothing without sessions
	}
	s := runSpread{prior: prior, sessions: 1, runs: 1, cur: 1}
	runs := c.base.RunSummaries()
	vals := runValues(runs, metric)
	// Throughput is judged with its own swing, anything else with the
	// latency's too (swingSq).
	row, dir, _ := LookupMetric(metric)
	lat := row.kind != kindThroughput
	var groups [][]float64
	var swings []float64 // per group: the square of its runs' swing
	if vals != nil {
		var first, last time.Time
		for _, g := range groupSessions(runs) {
			var ys []float64
			for _, i := range g {
				ys = append(ys, math.Log(vals[i]))
			}
			groups = append(groups, ys)
			swings = append(swings, swingSq(runs, g, dir, lat))
			t := runs[g[0]].Created
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
		s.span = last.Sub(first)
		s.sessions, s.runs = len(groups), len(vals)
		var m float64
		for _, g := range groups {
			m += meanOf(g)
		}
		s.mean = math.Exp(m / float64(len(groups)))
	}
	if cv := runValues(c.cur.RunSummaries(), metric); len(cv) > 1 {
		var m float64
		for _, v := range cv {
			m += math.Log(v)
		}
		s.cur, s.curMean = len(cv), math.Exp(m/float64(len(cv)))
	}
	if groups == nil {
		groups = [][]float64{{0}}
		swings = []float64{swingSq(runs, nil, dir, lat)}
	}
	// A session's swing is measured on throughput and the mean latency;
	// a metric's share of it is in proportion to the spreads assumed of
	// them (a tail, assumed to vary twice as much as throughput from run
	// to run, swings twice as much with the host).
	//
	// A spread said (Config.RunSpread) is taken as said: whoever says
	// how much the device varies from session to session has said how
	// much its sessions swing.
	scale := sq(DefaultRunSpread(metric) / DefaultRunSpread(dir+".iops"))
	if c.cfg.RunSpread != 0 {
		scale = 0
	}
	for i := range swings {
		swings[i] *= scale
	}
	s.swingRun = math.Sqrt(swingSq(c.cur.RunSummaries(), nil, dir, lat))
	s.swing = s.swingRun * math.Sqrt(scale)
	for _, u2 := range swings {
		s.baseSwing = max(s.baseSwing, math.Sqrt(u2))
	}
	if prior == 0 && len(groups) < 2 {
		return s // no spread assumed and none measured
	}
	s.groupSwing = swings
	s.fit(groups, prior, tau)
	return s
}

// swingSq is the mean square of the swings of direction dir in runs idx
// of runs (all of them when idx is nil): a session's swing, squared, as
// a variance on the log scale. Throughput (lat false) is judged with its
// own swing (baselines.RunDir.Swing): a rate-limited job's throughput
// holds whatever its latency does. Latency (lat) swings with either.
func swingSq(runs []baselines.RunSummary, idx []int, dir string, lat bool) float64 {
	if idx == nil {
		idx = make([]int, len(runs))
		for i := range idx {
			idx[i] = i
		}
	}
	var sum float64
	for _, i := range idx {
		for _, d := range runs[i].Dirs {
			if d.Name == dir {
				u := d.Swing
				if lat {
					u = max(u, d.LatSwing)
				}
				sum += u * u
			}
		}
	}
	if len(idx) == 0 {
		return 0
	}
	return sum / float64(len(idx))
}

func meanOf(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	return m / float64(len(xs))
}

// gridValue is the k-th point of the grid.
func gridValue(k int) float64 {
	return gridMin * math.Pow(gridMax/gridMin, float64(k)/float64(sessionGrid-1))
}

// fit computes the posterior of (σ_b, σ_w) on the grid from the log
// values of each session's runs, and the predictive mixture of the
// change of the mean of s.cur current runs (see the comment at the top).
// tau 0 is a flat prior on log σ_b.
func (s *runSpread) fit(groups [][]float64, prior, tau float64) {
	// Sessions of the same size and swing enter the likelihood alike:
	// classes by size and swing, with the sums of their means and
	// squared means.
	type class struct{ n, u2, count, sumY, sumY2 float64 }
	var classes []class
	var ssw float64
	N, J := 0, len(groups)
	for gi, g := range groups {
		m := meanOf(g)
		for _, y := range g {
			ssw += sq(y - m)
		}
		N += len(g)
		n, u2 := float64(len(g)), 0.0
		if gi < len(s.groupSwing) {
			u2 = s.groupSwing[gi]
		}
		ci := slices.IndexFunc(classes, func(c class) bool { return c.n == n && c.u2 == u2 })
		if ci < 0 {
			ci = len(classes)
			classes = append(classes, class{n: n, u2: u2})
		}
		classes[ci].count++
		classes[ci].sumY += m
		classes[ci].sumY2 += m * m
	}
	dfw := float64(N - J)
	u2cur := s.swing * s.swing
	wPrior := math.Max(prior*withinPriorScale, gridMin)
	if prior == 0 {
		wPrior = 0.05
	}
	var grid, lbPrior, lwPrior, lwLik [sessionGrid]float64
	for k := range grid {
		grid[k] = gridValue(k)
		if tau > 0 {
			lbPrior[k] = splitNormal(math.Log(grid[k]/prior), tau, tau*upperTau)
		}
		lwPrior[k] = splitNormal(math.Log(grid[k]/wPrior), withinPriorTau, withinPriorTau*upperTau)
		if dfw > 0 {
			lwLik[k] = -dfw*math.Log(grid[k]) - ssw/(2*sq(grid[k]))
		}
	}
	const n2 = sessionGrid * sessionGrid
	var lp, v, bPart, wPart [n2]float64 // v: log V
	best := math.Inf(-1)
	J2 := float64(J * J)
	for bi, b := range grid {
		b2 := b * b
		for wi, w := range grid {
			w2 := w * w
			l := lbPrior[bi] + lwPrior[wi] + lwLik[wi]
			var sumW, sumWY, baseVar, logDet float64
			for _, c := range classes {
				vj := b2 + w2/c.n
				sumW += c.count / vj
				sumWY += c.sumY / vj
				baseVar += c.count * (max(b2, c.u2) + w2/c.n)
				logDet += c.count * math.Log(vj)
			}
			if J >= 2 {
				mu := sumWY / sumW
				var quad float64
				for _, c := range classes {
					quad += (c.sumY2 - 2*mu*c.sumY + c.count*mu*mu) / (b2 + w2/c.n)
				}
				l -= 0.5 * (logDet + math.Log(sumW) + quad)
			}
			k := bi*sessionGrid + wi
			lp[k] = l
			bPart[k] = baseVar / J2 // the baseline's mean; the current session's own below
			wPart[k] = w2 / float64(s.cur)
			v[k] = math.Log(bPart[k] + max(b2, u2cur) + wPart[k])
			best = math.Max(best, l)
		}
	}
	// Normalise. The spread shown is the posterior median of one run's
	// spread between sessions, sqrt(σ_b² + σ_w²), read off a histogram
	// of its logarithm.
	var total float64
	for k := range lp {
		lp[k] = math.Exp(lp[k] - best)
		total += lp[k]
	}
	const sdBins = 256
	var sdHist [sdBins]float64
	lsMin, lsMax := math.Log(gridMin), math.Log(gridMax*math.Sqrt2)
	for k := range lp {
		lp[k] /= total
		w := lp[k]
		b, wv := grid[k/sessionGrid], grid[k%sessionGrid]
		s.between += w * (bPart[k] + max(b*b, u2cur))
		s.swingVar += w * (max(b*b, u2cur) - b*b)
		s.within += w * wPart[k]
		if w < 1e-12 {
			continue
		}
		sd := math.Sqrt(b*b + wv*wv)
		sdHist[max(0, min(sdBins-1, int((math.Log(sd)-lsMin)/(lsMax-lsMin)*sdBins)))] += w
	}
	var cum float64
	for i, h := range sdHist {
		if cum+h >= 0.5 {
			// Interpolate within the bin.
			f := (0.5 - cum) / h
			s.sd = math.Exp(lsMin + (float64(i)+f)*(lsMax-lsMin)/sdBins)
			break
		}
		cum += h
	}
	var marginB [sessionGrid]float64
	for k, w := range lp {
		marginB[k/sessionGrid] += w
	}
	cum = 0
	for i, w := range marginB {
		if cum+w >= 0.5 {
			s.sdB = grid[i]
			break
		}
		cum += w
	}
	s.pred = mixture(lp[:], v[:])
	// The same without the current runs' share (σ_w²/R → 0), for a
	// current session that holds steady: what no number of current runs
	// can narrow on this device (holdWidth).
	for k := range v {
		b := grid[k/sessionGrid]
		v[k] = math.Log(bPart[k] + b*b)
	}
	s.hold = mixture(lp[:], v[:])
}

// mixture merges the normal mixture of weights lp and log variances lv
// into predictiveBins bins of log variance.
func mixture(lp, lv []float64) predictive {
	lvMin, lvMax := math.Inf(1), math.Inf(-1)
	for k, w := range lp {
		if w >= 1e-12 {
			lvMin, lvMax = math.Min(lvMin, lv[k]), math.Max(lvMax, lv[k])
		}
	}
	var binW, binLV [predictiveBins]float64
	width := (lvMax - lvMin) / predictiveBins
	for k, w := range lp {
		if w < 1e-12 {
			continue
		}
		i := 0
		if width > 0 {
			i = min(predictiveBins-1, int((lv[k]-lvMin)/width))
		}
		binW[i] += w
		binLV[i] += w * lv[k]
	}
	var p predictive
	for i := range binW {
		if binW[i] > 0 {
			p.w = append(p.w, binW[i])
			p.sd = append(p.sd, math.Exp(binLV[i]/binW[i]/2))
		}
	}
	return p
}

// splitNormal is the log density (up to a constant) of a split normal
// at x: sd lo below 0, hi above.
func splitNormal(x, lo, hi float64) float64 {
	if x < 0 {
		return -x * x / (2 * lo * lo)
	}
	return -x * x / (2 * hi * hi)
}

// upperTau is the ratio of the priors' log-scale sds above their centre
// to those below: the prior of σ_b is a split log-normal, wide below the
// assumed spread (sd 1: a quiet device's 1% is within reach of a few
// sessions) and about half as wide above it (sd 0.48: a noisy device's
// 30% is 2.3 sd above 10%, and ten sessions at 30% are judged at
// 25%). A symmetric prior wide enough to learn 1% would judge a baseline
// of one session on its upper tail, which at the family-wise level of
// six metrics calls only a drop of more than 75% a regression. Split, a
// baseline of one session is judged a little more cautiously than the
// assumed spread was as Student's t with 6 degrees of freedom (a drop of
// 43.2% against 42.1% at 99.17%), so that what one session could not
// tell before it cannot tell now.
const upperTau = 0.48

// predictive is a mixture of zero-mean normals: weights w (summing to
// about 1) and standard deviations sd.
type predictive struct {
	w, sd []float64
}

func (p predictive) empty() bool { return len(p.w) == 0 }

// tail is the mixture's two-sided tail probability beyond x.
func (p predictive) tail(x float64) float64 {
	var t float64
	for i, w := range p.w {
		t += w * math.Erfc(x/(p.sd[i]*math.Sqrt2))
	}
	return t
}

// quantile returns x with tail(x) = alpha, by bisection on log x: the
// half-width of the two-sided 1-alpha interval. The mixture's quantile
// lies between those of its narrowest and widest components. 0 for an
// empty mixture.
func (p predictive) quantile(alpha float64) float64 {
	if p.empty() || !(alpha > 0 && alpha < 1) {
		return 0
	}
	z := zScore(1 - alpha)
	lo, hi := math.Inf(1), 0.0
	for _, sd := range p.sd {
		lo, hi = math.Min(lo, sd), math.Max(hi, sd)
	}
	lo, hi = math.Log(z*lo), math.Log(z*hi)
	for hi-lo > 1e-4 {
		mid := (lo + hi) / 2
		if p.tail(math.Exp(mid)) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// runValues returns metric's value in each run, or nil when a value is
// missing or not positive, or there is only one run (whose value is the
// baseline's own).
func runValues(runs []baselines.RunSummary, metric string) []float64 {
	if len(runs) < 2 {
		return nil
	}
	m, dir, ok := LookupMetric(metric)
	if !ok || m.Run == nil {
		return nil
	}
	out := make([]float64, 0, len(runs))
	for _, r := range runs {
		var rd *baselines.RunDir
		for i := range r.Dirs {
			if r.Dirs[i].Name == dir {
				rd = &r.Dirs[i]
			}
		}
		if rd == nil {
			return nil
		}
		v := m.Run(rd)
		if !(v > 0) || !finite(v) {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// tQuantile is Student's t quantile for a two-sided conf interval with
// df degrees of freedom: 12.71 for 0.95 and 1, 1.96 as df grows.
func tQuantile(conf, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) || df > 1e6 {
		return zScore(conf)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
}
