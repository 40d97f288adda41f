package baselines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/fio"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// Errors of Decode and Load, for errors.Is. A missing file is
// fs.ErrNotExist.
var (
	// ErrCorrupt: the file is not a valid baseline (truncated, bad JSON, a
	// missing or inconsistent field).
	ErrCorrupt = errors.New("baselines: corrupt baseline")
	// ErrSchema: the file is a baseline of another schema version.
	ErrSchema = errors.New("baselines: unsupported schema version")
)

// Error is a Decode or Load failure: the file, the 1-based line (0 when
// unknown) and the field as a dotted path ("dirs.read.clat.hist"; "" when
// the error is not about one field).
type Error struct {
	File  string
	Line  int
	Field string
	Kind  error // ErrCorrupt or ErrSchema
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("baselines: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the kind (ErrCorrupt or ErrSchema) and the cause.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// maxFileSize bounds what Decode reads: far above any real baseline (a
// 10-minute run is ~100 KB) and small enough not to exhaust memory on a
// wrong file.
const maxFileSize = 64 << 20

// Load reads and validates the baseline at path. Errors name the file,
// line and field (*Error, matching ErrCorrupt or ErrSchema); a missing
// file matches fs.ErrNotExist.
func Load(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads and validates one baseline; name is used in errors.
// Everything about the file is checked: the schema version first (a newer
// file is ErrSchema with what to do), then the JSON (syntax, truncation,
// unknown or mistyped fields), then consistency (histogram counts against
// N, ascending percentiles and seconds, bucket values of the layout).
// Versions MinSchemaVersion to SchemaVersion load; the baseline keeps its
// version (Schema), and fields a version does not have are unknown (a
// schema 1 baseline has no per-second clat means).
func Decode(r io.Reader, name string) (*Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("baselines: read %s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{File: name, Kind: ErrCorrupt, Err: fmt.Errorf("larger than %d MiB: not a baseline", maxFileSize>>20)}
	}
	return decode(data, name)
}

// Mirror types of the file format. Pointers mark required fields.
type fileJSON struct {
	Schema      *int                         `json:"schema"`
	Name        *string                      `json:"name"`
	Created     *string                      `json:"created"`
	Session     string                       `json:"session"` // schema 4
	RuntimeNS   *int64                       `json:"runtime_ns"`
	Clones      int                          `json:"clones"`
	Fingerprint fingerprintJSON              `json:"fingerprint"`
	Job         json.RawMessage              `json:"job"`
	FioOptions  map[string]string            `json:"fio_options"`
	Dirs        map[string]*dirJSON          `json:"dirs"`
	Seconds     []map[string]json.RawMessage `json:"seconds"`
	Tolerances  string                       `json:"tolerances"` // schema 3
	Shared      string                       `json:"shared"`     // schema 3
	Slices      *slicesJSON                  `json:"slices"`     // schema 3
	Runs        []map[string]json.RawMessage `json:"runs"`       // schema 3
}

// slicesJSON holds the slices by column (Baseline.slicesTree).
type slicesJSON struct {
	IntervalNS *int64   `json:"interval_ns"`
	DurNS      []int64  `json:"dur_ns"`
	ReadIOs    []uint64 `json:"read_ios"`
	ReadBytes  []uint64 `json:"read_bytes"`
	WriteIOs   []uint64 `json:"write_ios"`
	WriteBytes []uint64 `json:"write_bytes"`
	TrimIOs    []uint64 `json:"trim_ios"`
	TrimBytes  []uint64 `json:"trim_bytes"`
}

type runDirJSON struct {
	IOPS      *float64 `json:"iops"`
	BW        *float64 `json:"bw"`
	ClatMean  float64  `json:"clat_mean"`
	ClatP50   uint64   `json:"clat_p50"`
	ClatP90   uint64   `json:"clat_p90"`
	ClatP99   uint64   `json:"clat_p99"`
	ClatP999  uint64   `json:"clat_p99.9"`
	ClatP9999 uint64   `json:"clat_p99.99"`
	Swing     *float64 `json:"swing"`     // schema 4
	LatSwing  *float64 `json:"lat_swing"` // schema 4
}

type fingerprintJSON struct {
	Kind          string `json:"kind"`
	Device        string `json:"device"`
	Vendor        string `json:"vendor"`
	Model         string `json:"model"`
	Serial        string `json:"serial"`
	Firmware      string `json:"firmware"`
	Backing       string `json:"backing"`
	BackingDevice string `json:"backing_device"`
	Kernel        string `json:"kernel"`
	Engine        string `json:"engine"`
	Version       string `json:"version"`
	Hostname      string `json:"hostname"`
	Size          uint64 `json:"size"` // schema 3
}

type dirJSON struct {
	IOs         *uint64      `json:"ios"`
	Bytes       *uint64      `json:"bytes"`
	ShortIOs    uint64       `json:"short_ios"`
	Errors      uint64       `json:"errors"`
	IOPS        *float64     `json:"iops"`
	BW          *float64     `json:"bw"`
	IOPSSamples *momentsJSON `json:"iops_samples"`
	BWSamples   *momentsJSON `json:"bw_samples"`
	Slat        *statJSON    `json:"slat"`
	Clat        *statJSON    `json:"clat"`
	Lat         *statJSON    `json:"lat"`
}

type momentsJSON struct {
	N      *int     `json:"n"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
	Mean   *float64 `json:"mean"`
	Stddev *float64 `json:"stddev"`
}

type statJSON struct {
	N      *uint64         `json:"n"`
	Min    *uint64         `json:"min"`
	Max    *uint64         `json:"max"`
	Mean   *float64        `json:"mean"`
	Stddev *float64        `json:"stddev"`
	P50    uint64          `json:"p50"`
	P90    uint64          `json:"p90"`
	P99    uint64          `json:"p99"`
	P999   uint64          `json:"p99.9"`
	P9999  uint64          `json:"p99.99"`
	Groups *int            `json:"groups"`
	Hist   json.RawMessage `json:"hist"`
}

type secondDirJSON struct {
	IOs      *uint64 `json:"ios"`
	Bytes    *uint64 `json:"bytes"`
	ClatP50  uint64  `json:"clat_p50"`
	ClatP99  uint64  `json:"clat_p99"`
	ClatP999 uint64  `json:"clat_p99.9"`
	ClatMean uint64  `json:"clat_mean"` // schema 2
}

// decoder turns a failure into an *Error with the line of its field.
type decoder struct {
	data   []byte
	name   string
	schema int
}

func (d *decoder) fail(field string, format string, args ...any) *Error {
	return &Error{File: d.name, Line: fieldLine(d.data, field), Field: field, Kind: ErrCorrupt, Err: fmt.Errorf(format, args...)}
}

// jsonError converts an encoding/json error: syntax and type errors carry
// a byte offset (relative to base within the file), truncation ends at the
// last line.
func (d *decoder) jsonError(err error, field string, base int) *Error {
	e := &Error{File: d.name, Field: field, Kind: ErrCorrupt, Err: err}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &se) && se.Offset >= int64(len(d.data)-base) && strings.Contains(se.Error(), "end of JSON input")):
		e.Line = lineAt(d.data, len(d.data))
		e.Err = fmt.Errorf("truncated: the file ends inside a value (%d bytes, %d lines)", len(d.data), e.Line)
	case errors.As(err, &se):
		e.Line = lineAt(d.data, base+int(se.Offset)-1)
		e.Err = fmt.Errorf("invalid JSON: %v", se)
	case errors.As(err, &te):
		off := base + int(te.Offset) - 1
		e.Line = lineAt(d.data, off)
		// te.Field leaves out map keys ("dirs.ios" for dirs.read.ios):
		// the path of the last key before the offset is exact.
		if p := pathAt(d.data, off); p != "" {
			e.Field = p
		} else if te.Field != "" {
			e.Field = joinField(field, te.Field)
		}
		e.Err = fmt.Errorf("want %v, got %s", te.Type, te.Value)
	default:
		msg := err.Error()
		if k, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			k, _ = strconv.Unquote(k)
			e.Line = keyLine(d.data[base:], k) + lineAt(d.data, base) - 1
			e.Err = fmt.Errorf("unknown field %q", k)
		} else {
			e.Line = fieldLine(d.data, field)
		}
	}
	return e
}

func joinField(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func decode(data []byte, name string) (*Baseline, error) {
	d := &decoder{data: data, name: name}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: name, Kind: ErrCorrupt, Err: errors.New("empty file")}
	}
	// The schema first: a newer file is explained, not reported as the
	// unknown fields it probably has.
	var head struct {
		Schema json.RawMessage `json:"schema"`
		Fio    json.RawMessage `json:"fio version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		if line := secondBaseline(data); line > 0 {
			return nil, &Error{File: name, Line: line, Kind: ErrCorrupt,
				Err: errors.New("a second baseline after the first: a file holds one (baseline import-fio prints each job's, --out DIR writes them apart)")}
		}
		return nil, d.jsonError(err, "", 0)
	}
	if head.Schema == nil && head.Fio != nil {
		return nil, &Error{File: name, Line: 1, Kind: ErrCorrupt,
			Err: errors.New("fio output, not a stortest baseline: import it first (stortest baseline import-fio)")}
	}
	if head.Schema == nil {
		return nil, &Error{File: name, Line: 1, Kind: ErrCorrupt, Err: errors.New(`no "schema" field: not a stortest baseline`)}
	}
	v, err := strconv.Atoi(string(head.Schema))
	switch {
	case err != nil || v < 1:
		return nil, d.fail("schema", "%s is not a schema version", head.Schema)
	case v > SchemaVersion:
		return nil, &Error{File: name, Line: fieldLine(data, "schema"), Field: "schema", Kind: ErrSchema,
			Err: fmt.Errorf("schema %d is newer than this stortest reads (%d): update stortest, or rewrite the baseline with -stortest.update", v, SchemaVersion)}
	case v < MinSchemaVersion:
		return nil, &Error{File: name, Line: fieldLine(data, "schema"), Field: "schema", Kind: ErrSchema,
			Err: fmt.Errorf("schema %d is older than this stortest reads (%d to %d): rewrite the baseline with -stortest.update", v, MinSchemaVersion, SchemaVersion)}
	}
	d.schema = v
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil { // data after the object failed json.Unmarshal above
		return nil, d.jsonError(err, "", 0)
	}
	return d.convert(&f)
}

func (d *decoder) convert(f *fileJSON) (*Baseline, error) {
	for _, req := range []struct {
		name string
		ok   bool
	}{{"name", f.Name != nil}, {"created", f.Created != nil}, {"runtime_ns", f.RuntimeNS != nil},
		{"job", f.Job != nil}, {"dirs", f.Dirs != nil}} {
		if !req.ok {
			return nil, &Error{File: d.name, Line: 1, Field: req.name, Kind: ErrCorrupt, Err: errors.New("missing")}
		}
	}
	b := &Baseline{Schema: *f.Schema, Name: *f.Name, Runtime: time.Duration(*f.RuntimeNS), Clones: f.Clones, FioOptions: f.FioOptions}
	if b.Name == "" {
		return nil, d.fail("name", "empty")
	}
	if b.Runtime < 0 {
		return nil, d.fail("runtime_ns", "negative (%d)", *f.RuntimeNS)
	}
	if b.Clones < 0 {
		return nil, d.fail("clones", "negative (%d)", b.Clones)
	}
	t, err := time.Parse(time.RFC3339, *f.Created)
	if err != nil {
		return nil, d.fail("created", "%q is not an RFC 3339 time", *f.Created)
	}
	b.Created = t.UTC()
	fp := f.Fingerprint
	b.Fingerprint = Fingerprint{Kind: fp.Kind, Device: fp.Device, Vendor: fp.Vendor, Model: fp.Model, Serial: fp.Serial,
		Firmware: fp.Firmware, Backing: fp.Backing, BackingDevice: fp.BackingDevice, Kernel: fp.Kernel,
		Engine: fp.Engine, Version: fp.Version, Hostname: fp.Hostname, Size: fp.Size}
	if d.schema < schemaSlices {
		for _, x := range []struct {
			field string
			has   bool
		}{{"fingerprint.size", fp.Size != 0}, {"tolerances", f.Tolerances != ""}, {"shared", f.Shared != ""}, {"slices", f.Slices != nil}, {"runs", f.Runs != nil}} {
			if x.has {
				return nil, d.fail(x.field, "not in schema %d (schema %d has it)", d.schema, schemaSlices)
			}
		}
	}
	if d.schema < schemaSession && f.Session != "" {
		return nil, d.fail("session", "not in schema %d (schema %d has it)", d.schema, schemaSession)
	}
	b.Tolerances, b.Shared, b.Session = f.Tolerances, f.Shared, f.Session
	if err := d.job(f.Job, &b.Job); err != nil {
		return nil, err
	}
	for name := range f.Dirs {
		if !slices.Contains(DirNames[:], name) {
			return nil, d.fail("dirs."+name, "unknown direction (want read, write or trim)")
		}
	}
	for _, name := range DirNames {
		dj, ok := f.Dirs[name]
		if !ok {
			continue
		}
		dir, err := d.dir("dirs."+name, name, dj)
		if err != nil {
			return nil, err
		}
		if field, err := dir.inconsistent(b.Runtime); err != nil {
			return nil, d.fail("dirs."+name+"."+field, "%v", err)
		}
		b.Dirs = append(b.Dirs, dir)
	}
	if len(b.Dirs) == 0 {
		return nil, d.fail("dirs", "no direction with I/O")
	}
	b.Seconds = make([]Second, 0, len(f.Seconds))
	for i, sj := range f.Seconds {
		s, err := d.second(fmt.Sprintf("seconds.%d", i), sj)
		if err != nil {
			return nil, err
		}
		if i > 0 && s.T <= b.Seconds[i-1].T {
			return nil, d.fail(fmt.Sprintf("seconds.%d", i), "t_ns %d is not after the previous second's %d", s.T, b.Seconds[i-1].T)
		}
		b.Seconds = append(b.Seconds, s)
	}
	if f.Slices != nil {
		if err := d.slices(f.Slices, b); err != nil {
			return nil, err
		}
	}
	for i, rj := range f.Runs {
		r, err := d.run(fmt.Sprintf("runs.%d", i), rj)
		if err != nil {
			return nil, err
		}
		b.Runs = append(b.Runs, r)
	}
	if len(b.Runs) == 1 {
		return nil, d.fail("runs", "one run: a baseline of one run has no runs")
	}
	return b, nil
}

// slices converts the slice columns: every column as long as dur_ns,
// every length positive.
func (d *decoder) slices(sj *slicesJSON, b *Baseline) error {
	if sj.IntervalNS == nil || *sj.IntervalNS <= 0 {
		return d.fail("slices.interval_ns", "want a positive interval")
	}
	b.SliceInterval = time.Duration(*sj.IntervalNS)
	n := len(sj.DurNS)
	b.Slices = make([]Slice, n)
	var t time.Duration
	for i, v := range sj.DurNS {
		if v <= 0 {
			return d.fail("slices.dur_ns", "slice %d: length %d is not positive", i, v)
		}
		if t > math.MaxInt64-time.Duration(v) {
			return d.fail("slices.dur_ns", "slice %d: the lengths add past the largest time", i)
		}
		t += time.Duration(v)
		b.Slices[i].T, b.Slices[i].Dur = t, time.Duration(v)
	}
	for di, col := range [3][2][]uint64{{sj.ReadIOs, sj.ReadBytes}, {sj.WriteIOs, sj.WriteBytes}, {sj.TrimIOs, sj.TrimBytes}} {
		ios, bytes := col[0], col[1]
		if ios == nil && bytes == nil {
			continue
		}
		name := DirNames[di]
		if len(ios) != n || len(bytes) != n {
			return d.fail("slices."+name+"_ios", "%d and %d values for %d slices", len(ios), len(bytes), n)
		}
		for i := range n {
			if ios[i] > 0 || bytes[i] > 0 {
				b.Slices[i].Dirs[di] = &SliceDir{IOs: ios[i], Bytes: bytes[i]}
			}
		}
	}
	return nil
}

func (d *decoder) run(path string, raw map[string]json.RawMessage) (RunSummary, error) {
	var r RunSummary
	var created *string
	for k, v := range raw {
		switch k {
		case "created":
			if err := json.Unmarshal(v, &created); err != nil || created == nil {
				return r, d.fail(path, "created %s is not a string", v)
			}
			t, err := time.Parse(time.RFC3339, *created)
			if err != nil {
				return r, d.fail(path, "created %q is not an RFC 3339 time", *created)
			}
			r.Created = t.UTC()
		case "runtime_ns":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n < 0 {
				return r, d.fail(path, "runtime_ns %s is not a non-negative integer", v)
			}
			r.Runtime = time.Duration(n)
		case "shared":
			if err := json.Unmarshal(v, &r.Shared); err != nil {
				return r, d.fail(path, "shared %s is not a string", v)
			}
		case "session":
			if d.schema < schemaSession {
				return r, d.fail(path, "session: not in schema %d (schema %d has it)", d.schema, schemaSession)
			}
			var s *string
			if err := json.Unmarshal(v, &s); err != nil || s == nil {
				return r, d.fail(path, "session %s is not a string", v)
			}
			r.Session = *s
		default:
			if !slices.Contains(DirNames[:], k) {
				return r, d.fail(path, "unknown field %q", k)
			}
			var rd runDirJSON
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rd); err != nil {
				return r, d.fail(path, "%s: %v", k, err)
			}
			if rd.IOPS == nil || rd.BW == nil {
				return r, d.fail(path, "%s: want iops and bw", k)
			}
			var swing [2]float64
			for i, p := range []*float64{rd.Swing, rd.LatSwing} {
				if p == nil {
					continue
				}
				if d.schema < schemaSession {
					return r, d.fail(path, "%s: %s: not in schema %d (schema %d has it)", k, [...]string{"swing", "lat_swing"}[i], d.schema, schemaSession)
				}
				swing[i] = *p
			}
			for _, x := range []float64{*rd.IOPS, *rd.BW, rd.ClatMean, swing[0], swing[1]} {
				if !(x >= 0) || math.IsInf(x, 0) {
					return r, d.fail(path, "%s: %v is not a non-negative number", k, x)
				}
			}
			r.Dirs = append(r.Dirs, RunDir{Name: k, IOPS: *rd.IOPS, BW: *rd.BW, ClatMean: rd.ClatMean, ClatP50: rd.ClatP50,
				ClatP90: rd.ClatP90, ClatP99: rd.ClatP99, ClatP999: rd.ClatP999, ClatP9999: rd.ClatP9999, Swing: swing[0], LatSwing: swing[1]})
		}
	}
	if created == nil {
		return r, d.fail(path, "want created")
	}
	slices.SortFunc(r.Dirs, func(a, b RunDir) int {
		return slices.Index(DirNames[:], a.Name) - slices.Index(DirNames[:], b.Name)
	})
	return r, nil
}

func (d *decoder) job(raw json.RawMessage, j *workload.Job) error {
	base := bytes.Index(d.data, raw) // raw is a sub-slice of the file's bytes
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(j); err != nil {
		e := d.jsonError(err, "job", max(base, 0))
		if e.Line == 0 || e.Field == "job" {
			// An option's own parser failed (an unknown rw, say): find
			// which one by decoding the options one at a time.
			_ = fio.EachField(raw, func(k string, v json.RawMessage) error {
				var one workload.Job
				if json.Unmarshal([]byte(`{"`+k+`":`+string(v)+`}`), &one) != nil {
					e.Field = "job." + k
					return errors.New("found")
				}
				return nil
			})
			e.Line = fieldLine(d.data, e.Field)
		}
		return e
	}
	if err := validate.Job(j); err != nil {
		var fe *workload.FieldError
		if errors.As(err, &fe) {
			return d.fail("job."+fe.Field, "%s", fe.Reason)
		}
		return d.fail("job", "%v", err)
	}
	*j = j.Normalized()
	return nil
}

func (d *decoder) dir(path, name string, dj *dirJSON) (*Dir, error) {
	if dj == nil {
		return nil, d.fail(path, "null")
	}
	for _, req := range []struct {
		f  string
		ok bool
	}{{"ios", dj.IOs != nil}, {"bytes", dj.Bytes != nil}, {"iops", dj.IOPS != nil}, {"bw", dj.BW != nil}} {
		if !req.ok {
			return nil, d.fail(path, "missing %q", req.f)
		}
	}
	dir := &Dir{Name: name, IOs: *dj.IOs, Bytes: *dj.Bytes, ShortIOs: dj.ShortIOs, Errors: dj.Errors, IOPS: *dj.IOPS, BW: *dj.BW}
	if dir.IOPS < 0 || dir.BW < 0 {
		return nil, d.fail(path+".iops", "negative throughput")
	}
	var err error
	if dir.IOPSSamples, err = d.moments(path+".iops_samples", dj.IOPSSamples); err != nil {
		return nil, err
	}
	if dir.BWSamples, err = d.moments(path+".bw_samples", dj.BWSamples); err != nil {
		return nil, err
	}
	for _, s := range []struct {
		name string
		in   *statJSON
		out  **Stat
	}{{"slat", dj.Slat, &dir.Slat}, {"clat", dj.Clat, &dir.Clat}, {"lat", dj.Lat, &dir.Lat}} {
		if s.in == nil {
			continue
		}
		if *s.out, err = d.stat(path+"."+s.name, s.in); err != nil {
			return nil, err
		}
	}
	return dir, nil
}

func (d *decoder) moments(path string, m *momentsJSON) (Moments, error) {
	if m == nil {
		return Moments{}, nil
	}
	if m.N == nil || m.Min == nil || m.Max == nil || m.Mean == nil || m.Stddev == nil {
		return Moments{}, d.fail(path, "want n, min, max, mean and stddev")
	}
	out := Moments{N: *m.N, Min: *m.Min, Max: *m.Max, Mean: *m.Mean, Stddev: *m.Stddev}
	if out.N < 0 || out.Stddev < 0 || (out.N > 0 && (out.Min > out.Mean || out.Mean > out.Max)) {
		return Moments{}, d.fail(path, "inconsistent: n=%d min=%v mean=%v max=%v stddev=%v", out.N, out.Min, out.Mean, out.Max, out.Stddev)
	}
	return out, nil
}

func (d *decoder) stat(path string, s *statJSON) (*Stat, error) {
	if s.N == nil || s.Min == nil || s.Max == nil || s.Mean == nil || s.Stddev == nil {
		return nil, d.fail(path, "want n, min, max, mean and stddev")
	}
	out := &Stat{N: *s.N, Min: *s.Min, Max: *s.Max, Mean: *s.Mean, Stddev: *s.Stddev,
		P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, P9999: s.P9999}
	if out.N > 0 && out.Min > out.Max {
		return nil, d.fail(path+".min", "min %d > max %d", out.Min, out.Max)
	}
	if out.Stddev < 0 || math.IsNaN(out.Mean) {
		return nil, d.fail(path+".stddev", "negative")
	}
	var prev uint64
	for _, p := range Percentiles {
		v, ok := out.Percentile(p)
		if !ok {
			continue
		}
		if v < prev {
			return nil, d.fail(path+"."+percentileKey(p), "%d is below a lower percentile's %d", v, prev)
		}
		prev = v
	}
	if s.Hist == nil {
		if s.Groups != nil {
			return nil, d.fail(path+".groups", "without a hist")
		}
		return out, nil
	}
	if s.Groups == nil {
		return nil, d.fail(path+".hist", `without "groups"`)
	}
	l, err := latency.NewLayout(*s.Groups)
	if err != nil {
		return nil, d.fail(path+".groups", "%v", err)
	}
	var bins latency.BinList
	if err := json.Unmarshal(s.Hist, &bins); err != nil {
		return nil, d.fail(path+".hist", "%v", err)
	}
	var n uint64
	for i, b := range bins {
		if got := l.Value(l.Index(b.Value)); got != b.Value {
			return nil, d.fail(path+".hist."+strconv.FormatUint(b.Value, 10), "not a bucket value of a %d-group histogram (nearest %d)", *s.Groups, got)
		}
		if i > 0 && b.Value <= bins[i-1].Value {
			return nil, d.fail(path+".hist."+strconv.FormatUint(b.Value, 10), "buckets out of order")
		}
		if b.Count == 0 {
			return nil, d.fail(path+".hist."+strconv.FormatUint(b.Value, 10), "empty bucket")
		}
		if n+b.Count < n {
			return nil, d.fail(path+".hist", "counts overflow")
		}
		n += b.Count
	}
	if n != out.N {
		return nil, d.fail(path+".hist", "buckets hold %d values, n is %d", n, out.N)
	}
	out.Hist = &Hist{Groups: *s.Groups, Bins: slices.Clip([]latency.Bin(bins))}
	return out, nil
}

func (d *decoder) second(path string, raw map[string]json.RawMessage) (Second, error) {
	var s Second
	for k, v := range raw {
		switch k {
		case "t_ns", "dur_ns":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n <= 0 {
				return s, d.fail(path, "%s %s is not a positive integer", k, v)
			}
			if k == "t_ns" {
				s.T = time.Duration(n)
			} else {
				s.Dur = time.Duration(n)
			}
		default:
			i := slices.Index(DirNames[:], k)
			if i < 0 {
				return s, d.fail(path, "unknown field %q", k)
			}
			var sd secondDirJSON
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&sd); err != nil {
				return s, d.fail(path, "%s: %v", k, err)
			}
			if sd.IOs == nil || sd.Bytes == nil {
				return s, d.fail(path, "%s: want ios and bytes", k)
			}
			if sd.ClatMean != 0 && d.schema < schemaClatMean {
				return s, d.fail(path, "%s: clat_mean is not in schema %d (schema %d has it)", k, d.schema, schemaClatMean)
			}
			s.Dirs[i] = &SecondDir{IOs: *sd.IOs, Bytes: *sd.Bytes, ClatP50: sd.ClatP50, ClatP99: sd.ClatP99, ClatP999: sd.ClatP999,
				ClatMean: sd.ClatMean}
		}
	}
	if s.T == 0 || s.Dur == 0 {
		return s, d.fail(path, "want t_ns and dur_ns")
	}
	if s.Dur > s.T {
		return s, d.fail(path, "dur_ns %d is longer than t_ns %d", s.Dur, s.T)
	}
	return s, nil
}

// lineAt returns the 1-based line of byte offset off.
// secondBaseline returns the line where a second baseline starts after
// a first whole JSON value (what baseline import-fio prints for several
// jobs, saved to one file), or 0 when data is not that.
func secondBaseline(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return 0
	}
	off := int(dec.InputOffset())
	var next struct {
		Schema json.RawMessage `json:"schema"`
	}
	if dec.Decode(&next) != nil || next.Schema == nil {
		return 0
	}
	rest := data[off:]
	return lineAt(data, off+len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))
}

func lineAt(data []byte, off int) int {
	off = max(0, min(off, len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// pathAt returns the dotted path of the last object key or array element
// that starts at or before byte offset off, or "".
func pathAt(data []byte, off int) string {
	var last string
	walkKeys(data, func(path []string, at int) bool {
		if at > off {
			return false
		}
		last = strings.Join(path, ".")
		return true
	})
	return last
}

// keyLine returns the line of the first object key k anywhere in data,
// or 1.
func keyLine(data []byte, k string) int {
	line := 1
	walkKeys(data, func(path []string, off int) bool {
		if path[len(path)-1] == k {
			line = lineAt(data, off)
			return false
		}
		return true
	})
	return line
}

// fieldLine returns the line of the dotted field path in data (array
// elements by index: "seconds.3"), or of the deepest part of it that
// exists, or 1.
func fieldLine(data []byte, field string) int {
	best, bestLen := 1, 0
	walkKeys(data, func(path []string, off int) bool {
		p := strings.Join(path, ".")
		if p == field {
			best = lineAt(data, off)
			return false
		}
		if strings.HasPrefix(field, p+".") && len(p) > bestLen {
			best, bestLen = lineAt(data, off), len(p)
		}
		return true
	})
	return best
}

// walkKeys calls f with the path and byte offset of every object key and
// array element, in document order, until f returns false or the JSON
// ends (or breaks).
func walkKeys(data []byte, f func(path []string, off int) bool) {
	type frame struct {
		obj       bool
		expectKey bool
		idx       int
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	var path []string
	done := func() { // a value ended: its key or index leaves the path
		if len(stack) > 0 {
			path = path[:len(path)-1]
			if stack[len(stack)-1].obj {
				stack[len(stack)-1].expectKey = true
			}
		}
	}
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				done()
				continue
			}
			k, _ := tok.(string)
			path = append(path, k)
			stack[n-1].expectKey = false
			if !f(path, int(dec.InputOffset())) {
				return
			}
			continue
		}
		if tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			done()
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].obj {
			stack[n-1].idx++
			path = append(path, strconv.Itoa(stack[n-1].idx))
			// The token starts after any separator and white space.
			off := start + len(data[start:]) - len(bytes.TrimLeft(data[start:], ", \t\r\n"))
			if !f(path, off+1) {
				return
			}
		}
		if tok == json.Delim('{') || tok == json.Delim('[') {
			stack = append(stack, frame{obj: tok == json.Delim('{'), expectKey: tok == json.Delim('{'), idx: -1})
			continue
		}
		done()
	}
}
