package steady

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"stortest.dev/fio"
)

// FioOutput is the part of fio's JSON output (--output-format=json or
// json+) that steady state needs.
type FioOutput struct {
	GlobalOptions map[string]string `json:"global options"`
	Jobs          []FioJob          `json:"jobs"`
}

// FioJob is one job (or reporting group) of fio's JSON output.
type FioJob struct {
	JobName     string            `json:"jobname"`
	GroupID     int               `json:"groupid"`
	Options     map[string]string `json:"job options"`
	SteadyState *FioSteadyState   `json:"steadystate"` // nil without ss options
}

// ErrNoSteadyState means a fio output has no job with a "steadystate"
// object (the jobs ran without fio's steadystate options).
var ErrNoSteadyState = errors.New("steady: no job has a steadystate object")

// ReadFio decodes fio's JSON output. Text before the first '{' (fio's
// notes when stderr is merged into the output) is skipped, and fio's bare
// nan/inf numbers are read as null. Errors name the line and column; name
// (a file name or "-") prefixes them.
func ReadFio(r io.Reader, name string) (*FioOutput, error) {
	var out FioOutput
	if err := fio.DecodeJSON(r, name, &out); err != nil {
		return nil, fmt.Errorf("steady: %w", err)
	}
	for i, j := range out.Jobs {
		ss := j.SteadyState
		if ss == nil {
			continue
		}
		if ss.Duration <= 0 || len(ss.Data.IOPS) != ss.Duration || len(ss.Data.BW) != ss.Duration {
			return nil, fmt.Errorf("steady: %s: job %d (%q): steadystate duration %d with %d iops and %d bw samples",
				name, i, j.JobName, ss.Duration, len(ss.Data.IOPS), len(ss.Data.BW))
		}
	}
	return &out, nil
}

// FioCheck is fio's steady-state judgement of one job recomputed from the
// window fio printed.
type FioCheck struct {
	JobName string
	// Criterion is the job's criterion: from its steadystate option when
	// that parses, else from the object's "ss" (whose limit fio printed as
	// a float32).
	Criterion Criterion
	Reported  FioSteadyState // as fio printed it
	Computed  FioSteadyState // recomputed
	Result    Result         // the recomputed criterion with both statistics
	// WindowFull is false when fio never evaluated the criterion because
	// the job ended before the window filled (fio then prints zeros).
	WindowFull bool
	// Matches is true when every field fio printed (ss, duration, attained,
	// criterion, max_deviation, slope) prints identically recomputed.
	Matches bool
}

// CheckFio recomputes the steady-state verdict of every job of a fio output
// that has a "steadystate" object. It returns ErrNoSteadyState when none
// has.
func CheckFio(out *FioOutput) ([]FioCheck, error) {
	var checks []FioCheck
	for i := range out.Jobs {
		j := &out.Jobs[i]
		if j.SteadyState == nil {
			continue
		}
		c, err := RecomputeFio(j, out.GlobalOptions)
		if err != nil {
			return nil, fmt.Errorf("steady: job %d (%q): %w", i, j.JobName, err)
		}
		checks = append(checks, c)
	}
	if len(checks) == 0 {
		return nil, ErrNoSteadyState
	}
	return checks, nil
}

// RecomputeFio recomputes one job's steady-state object from its data
// arrays with fio's arithmetic.
func RecomputeFio(j *FioJob, global map[string]string) (FioCheck, error) {
	rep := j.SteadyState
	if rep == nil {
		return FioCheck{}, ErrNoSteadyState
	}
	fromJSON, err := parseFioSS(rep.SS)
	if err != nil {
		return FioCheck{}, err
	}
	c := fromJSON
	// The option as given keeps the limit's full precision.
	for _, opts := range []map[string]string{j.Options, global} {
		s, ok := opts["steadystate"]
		if !ok {
			s, ok = opts["ss"]
		}
		if !ok {
			continue
		}
		if oc, err := Parse(s); err == nil && oc.Metric == c.Metric && oc.Method == c.Method && oc.Percent == c.Percent {
			c = oc
		}
		break
	}
	fc := FioCheck{JobName: j.JobName, Criterion: c, Reported: *rep, WindowFull: true}
	data := rep.Data.IOPS
	if c.Metric == BW {
		data = rep.Data.BW
	}
	fc.Result = Evaluate(c, data)
	if neverEvaluated(rep, c) {
		fc.WindowFull = false
		fc.Result = Result{Criterion: c} // nothing was judged
	}
	fc.Computed = NewFioSteadyState(c, fc.Result, fc.Result.Attained, rep.Data.IOPS, rep.Data.BW)
	fc.Matches = fc.Computed.SS == rep.SS && fc.Computed.Duration == rep.Duration &&
		fc.Computed.Attained == rep.Attained && fc.Computed.Criterion == rep.Criterion &&
		FormatFloat(fc.Computed.MaxDeviation) == FormatFloat(rep.MaxDeviation) &&
		FormatFloat(fc.Computed.Slope) == FormatFloat(rep.Slope)
	return fc, nil
}

// neverEvaluated tells a window that never filled: fio prints zeros for
// the criterion and both statistics, and the unfilled tail of the window
// is zero. A full window with a positive limit cannot print that: all
// zeros would be a NaN percentage or an attained absolute criterion.
func neverEvaluated(rep *FioSteadyState, c Criterion) bool {
	n := len(rep.Data.IOPS)
	if rep.Attained != 0 || rep.MaxDeviation != 0 || rep.Slope != 0 || n == 0 || !(c.Limit > 0) {
		return false
	}
	if rep.Data.IOPS[n-1] != 0 || rep.Data.BW[n-1] != 0 {
		return false
	}
	num := rep.Criterion
	if c.Percent && len(num) > 0 && num[len(num)-1] == '%' {
		num = num[:len(num)-1]
	}
	v, err := strconv.ParseFloat(num, 64)
	return err == nil && v == 0
}

// AppendFioCheck appends one job's recomputed object as the CLI prints it,
// in fio's JSON layout:
//
//	{
//	  "jobname" : "...",
//	  "steadystate" : { ss, duration, attained, criterion, max_deviation, slope },
//	  "stortest_steadystate" : { matches_fio, window_full, value, mean, max_deviation, slope, reason }
//	}
//
// The fio members print exactly as fio prints them; stortest's members
// keep full precision (shortest round-trip numbers, null when not finite).
func AppendFioCheck(dst []byte, fc FioCheck) []byte {
	r := fc.Result
	ext := fioObject{
		{"criterion", fc.Criterion.String()},
		{"matches_fio", fc.Matches},
		{"window_full", fc.WindowFull},
		{"attained", r.Attained},
		{"value", shortest(r.Value)},
		{"limit", shortest(fc.Criterion.Limit)},
		{"mean", shortest(r.Mean)},
		{"max_deviation", shortest(r.MaxDeviation)},
		{"slope", shortest(r.Slope)},
		{"reason", r.String()},
	}
	obj := fioObject{
		{"jobname", fc.JobName},
		{"steadystate", fc.Computed.tree(false)},
		{"stortest_steadystate", ext},
	}
	p := fioPrinter{b: dst}
	p.value(obj, 0)
	p.b = append(p.b, '\n')
	return p.b
}

// shortest formats v as the shortest decimal that reads back as v; null
// when not finite (JSON has no NaN).
func shortest(v float64) rawNumber {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return rawNumber(strconv.FormatFloat(v, 'g', -1, 64))
}
