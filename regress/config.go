package regress

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"stortest.dev/fio"
	"stortest.dev/internal/human"
)

// Tolerance is how far two values may differ and still count as equal,
// with go-cmp's EquateApprox semantics: |x-y| <= max(Fraction*min(|x|,|y|),
// Floor). The fraction is of the smaller value, so a 10% tolerance
// accepts 100 -> 110 and 110 -> 100 alike; the floor (in the metric's
// unit: ns, IOPS, bytes/s) keeps tiny absolute changes of tiny values
// from counting, e.g. 40 ns -> 60 ns on a null engine.
type Tolerance struct {
	Fraction float64 // 0.1 is 10%
	Floor    float64 // in the metric's unit
}

// Equal reports whether x and y are within the tolerance.
func (t Tolerance) Equal(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return false
	}
	if x == y {
		return true // infinities too
	}
	return math.Abs(x-y) <= math.Max(t.Fraction*math.Min(math.Abs(x), math.Abs(y)), t.Floor)
}

// String prints "10%", or "10% or 1µs" with a floor in unit u.
func (t Tolerance) String() string { return t.format(UnitNone) }

func (t Tolerance) format(u Unit) string {
	s := trimPercent(t.Fraction*100) + "%"
	if t.Floor > 0 {
		s += " or " + u.format(t.Floor)
	}
	return s
}

// Rule sets how metrics whose name matches Metric are compared. Metric is
// a path.Match pattern over names such as "read.iops",
// "write.clat.p99.9" ('*' matches dots too, so "*.clat.p99" is every
// direction's clat p99 and "*" is everything).
type Rule struct {
	Metric    string
	Tolerance Tolerance
	Off       bool // the metric is not compared
}

// DefaultRules are the rules Compare starts from, the metric table's
// default tolerances (MetricTable); Config.Rules are applied after them
// (the last matching rule wins). Compared by default, per
// direction: IOPS and bandwidth (10%; floors 1 IOPS and 4 KiB/s), I/O
// errors (any increase), and clat mean, p50 and p99 (10%), p99.9 and
// p99.99 (20%: tails move more), with a 1µs floor, below which latency
// changes are clock and scheduler noise. The mean completion latency is
// what a rate-limited or throttled job's regression shows first (its
// percentiles swing with the throttle's bursts while the mean, by
// Little's law the depth over the IOPS, holds steady); by default it is
// compared where the runs kept per-second clat means, and otherwise not
// compared, with the reason. Off by default (enable them with a rule):
// p90, lat and slat, which mostly repeat clat and would multiply the
// chances of a false alarm.
var DefaultRules = defaultRules()

// defaultRules are the metric table's tolerances: everything off, then
// "*.<name>" for each metric compared by default, in the table's order.
func defaultRules() []Rule {
	rules := []Rule{{Metric: "*", Off: true}}
	for _, m := range metricTable {
		if !m.Off {
			rules = append(rules, Rule{Metric: "*." + m.Name, Tolerance: m.Tolerance})
		}
	}
	return rules
}

// Defaults of Config's zero fields.
const (
	DefaultConfidence = 0.95
	// DefaultResamples: with 2000 bootstrap resamples the 2.5% and 97.5%
	// quantiles move by well under 1% between seeds.
	DefaultResamples = 2000
	// DefaultMinSamples samples per run are needed before an interval
	// from them means anything (fewer than ~3 blocks of ~3).
	DefaultMinSamples = 10
)

// Config configures Compare. The zero value is the defaults.
type Config struct {
	// Confidence is the two-sided level of the intervals; 0 means 0.95.
	Confidence float64
	// Resamples is the number of bootstrap resamples; 0 means 2000.
	Resamples int
	// BlockLen is the moving-block length in seconds; 0 means
	// ceil(sqrt(n)) for n per-second samples, which keeps neighbouring
	// (correlated) seconds together while leaving enough blocks to
	// resample.
	BlockLen int
	// MinSamples is the samples each run needs for an interval from
	// them: seconds, or for runs of fewer seconds, slices of a tenth of
	// a second (so a 2 s run has 20); 0 means 10.
	MinSamples int
	// Rules apply after DefaultRules; the last matching rule wins. Set
	// and Disable append to it.
	Rules []Rule
	// PerMetric judges every metric at Confidence on its own. By default
	// a regression must hold at the family-wise level 1-(1-Confidence)/m
	// for m compared metrics (Bonferroni), so that comparing more metrics
	// does not raise the chance of a false alarm on an unchanged device.
	PerMetric bool
	// RunSpread is the run-to-run spread assumed of every metric, as a
	// standard deviation on the log scale (0.02 is about 2%), before the
	// baseline's own runs measure it (see runs.go's comment: one run
	// cannot see what stays fixed for its length). 0 means
	// DefaultRunSpread's, by metric; negative assumes none, so that only
	// a baseline of several runs adds a run-to-run spread. By default a
	// session whose run swung from second to second (baselines.RunDir's
	// Swing: a host short of CPU, a disk others use) is taken to be off
	// by at least as much as it swung; a RunSpread set is taken as said,
	// swings included.
	RunSpread float64
	// RunSpreadRuns is how many sessions' worth of evidence RunSpread
	// counts as, which sets the width of the prior on the spread between
	// sessions (runs.go); 0 means DefaultRunSpreadRuns.
	RunSpreadRuns float64
	// Looks is the most looks a repeat of the current session will take
	// (the most current runs it will make, judging their mean after each);
	// 0 or 1: one look. Look is this look, 1-based; 0 means 1. Every look
	// is a chance of a false alarm, so the family-wise alpha
	// (1-Confidence) of the regression and improvement verdicts is spent
	// across the looks (Spent): however many looks a repeat takes, an
	// unchanged device is flagged at most 1-Confidence of the time.
	Looks, Look int
}

// LookSpending is the exponent ρ of the alpha-spending function: by look
// k of L, alpha·(k/L)^ρ has been spent. ρ = 1/2 front-loads it: look 1
// of 5 gets 45% of the alpha, looks 2-5 19%, 14%, 12% and 11%. A repeat
// runs again only while a comparison is inconclusive, so the first look
// decides most comparisons and is the one whose power matters; later
// looks, on the mean of more runs, see the current session's spread
// shrink and need less. Each look is judged at its own share of the
// alpha, so that by the union bound the false-alarm rate over all looks
// is at most the alpha whatever the correlation between looks (the
// means of 1, 2, 3... runs are strongly correlated, so the rate is in
// fact lower: TestLooksKeepFalseAlarms measures it). A group-sequential
// bound would spend a little less conservatively by integrating that
// correlation, but it depends on how the spread splits between and
// within sessions, which a baseline of few sessions knows poorly.
const LookSpending = 0.5

// Spent returns the share of the family-wise alpha this look may use:
// alpha·((k/L)^ρ - ((k-1)/L)^ρ) for look k of L (LookSpending); alpha
// when there is one look.
func (c Config) Spent(alpha float64) float64 {
	L, k := c.Looks, c.Look
	if L <= 1 {
		return alpha
	}
	k = min(max(k, 1), L)
	return alpha * (math.Pow(float64(k)/float64(L), LookSpending) - math.Pow(float64(k-1)/float64(L), LookSpending))
}

// DefaultConfig returns the defaults with every field filled in.
func DefaultConfig() Config {
	return Config{Confidence: DefaultConfidence, Resamples: DefaultResamples, MinSamples: DefaultMinSamples,
		RunSpreadRuns: DefaultRunSpreadRuns}
}

// Set compares the metrics matching pattern with tolerance t (enabling
// them if they were off).
func (c *Config) Set(pattern string, t Tolerance) {
	c.Rules = append(c.Rules, Rule{Metric: pattern, Tolerance: t})
}

// Disable stops comparing the metrics matching pattern.
func (c *Config) Disable(pattern string) {
	c.Rules = append(c.Rules, Rule{Metric: pattern, Off: true})
}

func (c Config) withDefaults() Config {
	if !(c.Confidence > 0 && c.Confidence < 1) {
		c.Confidence = DefaultConfidence
	}
	if c.Resamples <= 0 {
		c.Resamples = DefaultResamples
	}
	if c.MinSamples <= 0 {
		c.MinSamples = DefaultMinSamples
	}
	if !(c.RunSpreadRuns > 0) {
		c.RunSpreadRuns = DefaultRunSpreadRuns
	}
	return c
}

// rule returns the rule that applies to metric: the last match of
// DefaultRules followed by c.Rules.
func (c Config) rule(metric string) Rule {
	r := Rule{Metric: "*", Off: true}
	for _, rules := range [][]Rule{DefaultRules, c.Rules} {
		for _, x := range rules {
			if ok, _ := path.Match(x.Metric, metric); ok {
				r = x
			}
		}
	}
	return r
}

// ErrBadRule is matched by ParseRules' errors.
var ErrBadRule = errors.New("regress: bad rule")

// ParseRules reads rules in the command-line form
//
//	PATTERN=off | PATTERN=FRACTION[:FLOOR] [, ...]
//
// e.g. "*.iops=5%,read.clat.p99=15%:2us,*.clat.p99.99=off,*.lat.p99=10%".
// FRACTION is a percentage ("10%") or a fraction ("0.1"); FLOOR is a
// number in the metric's unit: a time for latencies ("2us", "1.5ms"),
// otherwise a decimal or a whole number with a size suffix as fio reads
// it ("4k" is 4096 and "4KiB" 4000, as fio 3.33 reads them; "4k/s" for a
// bandwidth).
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		pat, spec, ok := strings.Cut(item, "=")
		pat, spec = strings.TrimSpace(pat), strings.TrimSpace(spec)
		if !ok || pat == "" || spec == "" {
			return nil, fmt.Errorf("%w %q: want PATTERN=FRACTION[:FLOOR] or PATTERN=off", ErrBadRule, item)
		}
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("%w %q: pattern: %v", ErrBadRule, item, err)
		}
		if spec == "off" {
			out = append(out, Rule{Metric: pat, Off: true})
			continue
		}
		fs, floor, hasFloor := strings.Cut(spec, ":")
		frac, err := ParseFraction(fs)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrBadRule, item, err)
		}
		r := Rule{Metric: pat, Tolerance: Tolerance{Fraction: frac}}
		if hasFloor {
			if r.Tolerance.Floor, err = parseFloor(floor); err != nil {
				return nil, fmt.Errorf("%w %q: %v", ErrBadRule, item, err)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ParseFraction reads a non-negative fraction: a number ("0.05") or a
// percentage ("5%").
func ParseFraction(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("fraction %q is not a non-negative number or percentage", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

// parseFloor reads a tolerance floor. A latency is a time with a unit
// ("2us", "1.5ms"): latencies are not sizes. Any other floor is a
// number: a plain decimal ("1", "0.5"), or a whole number with a size
// suffix read as fio reads sizes and numbers (fio.ParseSize: "4k" is 4096,
// "1m" 1048576, "4KiB" 4000 as in fio 3.33), optionally "/s" for a
// bandwidth ("4k/s").
func parseFloor(s string) (float64, error) {
	bad := fmt.Errorf("floor %q is not a non-negative number (a latency with ns, us, ms or s; "+
		"a number, with fio's size suffixes: 4k = 4096, 4KiB = 4000, 1m; /s allowed)", s)
	num, perSecond := strings.CutSuffix(s, "/s")
	if !perSecond && strings.HasSuffix(s, "s") {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, bad
		}
		return float64(d.Nanoseconds()), nil
	}
	if v, err := strconv.ParseFloat(num, 64); err == nil {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, bad
		}
		return v, nil
	}
	n, err := fio.ParseSize(num)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", bad, err)
	}
	return float64(n), nil
}

func trimPercent(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// Unit is a metric's unit; it decides how values print.
type Unit int

const (
	UnitNone  Unit = iota
	UnitNS         // latency, ns
	UnitIOPS       // I/Os per second
	UnitBW         // bytes per second
	UnitCount      // a count (errors)
)

func (u Unit) format(v float64) string {
	switch u {
	case UnitNS:
		return human.Latency(v)
	case UnitIOPS:
		return human.Count(v) + " IOPS"
	case UnitBW:
		return human.BW(v)
	case UnitCount:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func (u Unit) String() string {
	return [...]string{"", "ns", "IOPS", "bytes/s", "count"}[u]
}

// MarshalText writes the unit's name: "ns", "IOPS", "bytes/s", "count".
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }
