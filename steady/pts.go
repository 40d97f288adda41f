package steady

import "math"

// PTSResult is the SNIA PTS steady-state test of one measurement window.
type PTSResult struct {
	// FirstRound and LastRound number the window's rounds from 1.
	FirstRound, LastRound int
	Mean                  float64 // mean of the window's round values
	Min, Max              float64
	// Range is Max-Min; RangeLimit is Range's bound (Params.Range% of Mean).
	Range, RangeLimit float64
	// Slope and Intercept describe the least-squares line y = Intercept +
	// Slope*round, rounds numbered from 1 as PTS reports number them.
	Slope, Intercept float64
	// Excursion is |Slope|*(Window-1), the best-fit line's change across
	// the window; ExcursionLimit is Params.Excursion% of Mean.
	Excursion, ExcursionLimit float64
	// Attained is Range <= RangeLimit && Excursion <= ExcursionLimit, with
	// at least two rounds and a positive mean (an idle device, like fio's
	// 0/0, is not in steady state).
	Attained bool
}

// EvaluatePTS applies the SNIA PTS steady-state test to the values of the
// last len(rounds) rounds (oldest first), the last of which is round
// number lastRound (from 1). p's zero fields take the PTS defaults; the
// window is len(rounds). It allocates nothing.
func EvaluatePTS(rounds []float64, lastRound int, p PTSParams) PTSResult {
	p = p.withDefaults()
	n := len(rounds)
	r := PTSResult{FirstRound: lastRound - n + 1, LastRound: lastRound}
	if n == 0 {
		return r
	}
	r.Min, r.Max = math.Inf(1), math.Inf(-1)
	var sum float64
	for _, v := range rounds {
		sum += v
		r.Min = min(r.Min, v)
		r.Max = max(r.Max, v)
	}
	r.Mean = sum / float64(n)
	r.Range = r.Max - r.Min
	// Least squares against the round number x = FirstRound+i, computed
	// around the centre of x so large round numbers lose no precision.
	xc := float64(n-1) / 2
	var sxy, sxx float64
	for i, v := range rounds {
		dx := float64(i) - xc
		sxy += dx * (v - r.Mean)
		sxx += dx * dx
	}
	if sxx > 0 {
		r.Slope = sxy / sxx
	}
	r.Intercept = r.Mean - r.Slope*(float64(r.FirstRound)+xc)
	r.Excursion = math.Abs(r.Slope) * float64(n-1)
	r.RangeLimit = p.Range / 100 * r.Mean
	r.ExcursionLimit = p.Excursion / 100 * r.Mean
	r.Attained = n >= 2 && r.Mean > 0 && r.Range <= r.RangeLimit && r.Excursion <= r.ExcursionLimit
	return r
}
