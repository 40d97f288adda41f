package latency

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"stortest.dev/fio"
)

// Directions fio reports, in its order.
var Directions = []string{"read", "write", "trim"}

// StatNames are the latency stats fio reports per direction, in its order.
var StatNames = []string{"slat_ns", "clat_ns", "lat_ns"}

// FioOutput is the part of fio's JSON output (--output-format=json or
// json+) that latency reads: per job and direction, the latency stats.
type FioOutput struct {
	Version string   `json:"fio version"`
	Jobs    []FioJob `json:"jobs"`
}

// FioJob is one job of a fio JSON output.
type FioJob struct {
	Name  string        `json:"jobname"`
	Read  *FioDirection `json:"read,omitempty"`
	Write *FioDirection `json:"write,omitempty"`
	Trim  *FioDirection `json:"trim,omitempty"`
}

// Direction returns the job's stats for "read", "write" or "trim" (nil if absent).
func (j *FioJob) Direction(name string) *FioDirection {
	return named(name, [3]string{"read", "write", "trim"}, j.Read, j.Write, j.Trim)
}

// FioDirection holds the latency stats of one direction of a job.
type FioDirection struct {
	Slat *FioStat `json:"slat_ns,omitempty"`
	Clat *FioStat `json:"clat_ns,omitempty"`
	Lat  *FioStat `json:"lat_ns,omitempty"`
}

// Stat returns "slat_ns", "clat_ns" or "lat_ns" (nil if absent).
func (d *FioDirection) Stat(name string) *FioStat {
	return named(name, [3]string{"slat_ns", "clat_ns", "lat_ns"}, d.Slat, d.Clat, d.Lat)
}

// EachStat calls fn for every latency stat the job has, by direction and
// stat in fio's order (Directions, StatNames).
func (j *FioJob) EachStat(fn func(dir, stat string, s *FioStat)) {
	for _, dir := range Directions {
		d := j.Direction(dir)
		if d == nil {
			continue
		}
		for _, stat := range StatNames {
			if s := d.Stat(stat); s != nil {
				fn(dir, stat, s)
			}
		}
	}
}

// named returns the value whose name is name, nil for an unknown name.
func named[T any](name string, names [3]string, a, b, c *T) *T {
	for i, v := range [3]*T{a, b, c} {
		if names[i] == name {
			return v
		}
	}
	return nil
}

// FioStat is one latency stat object: {"min","max","mean","stddev","N",
// "percentile","bins"}. Percentile and Bins keep the order of the file.
type FioStat struct {
	Min        uint64         `json:"min"`
	Max        uint64         `json:"max"`
	Mean       float64        `json:"mean"`
	Stddev     float64        `json:"stddev"`
	N          uint64         `json:"N"`
	Percentile PercentileList `json:"percentile,omitempty"`
	Bins       BinList        `json:"bins,omitempty"`
}

// PercentileValue is one entry of a "percentile" object.
type PercentileValue struct {
	P     float64
	Value uint64
}

// PercentileList is a fio "percentile" object with its keys in order.
type PercentileList []PercentileValue

// Percentiles returns the list's percentiles in order.
func (l PercentileList) Percentiles() []float64 {
	ps := make([]float64, len(l))
	for i, v := range l {
		ps[i] = v.P
	}
	return ps
}

// MarshalJSON writes the object as fio does: keys "%f", integer values, in order.
func (l PercentileList) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, PercentileKey(v.P))
		b = append(b, ':')
		b = strconv.AppendUint(b, v.Value, 10)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the object keeping its key order.
func (l *PercentileList) UnmarshalJSON(data []byte) error {
	*l = nil
	return decodeOrderedObject(data, func(key string, val uint64) error {
		p, err := strconv.ParseFloat(key, 64)
		if err != nil || p < 0 || p > 100 {
			return fmt.Errorf("percentile key %q is not a number from 0 to 100", key)
		}
		*l = append(*l, PercentileValue{P: p, Value: val})
		return nil
	})
}

// BinList is a json+ "bins" object with its keys in order.
type BinList []Bin

// MarshalJSON writes the bins object in order.
func (l BinList) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendUint(b, v.Value, 10)
		b = append(b, '"', ':')
		b = strconv.AppendUint(b, v.Count, 10)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the bins object keeping its key order.
func (l *BinList) UnmarshalJSON(data []byte) error {
	*l = nil
	return decodeOrderedObject(data, func(key string, val uint64) error {
		v, err := strconv.ParseUint(key, 10, 64)
		if err != nil {
			return fmt.Errorf("bin key %q is not a non-negative integer", key)
		}
		*l = append(*l, Bin{Value: v, Count: val})
		return nil
	})
}

// decodeOrderedObject walks a JSON object whose values are non-negative
// integers, in key order.
func decodeOrderedObject(data []byte, f func(key string, val uint64) error) error {
	return fio.EachField(data, func(key string, raw json.RawMessage) error {
		if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
			return fmt.Errorf("key %q: want an integer, got %s", key, raw)
		}
		val, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return fmt.Errorf("key %q: value %s is not a non-negative integer", key, raw)
		}
		return f(key, val)
	})
}

// Histogram rebuilds the stat's histogram from its json+ bins with layout l
// (FioLayout for fio's output). It returns ErrNoBins when the stat has none
// (plain json output, or percentiles off for this stat).
func (s *FioStat) Histogram(l Layout) (*Histogram, error) {
	if len(s.Bins) == 0 {
		return nil, ErrNoBins
	}
	h, err := FromBins(l, s.Bins)
	if err != nil {
		return nil, err
	}
	if h.Count() != s.N {
		return nil, fmt.Errorf("latency: bins hold %d values, N is %d", h.Count(), s.N)
	}
	return h, nil
}

// ErrNoBins means a stat has no json+ bins to rebuild a histogram from.
var ErrNoBins = errors.New("latency: no json+ bins")

// ReadFio decodes fio's JSON output with fio.DecodeJSON: text before the
// first '{' (fio prints warnings there when stderr is merged) is skipped,
// bare nan and inf are null. Syntax errors name the line and column; name
// is used in error messages (a file name, or "-").
func ReadFio(r io.Reader, name string) (*FioOutput, error) {
	var out FioOutput
	if err := fio.DecodeJSON(r, name, &out); err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	return &out, nil
}
