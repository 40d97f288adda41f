package regress

import (
	"fmt"
	"strconv"
)

// Verdict is the outcome of one comparison or of a whole Report, in
// increasing severity: Pass, Improvement, Inconclusive, Regression; and
// NotCompared, a finding's only, outside that scale.
type Verdict int

const (
	// Pass: the change is within tolerance with the stated confidence.
	Pass Verdict = iota
	// Improvement: better by more than the tolerance and significantly
	// so; a kind of pass.
	Improvement
	// Inconclusive: too few samples, or too noisy, to tell a change
	// beyond tolerance from none; the reason says how many more samples
	// would do.
	Inconclusive
	// Regression: worse by more than the tolerance, and significantly
	// worse than the baseline.
	Regression
	// NotCompared: a finding the comparison could not hold to its
	// tolerance and says why, with what would make it comparable (a
	// metric that varies more from session to session on this device
	// than its tolerance; a percentile of plain fio JSON, without
	// histograms, before the baseline has sessions enough). It is outside
	// the scale of severity: it is never a Report's verdict, counts
	// neither as a pass nor as inconclusive, and a significant regression
	// of such a metric is still a Regression.
	NotCompared
)

var verdictNames = [...]string{"pass", "improvement", "inconclusive", "regression", "not compared"}

func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// OK reports whether v is Pass or Improvement.
func (v Verdict) OK() bool { return v == Pass || v == Improvement }

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("regress: invalid verdict %d", int(v))
	}
	return []byte(v.String()), nil
}

// UnmarshalText parses a verdict's name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if string(b) == n {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("regress: unknown verdict %q", b)
}

// Better says which way a metric improves.
type Better int

const (
	LowerIsBetter  Better = iota // latencies, errors
	HigherIsBetter               // IOPS, bandwidth
)

func (b Better) String() string {
	if b == HigherIsBetter {
		return "higher is better"
	}
	return "lower is better"
}

// MarshalText writes "lower" or "higher".
func (b Better) MarshalText() ([]byte, error) {
	if b == HigherIsBetter {
		return []byte("higher"), nil
	}
	return []byte("lower"), nil
}
