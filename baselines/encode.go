package baselines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"stortest.dev/fio"
)

// Marshal encodes a baseline in its file format: JSON in a fixed field
// order, one value per line, so a diff of two baselines shows one line per
// changed metric. Histograms print one bucket per line ("66048": 12) in
// ascending order; per-second samples print one second per line.
// Unknown percentiles and per-second means (0) and absent stats are left
// out. The version written is b.Schema, so a baseline of schema 1 that
// was loaded writes back as it was.
//
// What Marshal returns, Decode reads back: the encoding is decoded and
// checked before it is returned (a millisecond or so), so a baseline that
// would not load (an inconsistent histogram, an invalid job, seconds out
// of order) is an error here, when it is written, not later when a test
// needs it.
func Marshal(b *Baseline) ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	doc, err := b.tree()
	if err != nil {
		return nil, err
	}
	p := printer{}
	if err := p.value(doc, 0); err != nil {
		return nil, fmt.Errorf("baselines: encode %s: %w", b.Name, err)
	}
	p.buf.WriteByte('\n')
	if _, err := decode(p.buf.Bytes(), b.Name+" (as encoded)"); err != nil {
		return nil, fmt.Errorf("baselines: %s would not load back: %w", b.Name, err)
	}
	return p.buf.Bytes(), nil
}

// Encode writes Marshal's encoding to w.
func Encode(w io.Writer, b *Baseline) error {
	data, err := Marshal(b)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// MarshalJSON encodes the baseline as Marshal does (encoding/json compacts
// it when the baseline is embedded in another document).
func (b *Baseline) MarshalJSON() ([]byte, error) { return Marshal(b) }

// UnmarshalJSON decodes and validates as Decode does.
func (b *Baseline) UnmarshalJSON(data []byte) error {
	v, err := decode(data, "json")
	if err != nil {
		return err
	}
	*b = *v
	return nil
}

// check rejects values the format cannot hold, so everything Marshal
// writes Decode reads back.
func (b *Baseline) check() error {
	var bad string
	finite := func(name string, v float64) {
		if bad == "" && (math.IsNaN(v) || math.IsInf(v, 0)) {
			bad = fmt.Sprintf("%s is %v", name, v)
		}
	}
	for _, d := range b.Dirs {
		finite(d.Name+".iops", d.IOPS)
		finite(d.Name+".bw", d.BW)
		for _, m := range []Moments{d.IOPSSamples, d.BWSamples} {
			finite(d.Name+" samples", m.Min+m.Max+m.Mean+m.Stddev)
		}
		for _, s := range []*Stat{d.Slat, d.Clat, d.Lat} {
			if s != nil {
				finite(d.Name+" stat", s.Mean+s.Stddev)
			}
		}
	}
	if y := b.Created.UTC().Year(); bad == "" && (y < 0 || y > 9999) {
		bad = fmt.Sprintf("created %v is outside the years RFC 3339 can write", b.Created)
	}
	if bad == "" && b.Schema < schemaClatMean {
		for i := range b.Seconds {
			for _, d := range b.Seconds[i].Dirs {
				if bad == "" && d != nil && d.ClatMean != 0 {
					bad = fmt.Sprintf("seconds.%d has a clat mean, which schema %d cannot hold (schema %d can)", i, b.Schema, schemaClatMean)
				}
			}
		}
	}
	if bad == "" && b.Schema < schemaSlices {
		switch {
		case len(b.Slices) > 0:
			bad = "slices"
		case len(b.Runs) > 0:
			bad = "runs"
		case b.Tolerances != "":
			bad = "tolerances"
		case b.Shared != "":
			bad = "shared"
		case b.Fingerprint.Size != 0:
			bad = "a fingerprint size"
		}
		if bad != "" {
			bad = fmt.Sprintf("it has %s, which schema %d cannot hold (schema %d can)", bad, b.Schema, schemaSlices)
		}
	}
	if bad == "" && b.Schema < schemaSession {
		has := b.Session != ""
		for _, r := range b.Runs {
			has = has || r.Session != ""
		}
		if has {
			bad = fmt.Sprintf("it has a session, which schema %d cannot hold (schema %d can)", b.Schema, schemaSession)
		}
	}
	if bad == "" && len(b.Slices) > 0 && b.SliceInterval <= 0 {
		bad = "slices without a slice interval"
	}
	// The file keeps the slices' lengths, their ends being the running
	// sums: slices that do not tile the time line would load back moved.
	var end time.Duration
	for i, s := range b.Slices {
		if bad == "" && (s.Dur <= 0 || s.T != end+s.Dur) {
			bad = fmt.Sprintf("slices.%d ends at %v with length %v, not right after the slice before (at %v)", i, s.T, s.Dur, end)
		}
		end = s.T
	}
	if bad == "" && len(b.Runs) == 1 {
		bad = "runs holds one run: a baseline of one run has none (RunSummaries gives its own)"
	}
	for _, r := range b.Runs {
		for _, d := range r.Dirs {
			finite("runs "+d.Name, d.IOPS+d.BW+d.ClatMean)
		}
	}
	if bad != "" {
		return fmt.Errorf("baselines: %s: %s", b.Name, bad)
	}
	return nil
}

// tree builds the document in file order.
func (b *Baseline) tree() (obj, error) {
	job, err := json.Marshal(b.Job)
	if err != nil {
		return nil, fmt.Errorf("baselines: encode job: %w", err)
	}
	var jobObj obj
	if err := fio.EachField(job, func(k string, raw json.RawMessage) error {
		jobObj = append(jobObj, kv{k, raw})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("baselines: encode job: %w", err)
	}
	var fp obj
	for _, f := range b.Fingerprint.fields() {
		if *f.v != "" {
			fp = append(fp, kv{f.key, *f.v})
		}
	}
	if b.Fingerprint.Size != 0 {
		fp = append(fp, kv{"size", b.Fingerprint.Size})
	}
	doc := obj{
		{"schema", b.Schema},
		{"name", b.Name},
		{"created", b.Created.UTC().Format(time.RFC3339)},
	}
	if b.Session != "" {
		doc = append(doc, kv{"session", b.Session})
	}
	doc = append(doc,
		kv{"runtime_ns", int64(b.Runtime)},
		kv{"clones", b.Clones},
		kv{"fingerprint", fp},
		kv{"job", jobObj},
	)
	if b.Tolerances != "" {
		doc = append(doc, kv{"tolerances", b.Tolerances})
	}
	if b.Shared != "" {
		doc = append(doc, kv{"shared", b.Shared})
	}
	if len(b.FioOptions) > 0 {
		keys := make([]string, 0, len(b.FioOptions))
		for k := range b.FioOptions {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var o obj
		for _, k := range keys {
			o = append(o, kv{k, b.FioOptions[k]})
		}
		doc = append(doc, kv{"fio_options", o})
	}
	var dirs obj
	for _, d := range b.Dirs {
		dirs = append(dirs, kv{d.Name, d.tree()})
	}
	doc = append(doc, kv{"dirs", dirs})
	secs := make(lines, 0, len(b.Seconds))
	for i := range b.Seconds {
		secs = append(secs, b.Seconds[i].tree())
	}
	doc = append(doc, kv{"seconds", secs})
	if len(b.Slices) > 0 {
		doc = append(doc, kv{"slices", b.slicesTree()})
	}
	if len(b.Runs) > 0 {
		runs := make(lines, 0, len(b.Runs))
		for _, r := range b.Runs {
			runs = append(runs, r.tree())
		}
		doc = append(doc, kv{"runs", runs})
	}
	return doc, nil
}

// slicesTree prints the slices by column, one line each: their lengths,
// then each direction's completions and bytes (0 where a direction had
// none). The slices' end times are the running sums of their lengths.
func (b *Baseline) slicesTree() obj {
	o := obj{{"interval_ns", int64(b.SliceInterval)}}
	dur := make([]int64, len(b.Slices))
	for i, s := range b.Slices {
		dur[i] = int64(s.Dur)
	}
	o = append(o, kv{"dur_ns", dur})
	for di, name := range DirNames {
		ios, bytes := make([]uint64, len(b.Slices)), make([]uint64, len(b.Slices))
		any := false
		for i, s := range b.Slices {
			if d := s.Dirs[di]; d != nil {
				ios[i], bytes[i], any = d.IOs, d.Bytes, true
			}
		}
		if any {
			o = append(o, kv{name + "_ios", ios}, kv{name + "_bytes", bytes})
		}
	}
	return o
}

// tree of a run is printed on one line (lines).
func (r RunSummary) tree() obj {
	o := obj{{"created", r.Created.UTC().Format(time.RFC3339)}}
	if r.Session != "" {
		o = append(o, kv{"session", r.Session})
	}
	o = append(o, kv{"runtime_ns", int64(r.Runtime)})
	if r.Shared != "" {
		o = append(o, kv{"shared", r.Shared})
	}
	for _, d := range r.Dirs {
		do := obj{{"iops", d.IOPS}, {"bw", d.BW}}
		if d.ClatMean != 0 {
			do = append(do, kv{"clat_mean", d.ClatMean})
		}
		for _, p := range []struct {
			k string
			v uint64
		}{{"clat_p50", d.ClatP50}, {"clat_p90", d.ClatP90}, {"clat_p99", d.ClatP99}, {"clat_p99.9", d.ClatP999}, {"clat_p99.99", d.ClatP9999}} {
			if p.v != 0 {
				do = append(do, kv{p.k, p.v})
			}
		}
		if d.Swing != 0 {
			do = append(do, kv{"swing", d.Swing})
		}
		if d.LatSwing != 0 {
			do = append(do, kv{"lat_swing", d.LatSwing})
		}
		o = append(o, kv{d.Name, do})
	}
	return o
}

func (d *Dir) tree() obj {
	o := obj{
		{"ios", d.IOs},
		{"bytes", d.Bytes},
		{"short_ios", d.ShortIOs},
		{"errors", d.Errors},
		{"iops", d.IOPS},
		{"bw", d.BW},
	}
	if d.IOPSSamples.N > 0 {
		o = append(o, kv{"iops_samples", d.IOPSSamples.tree()})
	}
	if d.BWSamples.N > 0 {
		o = append(o, kv{"bw_samples", d.BWSamples.tree()})
	}
	for _, s := range []struct {
		name string
		s    *Stat
	}{{"slat", d.Slat}, {"clat", d.Clat}, {"lat", d.Lat}} {
		if s.s != nil {
			o = append(o, kv{s.name, s.s.tree()})
		}
	}
	return o
}

func (m Moments) tree() obj {
	return obj{{"n", m.N}, {"min", m.Min}, {"max", m.Max}, {"mean", m.Mean}, {"stddev", m.Stddev}}
}

// percentileKey is the key of percentile p: "p99.9".
func percentileKey(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

func (s *Stat) tree() obj {
	o := obj{{"n", s.N}, {"min", s.Min}, {"max", s.Max}, {"mean", s.Mean}, {"stddev", s.Stddev}}
	for _, p := range Percentiles {
		if v, ok := s.Percentile(p); ok {
			o = append(o, kv{percentileKey(p), v})
		}
	}
	if s.Hist != nil {
		bins := make(obj, 0, len(s.Hist.Bins))
		for _, b := range s.Hist.Bins {
			bins = append(bins, kv{strconv.FormatUint(b.Value, 10), b.Count})
		}
		o = append(o, kv{"groups", s.Hist.Groups}, kv{"hist", bins})
	}
	return o
}

// tree of a second is printed on one line (lines).
func (s *Second) tree() obj {
	o := obj{{"t_ns", int64(s.T)}, {"dur_ns", int64(s.Dur)}}
	for i, d := range s.Dirs {
		if d == nil {
			continue
		}
		do := obj{{"ios", d.IOs}, {"bytes", d.Bytes}}
		for _, p := range []struct {
			k string
			v uint64
		}{{"clat_p50", d.ClatP50}, {"clat_p99", d.ClatP99}, {"clat_p99.9", d.ClatP999}, {"clat_mean", d.ClatMean}} {
			if p.v != 0 {
				do = append(do, kv{p.k, p.v})
			}
		}
		o = append(o, kv{DirNames[i], do})
	}
	return o
}

// obj is a JSON object printed in its order, one field per line; inside
// lines it prints compactly.
type obj []kv

type kv struct {
	k string
	v any
}

// lines is a JSON array printed one compact element per line.
type lines []any

// MarshalJSON writes the object compactly, in order.
func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuote(b, f.k)
		b = append(b, ':')
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// appendQuote appends s as a JSON string (strconv.Quote's Go escapes
// such as \x7f are not JSON).
func appendQuote(dst []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(dst, q...)
}

type printer struct{ buf bytes.Buffer }

func (p *printer) indent(level int) {
	for range level {
		p.buf.WriteString("  ")
	}
}

// container writes n members between open and end, each on a line of
// its own at level+1, separated by commas; member writes the i-th. An
// empty container is open and end on one line.
func (p *printer) container(open, end byte, n, level int, member func(i int) error) error {
	p.buf.WriteByte(open)
	if n == 0 {
		p.buf.WriteByte(end)
		return nil
	}
	p.buf.WriteByte('\n')
	for i := range n {
		p.indent(level + 1)
		if err := member(i); err != nil {
			return err
		}
		if i < n-1 {
			p.buf.WriteByte(',')
		}
		p.buf.WriteByte('\n')
	}
	p.indent(level)
	p.buf.WriteByte(end)
	return nil
}

func (p *printer) value(v any, level int) error {
	switch v := v.(type) {
	case obj:
		return p.container('{', '}', len(v), level, func(i int) error {
			p.buf.Write(appendQuote(nil, v[i].k))
			p.buf.WriteString(": ")
			return p.value(v[i].v, level+1)
		})
	case lines:
		return p.container('[', ']', len(v), level, func(i int) error {
			data, err := json.Marshal(v[i])
			if err != nil {
				return err
			}
			p.buf.Write(data)
			return nil
		})
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		p.buf.Write(data)
	}
	return nil
}
