package steady

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FioSteadyState is fio's "steadystate" object of a job in its JSON
// output, with fio's keys. MarshalJSON prints it as fio does: fields in
// fio's order, doubles with "%f", ss and criterion as float32 with "%f".
type FioSteadyState struct {
	SS           string // "iops_slope:0.300000%": criterion and limit (float32, %f)
	Duration     int    // window in seconds (ss_dur)
	Attained     int    // 1 when attained
	Criterion    string // criterion value as float32 with %f, "%" appended for percentages
	MaxDeviation float64
	Slope        float64
	Data         FioSteadyStateData
}

// FioSteadyStateData is the window fio prints, oldest sample first.
type FioSteadyStateData struct {
	BWMean   uint64 // sum(bw)/n, truncated
	IOPSMean uint64 // sum(iops)/n, truncated
	IOPS     []uint64
	BW       []uint64
}

// NewFioSteadyState builds fio's object for a deviation or slope criterion
// on iops or bw: res is the criterion's result (not evaluated: fio's
// zeros), attained fio's attained flag, and iops and bw the window oldest
// first (both of len window). fio only fills max_deviation for deviation
// criteria and slope for slope criteria; the other stays 0.
func NewFioSteadyState(c Criterion, res Result, attained bool, iops, bw []uint64) FioSteadyState {
	f := FioSteadyState{
		SS:       fioSS(c),
		Duration: len(iops),
		Data: FioSteadyStateData{
			IOPS: append([]uint64(nil), iops...), BW: append([]uint64(nil), bw...),
			IOPSMean: truncMean(iops), BWMean: truncMean(bw),
		},
	}
	if attained {
		f.Attained = 1
	}
	value := 0.0
	if res.Evaluated {
		value = res.Value
		if c.Method == Slope {
			f.Slope = res.Slope
		} else {
			f.MaxDeviation = res.MaxDeviation
		}
	}
	f.Criterion = formatF32(value) + pctSuffix(c)
	return f
}

func pctSuffix(c Criterion) string {
	if c.Percent {
		return "%"
	}
	return ""
}

// fioSS is fio's "ss" string: name, ":", the limit as float32 "%f", "%".
func fioSS(c Criterion) string {
	return c.Name() + ":" + formatF32(c.Limit) + pctSuffix(c)
}

func truncMean(y []uint64) uint64 {
	if len(y) == 0 {
		return 0
	}
	var sum uint64
	for _, v := range y {
		sum += v
	}
	return sum / uint64(len(y))
}

// FormatFloat prints v as C's printf("%f") does with glibc: six decimals,
// "nan"/"-nan" by sign bit, "inf"/"-inf".
func FormatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// formatF32 is printf("%f", (float)v): v rounded to float32 first.
func formatF32(v float64) string {
	if math.IsNaN(v) {
		return FormatFloat(v) // the conversion keeps the sign
	}
	return FormatFloat(float64(float32(v)))
}

// MarshalJSON prints the object compactly with fio's number formatting.
// A non-finite double (fio prints nan, which is not JSON) becomes null.
func (f FioSteadyState) MarshalJSON() ([]byte, error) {
	var p fioPrinter
	p.compact = true
	p.value(f.tree(true), 0)
	return p.b, nil
}

// AppendFio appends the object as fio's JSON printer lays it out: "key" :
// value, two spaces per level, nested at level (the "steadystate" object
// of a job sits at level 2 in fio's output). Without data the "data"
// member is left out.
func (f FioSteadyState) AppendFio(dst []byte, level int, withData bool) []byte {
	p := fioPrinter{b: dst}
	p.value(f.tree(withData), level)
	return p.b
}

func (f FioSteadyState) tree(withData bool) fioObject {
	o := fioObject{
		{"ss", f.SS},
		{"duration", int64(f.Duration)},
		{"attained", int64(f.Attained)},
		{"criterion", f.Criterion},
		{"max_deviation", f.MaxDeviation},
		{"slope", f.Slope},
	}
	if withData {
		o = append(o, fioPair{"data", fioObject{
			{"bw_mean", int64(f.Data.BWMean)},
			{"iops_mean", int64(f.Data.IOPSMean)},
			{"iops", f.Data.IOPS},
			{"bw", f.Data.BW},
		}})
	}
	return o
}

// UnmarshalJSON reads fio's object. max_deviation and slope may be null
// (ReadFio turns fio's bare nan into null): they read as NaN.
func (f *FioSteadyState) UnmarshalJSON(b []byte) error {
	var aux struct {
		SS           string   `json:"ss"`
		Duration     int      `json:"duration"`
		Attained     int      `json:"attained"`
		Criterion    string   `json:"criterion"`
		MaxDeviation *float64 `json:"max_deviation"`
		Slope        *float64 `json:"slope"`
		Data         struct {
			BWMean   uint64   `json:"bw_mean"`
			IOPSMean uint64   `json:"iops_mean"`
			IOPS     []uint64 `json:"iops"`
			BW       []uint64 `json:"bw"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*f = FioSteadyState{
		SS: aux.SS, Duration: aux.Duration, Attained: aux.Attained, Criterion: aux.Criterion,
		MaxDeviation: fioNaN, Slope: fioNaN,
		Data: FioSteadyStateData{BWMean: aux.Data.BWMean, IOPSMean: aux.Data.IOPSMean, IOPS: aux.Data.IOPS, BW: aux.Data.BW},
	}
	if aux.MaxDeviation != nil {
		f.MaxDeviation = *aux.MaxDeviation
	}
	if aux.Slope != nil {
		f.Slope = *aux.Slope
	}
	return nil
}

// fioObject is an ordered JSON object for fioPrinter.
type fioObject []fioPair

type fioPair struct {
	key string
	val any // string, int64, float64 (%f), rawNumber, bool, fioObject, []uint64
}

// fioArray is a JSON array of the pairs' values (keys unused).
type fioArray []fioPair

// rawNumber is a number already formatted.
type rawNumber string

// fioPrinter writes JSON as fio's json.c does: objects and arrays open a
// line per member, members are indented two spaces per level, pairs are
// `"key" : value`, doubles print with %f. compact drops the whitespace.
type fioPrinter struct {
	b       []byte
	compact bool
}

func (p *fioPrinter) indent(level int) {
	if p.compact {
		return
	}
	for range level {
		p.b = append(p.b, "  "...)
	}
}

func (p *fioPrinter) newline() {
	if !p.compact {
		p.b = append(p.b, '\n')
	}
}

// container writes n members between open and end, each on a line of
// its own at level+1, separated by commas; member writes the i-th.
func (p *fioPrinter) container(open, end byte, n, level int, member func(i int)) {
	p.b = append(p.b, open)
	p.newline()
	for i := range n {
		if i > 0 {
			p.b = append(p.b, ',')
			p.newline()
		}
		p.indent(level + 1)
		member(i)
	}
	p.newline()
	p.indent(level)
	p.b = append(p.b, end)
}

func (p *fioPrinter) value(v any, level int) {
	switch v := v.(type) {
	case string:
		p.b = strconv.AppendQuote(p.b, v)
	case int64:
		p.b = strconv.AppendInt(p.b, v, 10)
	case bool:
		p.b = strconv.AppendBool(p.b, v)
	case rawNumber:
		p.b = append(p.b, v...)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p.b = append(p.b, "null"...)
		} else {
			p.b = append(p.b, FormatFloat(v)...)
		}
	case fioObject:
		p.container('{', '}', len(v), level, func(i int) {
			p.b = strconv.AppendQuote(p.b, v[i].key)
			if p.compact {
				p.b = append(p.b, ':')
			} else {
				p.b = append(p.b, " : "...)
			}
			p.value(v[i].val, level+1)
		})
	case fioArray:
		p.container('[', ']', len(v), level, func(i int) { p.value(v[i].val, level+1) })
	case []uint64:
		p.container('[', ']', len(v), level, func(i int) { p.b = strconv.AppendUint(p.b, v[i], 10) })
	default:
		panic(fmt.Sprintf("steady: fioPrinter: unexpected %T", v))
	}
}

// parseFioSS reads the "ss" string of fio's object ("bw_slope:20480.000000",
// "iops:5.000000%"): a fio criterion whose limit is any decimal number.
func parseFioSS(s string) (Criterion, error) {
	name, val, ok := strings.Cut(s, ":")
	if !ok {
		return Criterion{}, fmt.Errorf("%w %q: want NAME:LIMIT", ErrSyntax, s)
	}
	var c Criterion
	switch name {
	case "iops", "bw", "iops_slope", "bw_slope":
	default:
		return Criterion{}, fmt.Errorf("%w %q: fio has no criterion %q", ErrSyntax, s, name)
	}
	c.Method = Deviation
	if base, ok := strings.CutSuffix(name, "_slope"); ok {
		c.Method, name = Slope, base
	}
	c.Metric = IOPS
	if name == "bw" {
		c.Metric = BW
	}
	if num, ok := strings.CutSuffix(val, "%"); ok {
		c.Percent, val = true, num
	}
	v, err := parseFloat(val)
	if err != nil {
		return Criterion{}, fmt.Errorf("%w %q: %v", ErrSyntax, s, err)
	}
	c.Limit = v
	return c, nil
}
