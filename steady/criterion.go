package steady

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"stortest.dev/fio"
)

// Metric is the per-second series a criterion judges.
type Metric uint8

const (
	// IOPS is completed I/Os per second, all directions summed, as fio's
	// steady-state code counts them.
	IOPS Metric = iota + 1
	// BW is bytes per second, all directions summed.
	BW
	// Clat is a percentile of the completion latency of the I/Os completed
	// in that second, in nanoseconds.
	Clat
	// Lat is a percentile of the total latency (submission + completion),
	// in nanoseconds.
	Lat
)

// String returns the metric's name in criterion syntax.
func (m Metric) String() string {
	switch m {
	case IOPS:
		return "iops"
	case BW:
		return "bw"
	case Clat:
		return "clat"
	case Lat:
		return "lat"
	}
	return "Metric(" + strconv.Itoa(int(m)) + ")"
}

// IsLatency reports whether the metric is a latency percentile.
func (m Metric) IsLatency() bool { return m == Clat || m == Lat }

// Method is how a criterion judges its window.
type Method uint8

const (
	// Deviation is fio's "iops"/"bw": the largest distance of a sample
	// from the window's mean.
	Deviation Method = iota + 1
	// Slope is fio's "iops_slope"/"bw_slope": the least-squares slope of
	// the window, per second.
	Slope
	// PTS is the SNIA Performance Test Specification's steady state over
	// rounds: range and best-fit excursion over a measurement window.
	PTS
)

// String names the method.
func (m Method) String() string {
	switch m {
	case Deviation:
		return "deviation"
	case Slope:
		return "slope"
	case PTS:
		return "pts"
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// PTSParams are the SNIA PTS steady-state parameters. The zero value of
// each field takes the PTS default.
type PTSParams struct {
	// Round is the length of one round; each round's value is the mean of
	// its per-second samples. Default 60 s (PTS IOPS test rounds are one
	// minute per cell).
	Round time.Duration
	// Window is the measurement window in rounds. Default 5.
	Window int
	// MaxRounds stops the search when steady state is not reached within
	// this many rounds. Default 25.
	MaxRounds int
	// Range is the largest allowed max-min of the window's round values,
	// in percent of their mean. Default 20.
	Range float64
	// Excursion is the largest allowed excursion of the best-fit line over
	// the window (|slope| * (Window-1)), in percent of the mean. Default 10.
	Excursion float64
}

// PTS defaults.
const (
	DefaultPTSRound     = time.Minute
	DefaultPTSWindow    = 5
	DefaultPTSMaxRounds = 25
	DefaultPTSRange     = 20.0 // percent of the window's mean
	DefaultPTSExcursion = 10.0 // percent of the window's mean
)

// withDefaults fills zero fields with the PTS defaults.
func (p PTSParams) withDefaults() PTSParams {
	if p.Round == 0 {
		p.Round = DefaultPTSRound
	}
	if p.Window == 0 {
		p.Window = DefaultPTSWindow
	}
	if p.MaxRounds == 0 {
		p.MaxRounds = DefaultPTSMaxRounds
	}
	if p.Range == 0 {
		p.Range = DefaultPTSRange
	}
	if p.Excursion == 0 {
		p.Excursion = DefaultPTSExcursion
	}
	return p
}

// Criterion is one steady-state condition. Build it with Parse; the zero
// value is not valid.
type Criterion struct {
	Metric Metric
	// Percentile selects the latency percentile for Clat and Lat (e.g. 99,
	// 99.9); 0 for IOPS and BW.
	Percentile float64
	Method     Method
	// Percent makes Limit a percentage of the window's mean (fio's "%").
	Percent bool
	// Limit bounds the criterion value: attained when value < Limit
	// (deviation) or |value| < Limit (slope). Units without Percent: IOPS,
	// bytes/s or ns for a deviation; the same per second for a slope.
	// Unused by PTS, whose limits are in PTS.
	Limit float64
	// PTS holds the PTS parameters when Method is PTS.
	PTS PTSParams
}

// ErrSyntax is wrapped by every Parse error.
var ErrSyntax = errors.New("steady: bad criterion")

// Parse reads one criterion. The fio forms are the values of fio's
// steadystate option, with the same meaning:
//
//	iops:LIMIT[%]         deviation of IOPS from the window mean (IOPS or %)
//	iops_slope:LIMIT[%]   least-squares slope of IOPS (IOPS/s or % of mean)
//	bw:LIMIT[%]           deviation of bandwidth (bytes/s, size suffixes)
//	bw_slope:LIMIT[%]     slope of bandwidth (bytes/s per second)
//
// A bw limit is an integer with an optional size suffix read as fio reads it
// with its default kb_base=1024 (package fio): k, m, g, t, p (and kb, ki,
// mb...) are powers of 1024, kib, mib... powers of 1000. An absolute iops
// limit is a plain number. Forms that fio reads differently from how they look are refused
// rather than misread: fio takes "iops:10k" as 10 and "bw:1.5m" as 1.
//
// stortest adds latency percentiles and SNIA PTS:
//
//	clat_pP:LIMIT[%]        deviation of the per-second completion-latency
//	                        percentile P (e.g. clat_p99, clat_p99.9)
//	clat_pP_slope:LIMIT[%]  its slope
//	lat_pP..., lat_pP_slope:...  the same for total latency
//	pts:METRIC[:ROUND]      SNIA PTS over rounds of METRIC (iops, bw,
//	                        clat_pP, lat_pP); ROUND defaults to 60s
//
// An absolute latency limit needs a unit: ns, us (or µs), ms or s, e.g.
// clat_p99:200us (deviation) or clat_p99_slope:2us (per second).
func Parse(s string) (Criterion, error) {
	c, err := parse(s)
	if err != nil {
		return Criterion{}, fmt.Errorf("%w %q: %s", ErrSyntax, s, err)
	}
	return c, nil
}

// MustParse is Parse for criteria known at compile time; it panics on a
// syntax error.
func MustParse(s string) Criterion {
	c, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}

// parseError is a reason without the "steady: bad criterion" prefix.
type parseError string

func (e parseError) Error() string { return string(e) }

func parse(s string) (Criterion, error) {
	s = strings.TrimSpace(s)
	name, val, ok := strings.Cut(s, ":")
	if !ok {
		return Criterion{}, parseError("want NAME:LIMIT, e.g. iops_slope:0.3%")
	}
	name = strings.TrimSpace(name)
	val = strings.TrimSpace(val)
	if name == "pts" {
		return parsePTS(val)
	}
	var c Criterion
	c.Method = Deviation
	if base, ok := strings.CutSuffix(name, "_slope"); ok {
		c.Method = Slope
		name = base
	}
	if err := parseMetric(name, &c); err != nil {
		return Criterion{}, err
	}
	if val == "" {
		return Criterion{}, parseError("missing limit after ':'")
	}
	if num, ok := strings.CutSuffix(val, "%"); ok {
		v, err := parseFloat(strings.TrimSpace(num))
		if err != nil {
			return Criterion{}, err
		}
		c.Percent, c.Limit = true, v
		return c, nil
	}
	var (
		v   float64
		err error
	)
	switch c.Metric {
	case IOPS:
		v, err = parseFloat(val)
	case BW:
		v, err = parseBytes(val)
	default:
		var d time.Duration
		d, err = parseLatency(val)
		v = float64(d)
	}
	if err != nil {
		return Criterion{}, err
	}
	c.Limit = v
	return c, nil
}

// parseMetric reads iops, bw, clat_pP or lat_pP into c.
func parseMetric(name string, c *Criterion) error {
	switch name {
	case "iops":
		c.Metric = IOPS
		return nil
	case "bw":
		c.Metric = BW
		return nil
	}
	var rest string
	switch {
	case strings.HasPrefix(name, "clat_p"):
		c.Metric, rest = Clat, name[len("clat_p"):]
	case strings.HasPrefix(name, "lat_p"):
		c.Metric, rest = Lat, name[len("lat_p"):]
	default:
		return parseError(fmt.Sprintf("unknown metric %q: want iops, bw, clat_pP, lat_pP or pts", name))
	}
	p, err := strconv.ParseFloat(rest, 64)
	if err != nil || !(p > 0 && p <= 100) {
		return parseError(fmt.Sprintf("percentile %q: want a number in (0, 100]", rest))
	}
	c.Percentile = p
	return nil
}

// parsePTS reads METRIC[:ROUND] after "pts:".
func parsePTS(val string) (Criterion, error) {
	c := Criterion{Method: PTS}
	metric, round, hasRound := strings.Cut(val, ":")
	if err := parseMetric(strings.TrimSpace(metric), &c); err != nil {
		return Criterion{}, err
	}
	if hasRound {
		d, err := ParseFioDuration(strings.TrimSpace(round))
		if err != nil {
			return Criterion{}, parseError("round: " + err.Error())
		}
		if d < time.Second || d%time.Second != 0 {
			return Criterion{}, parseError(fmt.Sprintf("round %v: want whole seconds, at least 1s", d))
		}
		c.PTS.Round = d
	}
	c.PTS = c.PTS.withDefaults()
	return c, nil
}

// parseFloat reads a finite, non-negative decimal number.
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, parseError(fmt.Sprintf("limit %q: want a number", s))
	}
	if v < 0 {
		return 0, parseError(fmt.Sprintf("limit %q: want a number >= 0", s))
	}
	return v, nil
}

// parseBytes reads fio's bw limit: a decimal integer and an optional size
// suffix, read as fio reads sizes (package fio: k/kb/ki are powers of
// 1024, kib powers of 1000, case-insensitive).
func parseBytes(s string) (float64, error) {
	if s == "" || s[0] < '0' || s[0] > '9' || len(s) > 1 && (s[1] == 'x' || s[1] == 'X') {
		return 0, parseError(fmt.Sprintf("bw limit %q: want an integer with an optional size suffix (k, m, g, t, p)", s))
	}
	n, err := fio.ParseSize(s)
	if err != nil {
		return 0, parseError(fmt.Sprintf("bw limit: %v", err))
	}
	return float64(n), nil
}

// parseLatency reads an absolute latency limit; a unit is required.
func parseLatency(s string) (time.Duration, error) {
	units := []struct {
		suffix string
		unit   float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}
	for _, u := range units {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		v, err := parseFloat(strings.TrimSpace(num))
		if err != nil {
			return 0, err
		}
		ns := v * u.unit
		if ns >= math.MaxInt64 {
			return 0, parseError(fmt.Sprintf("latency limit %q: too large", s))
		}
		return time.Duration(math.Round(ns)), nil
	}
	return 0, parseError(fmt.Sprintf("latency limit %q: want a number with a unit (ns, us, ms, s) or a percentage", s))
}

// ParseFioDuration reads a duration as fio reads ss_dur and ss_ramp: a
// decimal integer of seconds, or an integer with a unit us, ms, s, m, h or
// d (case-insensitive); package fio's ParseTime.
func ParseFioDuration(s string) (time.Duration, error) {
	d, err := fio.ParseTime(strings.TrimSpace(s), time.Second)
	if err != nil {
		return 0, fmt.Errorf("steady: duration: %w", err)
	}
	return d, nil
}

// Name returns the criterion's name in criterion syntax, without the limit:
// "iops_slope", "clat_p99.9", "pts".
func (c Criterion) Name() string {
	if c.Method == PTS {
		return "pts"
	}
	n := c.metricName()
	if c.Method == Slope {
		n += "_slope"
	}
	return n
}

// metricName is "iops", "bw", "clat_p99"...
func (c Criterion) metricName() string {
	if c.Metric.IsLatency() {
		return c.Metric.String() + "_p" + strconv.FormatFloat(c.Percentile, 'f', -1, 64)
	}
	return c.Metric.String()
}

// String returns the criterion in the syntax Parse reads; Parse(c.String())
// gives c back.
func (c Criterion) String() string {
	if c.Method == PTS {
		s := "pts:" + c.metricName()
		if r := c.PTS.Round; r != 0 && r != DefaultPTSRound {
			s += ":" + strconv.FormatInt(int64(r/time.Second), 10) + "s"
		}
		return s
	}
	s := c.Name() + ":"
	switch {
	case c.Percent:
		return s + strconv.FormatFloat(c.Limit, 'f', -1, 64) + "%"
	case c.Metric.IsLatency():
		return s + formatNanos(c.Limit)
	default:
		return s + strconv.FormatFloat(c.Limit, 'f', -1, 64)
	}
}

// formatNanos prints a latency limit with the largest unit that keeps it an
// integer.
func formatNanos(ns float64) string {
	if ns == math.Trunc(ns) {
		for _, u := range []struct {
			unit   float64
			suffix string
		}{{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}} {
			if ns != 0 && math.Mod(ns, u.unit) == 0 {
				return strconv.FormatFloat(ns/u.unit, 'f', -1, 64) + u.suffix
			}
		}
	}
	return strconv.FormatFloat(ns, 'f', -1, 64) + "ns"
}

// Validate reports whether c is a criterion Parse could have returned.
func (c Criterion) Validate() error {
	switch c.Metric {
	case IOPS, BW:
		if c.Percentile != 0 {
			return fmt.Errorf("steady: %s: percentile set for %s", c, c.Metric)
		}
	case Clat, Lat:
		if !(c.Percentile > 0 && c.Percentile <= 100) {
			return fmt.Errorf("steady: %s: percentile %v not in (0, 100]", c.Name(), c.Percentile)
		}
	default:
		return fmt.Errorf("steady: criterion has no metric")
	}
	switch c.Method {
	case Deviation, Slope:
		if math.IsNaN(c.Limit) || math.IsInf(c.Limit, 0) || c.Limit < 0 {
			return fmt.Errorf("steady: %s: limit %v: want a finite number >= 0", c.Name(), c.Limit)
		}
	case PTS:
		p := c.PTS.withDefaults()
		if p.Round < time.Second || p.Round%time.Second != 0 || p.Window < 2 || p.MaxRounds < p.Window ||
			!(p.Range > 0) || !(p.Excursion > 0) {
			return fmt.Errorf("steady: %s: bad PTS parameters %+v (round: whole seconds; window >= 2; max rounds >= window; limits > 0)", c, p)
		}
	default:
		return fmt.Errorf("steady: %s: no method", c.Metric)
	}
	return nil
}

// Set is several criteria that must all hold at once.
type Set []Criterion

// All returns the criteria as a Set.
func All(cs ...Criterion) Set { return Set(cs) }

// ParseSet reads criteria separated by commas or blanks, e.g.
// "iops_slope:0.3%, clat_p99:5%".
func ParseSet(s string) (Set, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w %q: no criteria", ErrSyntax, s)
	}
	set := make(Set, 0, len(fields))
	for _, f := range fields {
		c, err := Parse(f)
		if err != nil {
			return nil, err
		}
		set = append(set, c)
	}
	return set, nil
}

// MustParseSet is ParseSet that panics on a syntax error.
func MustParseSet(s string) Set {
	set, err := ParseSet(s)
	if err != nil {
		panic(err)
	}
	return set
}

// String joins the criteria with ", ".
func (s Set) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}
