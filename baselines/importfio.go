package baselines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"stortest.dev/fio"
	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// fio's JSON beyond what latency.ReadFio reads: throughput, totals, the
// per-interval sample moments and the job options.
type fioDoc struct {
	Version     string          `json:"fio version"`
	Timestamp   int64           `json:"timestamp"`
	TimestampMs int64           `json:"timestamp_ms"`
	Global      json.RawMessage `json:"global options"`
	Jobs        []fioJobDoc     `json:"jobs"`
}

type fioJobDoc struct {
	Name       string          `json:"jobname"`
	Error      int             `json:"error"`
	Options    json.RawMessage `json:"job options"`
	JobRuntime int64           `json:"job_runtime"` // ms
	Read       *fioDirDoc      `json:"read"`
	Write      *fioDirDoc      `json:"write"`
	Trim       *fioDirDoc      `json:"trim"`
}

type fioDirDoc struct {
	IOBytes     uint64  `json:"io_bytes"`
	BWBytes     float64 `json:"bw_bytes"`
	IOPS        float64 `json:"iops"`
	Runtime     int64   `json:"runtime"` // ms
	TotalIOs    uint64  `json:"total_ios"`
	ShortIOs    uint64  `json:"short_ios"`
	BWMin       float64 `json:"bw_min"` // KiB/s, as all of fio's bw_* but bw_bytes
	BWMax       float64 `json:"bw_max"`
	BWMean      float64 `json:"bw_mean"`
	BWDev       float64 `json:"bw_dev"`
	BWSamples   int     `json:"bw_samples"`
	IOPSMin     float64 `json:"iops_min"`
	IOPSMax     float64 `json:"iops_max"`
	IOPSMean    float64 `json:"iops_mean"`
	IOPSStddev  float64 `json:"iops_stddev"`
	IOPSSamples int     `json:"iops_samples"`
}

// ErrFioJob is matched by ImportFio's errors about a job's content (a job
// fio reported failed, one without I/O).
var ErrFioJob = errors.New("baselines: fio job not usable as a baseline")

// ImportFio turns fio's JSON or json+ output (fio --output-format=json+)
// into baselines, one per job name, so existing fio results seed the
// regression gate. Clones printed separately (numjobs without
// group_reporting) are merged. The histograms come from json+ "bins" (fio's
// 29-group layout); from plain JSON only fio's printed percentiles are
// kept and tail comparisons will be inconclusive. fio's JSON has no
// per-second samples, only their moments (iops_mean, iops_stddev,
// iops_samples...), which regress uses instead. The Job holds what
// fiojob.Parse understands of the options; FioOptions keeps all
// of them. The fingerprint has only the engine and fio's version: the
// device is not in fio's output. Every job of one output gets the same
// Session, that of the fio process that wrote it (FioSession): fio's
// run is a session of its own, as a go test process is. name names the
// input in errors.
func ImportFio(r io.Reader, name string) ([]*Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("baselines: read %s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("baselines: %s: larger than %d MiB", name, maxFileSize>>20)
	}
	lat, err := latency.ReadFio(bytes.NewReader(data), name)
	if err != nil {
		return nil, fmt.Errorf("baselines: import: %w", err)
	}
	var doc fioDoc
	if err := fio.UnmarshalJSON(data, name, &doc); err != nil {
		return nil, fmt.Errorf("baselines: import: %w", err)
	}
	if len(doc.Jobs) == 0 || len(doc.Jobs) != len(lat.Jobs) {
		return nil, fmt.Errorf("baselines: import %s: no jobs", name)
	}
	global, err := fioOptions(doc.Global)
	if err != nil {
		return nil, fmt.Errorf("baselines: import %s: global options: %w", name, err)
	}
	var out []*Baseline
	byName := map[string]*Baseline{}
	for i := range doc.Jobs {
		jd, jl := &doc.Jobs[i], &lat.Jobs[i]
		if jd.Error != 0 {
			return nil, fmt.Errorf("%w: %s: job %q: fio reported error %d", ErrFioJob, name, jd.Name, jd.Error)
		}
		if jd.Name == "" {
			return nil, fmt.Errorf("%w: %s: job %d has no name", ErrFioJob, name, i)
		}
		b, err := importJob(&doc, jd, jl, global)
		if err != nil {
			return nil, fmt.Errorf("baselines: import %s: job %q: %w", name, jd.Name, err)
		}
		if prev := byName[b.Name]; prev != nil {
			if err := prev.mergeClone(b); err != nil {
				return nil, fmt.Errorf("baselines: import %s: job %q: %w", name, jd.Name, err)
			}
			continue
		}
		byName[b.Name] = b
		out = append(out, b)
	}
	for _, b := range out {
		if _, err := Marshal(b); err != nil { // what would not load back is refused now
			return nil, fmt.Errorf("baselines: import %s: %w", name, err)
		}
	}
	return out, nil
}

// fioOption is one of fio's "job options" in file order.
type fioOption struct{ k, v string }

func fioOptions(raw json.RawMessage) ([]fioOption, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out []fioOption
	err := fio.EachField(raw, func(k string, v json.RawMessage) error {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // fio prints strings; keep anything else verbatim
		}
		out = append(out, fioOption{k, s})
		return nil
	})
	return out, err
}

// fioJob parses fio's options as fiojob.Parse does, leaving out
// the options it refuses (fio's own such as group_reporting, or what
// stortest does not implement) one at a time.
func fioJob(name string, global, opts []fioOption) workload.Job {
	var args []string
	add := func(o fioOption) {
		if o.v == "" {
			args = append(args, "--"+o.k)
		} else {
			args = append(args, "--"+o.k+"="+o.v)
		}
	}
	for _, o := range global {
		add(o)
	}
	nameArg := len(args)
	args = append(args, "--name="+name)
	for _, o := range opts {
		if o.k != "name" {
			add(o)
		}
	}
	for range len(args) + 1 {
		jobs, _, err := fiojob.Parse(nil, "", fiojob.Config{Args: args})
		if err == nil && len(jobs) == 1 {
			return jobs[0]
		}
		var pe *fiojob.ParseError
		if !errors.As(err, &pe) || pe.Arg < 0 || pe.Arg >= len(args) || pe.Arg == nameArg {
			break
		}
		args = append(args[:pe.Arg], args[pe.Arg+1:]...)
		if pe.Arg < nameArg {
			nameArg--
		}
	}
	return workload.Job{Name: name}.Normalized()
}

func importJob(doc *fioDoc, jd *fioJobDoc, jl *latency.FioJob, global []fioOption) (*Baseline, error) {
	opts, err := fioOptions(jd.Options)
	if err != nil {
		return nil, fmt.Errorf("job options: %w", err)
	}
	all := map[string]string{}
	for _, o := range append(append([]fioOption(nil), global...), opts...) {
		all[o.k] = o.v
	}
	job := fioJob(jd.Name, global, opts)
	b := &Baseline{
		Schema:      SchemaVersion,
		Name:        jd.Name,
		Created:     fioTime(doc.Timestamp),
		Session:     FioSession(doc.Timestamp, doc.TimestampMs),
		Clones:      1,
		Job:         job,
		FioOptions:  all,
		Fingerprint: Fingerprint{Engine: job.Engine, Version: doc.Version},
	}
	rt := jd.JobRuntime
	for i, dd := range []*fioDirDoc{jd.Read, jd.Write, jd.Trim} {
		if dd == nil || dd.TotalIOs == 0 {
			continue
		}
		if dd.Runtime <= 0 || dd.IOPS <= 0 {
			// fio rounds a direction's runtime up to whole ms, so I/O
			// never comes with runtime 0; stortest's JSON had runs
			// shorter than 1 ms that way (iops and bw 0) until it
			// rounded as fio does. Zeros would make a baseline no run
			// can fall below.
			return nil, fmt.Errorf("%w: %s: %d I/Os with runtime %d ms and iops %v: no throughput to compare",
				ErrFioJob, DirNames[i], dd.TotalIOs, dd.Runtime, dd.IOPS)
		}
		rt = max(rt, dd.Runtime)
		dir := &Dir{
			Name: DirNames[i], IOs: dd.TotalIOs, Bytes: dd.IOBytes, ShortIOs: dd.ShortIOs,
			IOPS: dd.IOPS, BW: dd.BWBytes,
			IOPSSamples: Moments{N: dd.IOPSSamples, Min: dd.IOPSMin, Max: dd.IOPSMax, Mean: dd.IOPSMean, Stddev: dd.IOPSStddev},
			BWSamples: Moments{N: dd.BWSamples, Min: dd.BWMin * 1024, Max: dd.BWMax * 1024,
				Mean: dd.BWMean * 1024, Stddev: dd.BWDev * 1024},
		}
		dir.IOPSSamples, dir.BWSamples = saneMoments(dir.IOPSSamples, 1), saneMoments(dir.BWSamples, 1024)
		ld := jl.Direction(DirNames[i])
		if ld != nil {
			for _, s := range []struct {
				in  *latency.FioStat
				out **Stat
			}{{ld.Slat, &dir.Slat}, {ld.Clat, &dir.Clat}, {ld.Lat, &dir.Lat}} {
				if s.in == nil || s.in.N == 0 {
					continue
				}
				st, err := fioStat(s.in)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", dir.Name, err)
				}
				*s.out = st
			}
		}
		b.Dirs = append(b.Dirs, dir)
	}
	if len(b.Dirs) == 0 {
		return nil, fmt.Errorf("%w: no I/O completed", ErrFioJob)
	}
	b.Runtime = time.Duration(rt) * time.Millisecond
	b.Runtime = max(0, b.Runtime)
	return b, nil
}

// FioSession is the session of an imported fio output: "fio-" and the
// time fio wrote it, its "timestamp_ms" (Unix milliseconds) or else its
// "timestamp" (seconds) in decimal, "fio-1795725525555". One fio
// process prints one timestamp for all its jobs, so they are one session,
// and two fio runs are two sessions unless they ended in the same
// millisecond (in the same second, for outputs without timestamp_ms),
// which two runs of one device cannot. "" when the output has no
// timestamp: such runs are judged as runs recorded before sessions were
// (several of them in one baseline count as one session).
func FioSession(sec, ms int64) string {
	switch {
	case ms > 0 && fioTime(ms/1000) != time.Time{}:
		return fmt.Sprintf("fio-%d", ms)
	case fioTime(sec) != time.Time{}:
		return fmt.Sprintf("fio-%d", sec*1000)
	}
	return ""
}

// fioTime is fio's Unix timestamp, or the zero time when it cannot be one.
func fioTime(sec int64) time.Time {
	t := time.Unix(sec, 0).UTC()
	if sec <= 0 || t.Year() > 9999 {
		return time.Time{}
	}
	return t
}

// saneMoments drops per-interval moments that do not describe samples
// (none, or printed inconsistently): they are only ever a fallback. Min
// and max are printed as whole units (unit: 1 I/O per second, or 1 KiB/s
// in bytes), the mean with decimals, so a min or max less than one unit
// on the wrong side of the mean is rounding, not damage (stortest's own
// JSON once truncated fractional samples: iops_max 400 under an
// iops_mean of 400.08); such a min or max is taken as the mean.
func saneMoments(m Moments, unit float64) Moments {
	if m.N <= 0 || m.Stddev < 0 || m.Min > m.Mean+unit || m.Mean > m.Max+unit {
		return Moments{}
	}
	m.Min, m.Max = min(m.Min, m.Mean), max(m.Max, m.Mean)
	return m
}

// fioStat keeps fio's statistics and printed percentiles; the histogram
// (and any percentile fio did not print) comes from json+ bins.
func fioStat(s *latency.FioStat) (*Stat, error) {
	st := &Stat{N: s.N, Min: s.Min, Max: s.Max, Mean: s.Mean, Stddev: s.Stddev}
	var h *latency.Histogram
	if len(s.Bins) > 0 {
		var err error
		if h, err = s.Histogram(latency.FioLayout); err != nil {
			return nil, err
		}
		st.Hist = &Hist{Groups: latency.FioGroups, Bins: h.Bins()}
	}
	for _, p := range Percentiles {
		for _, pv := range s.Percentile {
			if math.Abs(pv.P-p) < 1e-9 {
				st.setPercentile(p, pv.Value)
			}
		}
		if _, ok := st.Percentile(p); !ok && h != nil {
			st.setPercentile(p, h.Percentile(p))
		}
	}
	return st, nil
}

// mergeClone adds another clone of the same job, as fio's group_reporting
// would: totals and throughput add, histograms merge; the per-interval
// moments of separate clones do not combine and are dropped.
func (b *Baseline) mergeClone(o *Baseline) error {
	b.Clones += o.Clones
	b.Runtime = max(b.Runtime, o.Runtime)
	for _, od := range o.Dirs {
		d := b.Dir(od.Name)
		if d == nil {
			b.Dirs = append(b.Dirs, od)
			continue
		}
		d.IOs += od.IOs
		d.Bytes += od.Bytes
		d.ShortIOs += od.ShortIOs
		d.Errors += od.Errors
		d.IOPS += od.IOPS
		d.BW += od.BW
		d.IOPSSamples, d.BWSamples = Moments{}, Moments{}
		var err error
		if d.Slat, err = mergeStat(d.Slat, od.Slat); err != nil {
			return err
		}
		if d.Clat, err = mergeStat(d.Clat, od.Clat); err != nil {
			return err
		}
		if d.Lat, err = mergeStat(d.Lat, od.Lat); err != nil {
			return err
		}
	}
	// Keep fio's direction order.
	var dirs []*Dir
	for _, n := range DirNames {
		if d := b.Dir(n); d != nil {
			dirs = append(dirs, d)
		}
	}
	b.Dirs = dirs
	return nil
}

// mergeStat combines two stats: exact counts, extremes, mean and variance
// (the parallel form of Welford's method); percentiles from the merged
// histogram, unknown without one.
func mergeStat(a, o *Stat) (*Stat, error) {
	if a == nil {
		return o, nil
	}
	if o == nil {
		return a, nil
	}
	n := a.N + o.N
	fa, fo := float64(a.N), float64(o.N)
	mean := (a.Mean*fa + o.Mean*fo) / float64(n)
	ss := a.Stddev*a.Stddev*math.Max(fa-1, 0) + o.Stddev*o.Stddev*math.Max(fo-1, 0) +
		(o.Mean-a.Mean)*(o.Mean-a.Mean)*fa*fo/float64(n)
	out := &Stat{N: n, Min: min(a.Min, o.Min), Max: max(a.Max, o.Max), Mean: mean}
	if n > 1 {
		out.Stddev = math.Sqrt(ss / float64(n-1))
	}
	if a.Hist == nil || o.Hist == nil {
		return out, nil
	}
	ha, err := a.Hist.Histogram()
	if err != nil {
		return nil, err
	}
	ho, err := o.Hist.Histogram()
	if err != nil {
		return nil, err
	}
	if err := ha.Merge(ho); err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	out.Hist = &Hist{Groups: a.Hist.Groups, Bins: ha.Bins()}
	for _, p := range Percentiles {
		out.setPercentile(p, ha.Percentile(p))
	}
	return out, nil
}
