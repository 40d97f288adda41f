package histlog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Unit is a latency unit of outputs, in nanoseconds.
type Unit int64

const (
	Nanosecond  Unit = 1
	Microsecond Unit = 1000
	Millisecond Unit = 1000000
)

// ParseUnit parses "ns", "us" or "ms" (also "nsec", "usec", "msec").
func ParseUnit(s string) (Unit, error) {
	switch s {
	case "ns", "nsec":
		return Nanosecond, nil
	case "us", "usec":
		return Microsecond, nil
	case "ms", "msec":
		return Millisecond, nil
	}
	return 0, fmt.Errorf("histlog: unit %q: want ns, us or ms", s)
}

func (u Unit) String() string {
	switch u {
	case Nanosecond:
		return "ns"
	case Microsecond:
		return "us"
	case Millisecond:
		return "ms"
	}
	return fmt.Sprintf("Unit(%d)", int64(u))
}

// appendValue appends a latency or count with about 6 significant
// digits in positional notation (bucket bounds are only 1/64 apart, so
// more digits say nothing); NaN appends nothing.
func appendValue(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return b
	}
	dec := 0
	if a := math.Abs(v); a > 0 {
		dec = min(max(5-int(math.Floor(math.Log10(a))), 0), 12)
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', dec, 64)
	if dec > 0 {
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		if b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

func percentileName(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// CSVSink writes Merge's rows as CSV for people and plotting tools:
//
//	time_ms,direction,inputs,samples,min,p50,...,max[,samples:<label>...]
//
// time_ms is the start of the quantum on the logs' clock; latencies are
// in the sink's unit; an empty field means no completions.
type CSVSink struct {
	w    *bufio.Writer
	unit Unit
	line []byte
}

// NewCSVSink returns a sink writing to w with latencies in unit.
func NewCSVSink(w io.Writer, unit Unit) *CSVSink {
	return &CSVSink{w: bufio.NewWriterSize(w, 64<<10), unit: unit}
}

func (c *CSVSink) Begin(s *Summary) error {
	h := []string{"time_ms", "direction", "inputs", "samples", "min"}
	for _, p := range s.Percentiles {
		h = append(h, percentileName(p))
	}
	h = append(h, "max")
	if s.ByInput {
		for _, l := range s.Labels {
			h = append(h, csvQuote("samples:"+l))
		}
	}
	_, err := c.w.WriteString(strings.Join(h, ",") + "\n")
	return err
}

func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func (c *CSVSink) Row(r *Row) error {
	u := float64(c.unit)
	b := strconv.AppendInt(c.line[:0], r.Time, 10)
	b = append(b, ',')
	b = append(b, r.Dir.String()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Inputs), 10)
	b = append(b, ',')
	b = appendValue(b, r.Samples)
	b = append(b, ',')
	b = appendValue(b, r.Min/u)
	for _, v := range r.Percentiles {
		b = append(b, ',')
		b = appendValue(b, v/u)
	}
	b = append(b, ',')
	b = appendValue(b, r.Max/u)
	for _, v := range r.ByInput {
		b = append(b, ',')
		b = appendValue(b, v)
	}
	c.line = append(b, '\n')
	_, err := c.w.Write(c.line)
	return err
}

func (c *CSVSink) End(*Summary) error { return c.w.Flush() }

// JSONSink writes one JSON document: the summary (start_ms, quantum_ms,
// unit, format, percentiles, inputs), then "rows", each with time_ms,
// direction, inputs, samples, min, percentiles (an object keyed by
// percentile, in the order asked), max and, per input, by_input;
// latencies in the sink's unit, null without completions; and last
// quanta and late_rows.
type JSONSink struct {
	w    *bufio.Writer
	unit Unit
	sum  *Summary
	keys []string
	line []byte
	rows int
}

// NewJSONSink returns a sink writing to w with latencies in unit.
func NewJSONSink(w io.Writer, unit Unit) *JSONSink {
	return &JSONSink{w: bufio.NewWriterSize(w, 64<<10), unit: unit}
}

func (j *JSONSink) Begin(s *Summary) error {
	j.sum = s
	b := fmt.Appendf(nil, `{"start_ms":%d,"quantum_ms":%d,"unit":%q,`, s.Start, s.Quantum, j.unit.String())
	b = fmt.Appendf(b, `"format":{"groups":%d,"coarseness":%d,"fio_version":%d},"percentiles":[`,
		s.Format.Layout.Groups(), s.Format.Coarseness, s.Format.FioVersion())
	for i, p := range s.Percentiles {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, p, 'f', -1, 64)
		j.keys = append(j.keys, strconv.Quote(strconv.FormatFloat(p, 'f', -1, 64)))
	}
	b = append(b, `],"inputs":[`...)
	for i, l := range s.Labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, l)
	}
	b = append(b, "],\"rows\":[\n"...)
	_, err := j.w.Write(b)
	return err
}

func appendJSONValue(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return append(b, "null"...)
	}
	return appendValue(b, v)
}

func (j *JSONSink) Row(r *Row) error {
	u := float64(j.unit)
	b := j.line[:0]
	if j.rows > 0 {
		b = append(b, ",\n"...)
	}
	j.rows++
	b = fmt.Appendf(b, `{"time_ms":%d,"direction":%q,"inputs":%d,"samples":`, r.Time, r.Dir.String(), r.Inputs)
	b = appendJSONValue(b, r.Samples)
	b = append(b, `,"min":`...)
	b = appendJSONValue(b, r.Min/u)
	b = append(b, `,"percentiles":{`...)
	for i, v := range r.Percentiles {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, j.keys[i]...)
		b = append(b, ':')
		b = appendJSONValue(b, v/u)
	}
	b = append(b, `},"max":`...)
	b = appendJSONValue(b, r.Max/u)
	if r.ByInput != nil {
		b = append(b, `,"by_input":[`...)
		for i, v := range r.ByInput {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, v)
		}
		b = append(b, ']')
	}
	j.line = append(b, '}')
	_, err := j.w.Write(j.line)
	return err
}

func (j *JSONSink) End(s *Summary) error {
	fmt.Fprintf(j.w, "\n],\"quanta\":%d,\"late_rows\":%d}\n", s.Quanta, s.Late)
	return j.w.Flush()
}
