package fioout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"syscall"
	"time"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// OutputFormat selects WriteFioJSON's detail.
type OutputFormat int

const (
	FormatJSON     OutputFormat = iota // fio's --output-format=json
	FormatJSONPlus                     // json+: adds latency "bins"
)

// WriteFioJSON writes r in the schema of fio's JSON output (fio 3.33),
// so fio's own tools (fio_jsonplus_clat2csv, fio-histo scripts) and
// `stortest fio pctiles` read it. Keys keep fio's order; doubles are
// printed with six decimals as fio does. stortest's additions (error
// details, verify counts, clipped latencies) sit under a "stortest" key
// per job so fio's keys stay intact. "global options" and "job options"
// are the options as given when r.FioOptions holds them (Parse),
// else each job's options printed from its Job and no global options.
func WriteFioJSON(w io.Writer, r *workload.Result, format OutputFormat, now time.Time) error {
	r = groupReport(r)
	given := givenFor(r)
	jobs := make([]any, 0, len(r.Jobs))
	for i, j := range r.Jobs {
		opts := fioSteadyOptions(fioOptions(&j.Job), &j.Job)
		if given != nil {
			opts = fioGivenOptions(given[i])
		}
		jobs = append(jobs, fioJob(j, opts, format))
	}
	doc := ordered{
		{"fio version", "stortest-" + workload.Version},
		{"timestamp", now.Unix()},
		{"timestamp_ms", now.UnixMilli()},
		{"time", now.Format("Mon Jan _2 15:04:05 2006")},
	}
	// fio leaves out an empty "global options", and a job's empty "job
	// options".
	if g := r.FioOptions; g != nil && len(g.Global) > 0 {
		doc = append(doc, field{"global options", fioGivenOptions(g.Global)})
	}
	doc = append(doc, field{"jobs", jobs})
	if len(r.DiskUtil) > 0 { // fio leaves it out when it watched no disk (the null engine)
		doc = append(doc, field{"disk_util", fioDiskUtil(r.DiskUtil)})
	}
	compact, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err = w.Write(buf.Bytes())
	return err
}

// jobErrno is the errno fio reports for a job (its error field, err=):
// the lowest errno among its failed I/Os, else the errno that ended it
// (rate_min: EIO; max_latency: ETIMEDOUT), else 0.
func jobErrno(j *workload.JobResult) int {
	errno := 0
	for e := range j.ErrnoCounts {
		if errno == 0 || e < errno {
			errno = e
		}
	}
	var en syscall.Errno
	if errno == 0 && errors.As(j.Err, &en) {
		errno = int(en)
	}
	return errno
}

func fioJob(j *workload.JobResult, opts ordered, format OutputFormat) ordered {
	errno := jobErrno(j)
	ms := j.Runtime.Milliseconds()
	o := ordered{
		{"jobname", j.Name},
		{"groupid", 0},
		{"error", errno},
		{"eta", 0},
		{"elapsed", int64(math.Ceil(j.Runtime.Seconds()))},
	}
	if len(opts) > 0 {
		o = append(o, field{"job options", opts})
	}
	o = append(o, fioDirs(j, format)...)
	// fio prints the sync latency percentiles when clat or lat
	// percentiles are on.
	sync := ordered{{"total_ios", j.Sync.IOs}}
	if j.Sync.Lat != nil {
		on := !j.Job.NoClatPercentiles || j.Job.LatPercentiles
		sync = append(sync, field{"lat_ns", fioStat(j.Sync.Lat, on, j.Job.Percentiles(), format)})
	}
	o = append(o,
		field{"sync", sync},
		field{"job_runtime", ms},
		field{"usr_cpu", fixed6(cpuPercent(j.UsrCPU, j.Runtime))},
		field{"sys_cpu", fixed6(cpuPercent(j.SysCPU, j.Runtime))},
		field{"ctx", j.Ctx},
		field{"majf", j.MajFlt},
		field{"minf", j.MinFlt},
		field{"iodepth_level", depthDist(&j.Depths.Level, levelKeys)},
		field{"iodepth_submit", depthDist(&j.Depths.Submit, batchKeys)},
		field{"iodepth_complete", depthDist(&j.Depths.Complete, batchKeys)},
	)
	o = append(o, fioJobTail(j)...)
	// fio prints "steadystate" last, after latency_window.
	o = append(o, fioSteadyFields(j, format)...)
	o = append(o, field{"stortest", stortestExtras(j)})
	return o
}

var (
	levelKeys = [7]string{"1", "2", "4", "8", "16", "32", ">=64"}
	batchKeys = [7]string{"0", "4", "8", "16", "32", "64", ">=64"}
)

// depthDist is one of fio's depth distributions: each bucket's percentage
// of the total, and at least 0.1 for a bucket that counted anything.
func depthDist(counts *[7]uint64, keys [7]string) ordered {
	var total uint64
	for _, c := range counts {
		total += c
	}
	o := make(ordered, len(keys))
	for i, c := range counts {
		pct := 0.0
		if total > 0 {
			pct = float64(c) / float64(total) * 100
			if c > 0 && pct < 0.1 {
				pct = 0.1
			}
		}
		o[i] = field{keys[i], fixed6(pct)}
	}
	return o
}

func cpuPercent(cpu, runtime time.Duration) float64 {
	if runtime <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / runtime.Seconds()
}

// fioDirRuntime is a direction's runtime as fio prints it: whole
// microseconds rounded up to whole ms, so a run shorter than 1 ms has
// runtime 1 (and iops 1000 times its I/Os), never 0.
func fioDirRuntime(d time.Duration) uint64 {
	return (uint64(max(d.Microseconds(), 0)) + 999) / 1000
}

func fioDir(j *workload.JobResult, d workload.Dir, format OutputFormat) ordered {
	s := j.Dirs[d]
	var ms, bwBytes uint64
	var iops float64
	if s.Bytes > 0 { // fio reports runtime 0 for a direction that moved nothing (cpuio's reads too)
		ms = fioDirRuntime(j.Runtime)
	}
	if ms > 0 {
		// fio's integer bytes/s and double iops.
		bwBytes = 1000 * s.Bytes / ms
		iops = 1000 * float64(s.IOs) / float64(ms)
	}
	pcts := j.Job.Percentiles()
	bw, io := fioRates(j, d)
	if j.Job.DisableBW {
		bw, io = moments{}, moments{}
	}
	return ordered{
		{"io_bytes", s.Bytes},
		{"io_kbytes", s.Bytes / 1024},
		{"bw_bytes", bwBytes},
		{"bw", bwBytes / 1024},
		{"iops", fixed6(iops)},
		{"runtime", ms},
		{"total_ios", s.IOs},
		{"short_ios", s.ShortIOs},
		{"drop_ios", s.DropIOs},
		{"slat_ns", fioStat(s.Slat, j.Job.SlatPercentiles, pcts, format)},
		{"clat_ns", fioStat(s.Clat, !j.Job.NoClatPercentiles, pcts, format)},
		{"lat_ns", fioStat(s.Lat, j.Job.LatPercentiles, pcts, format)},
		{"bw_min", int64(bw.min)},
		{"bw_max", int64(bw.max)},
		{"bw_agg", fixed6(boolf(bw.n > 0) * 100)},
		{"bw_mean", fixed6(bw.mean)},
		{"bw_dev", fixed6(bw.stddev)},
		{"bw_samples", bw.n},
		{"iops_min", int64(io.min)},
		{"iops_max", int64(io.max)},
		{"iops_mean", fixed6(io.mean)},
		{"iops_stddev", fixed6(io.stddev)},
		{"iops_samples", io.n},
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fioStat is a slat_ns/clat_ns/lat_ns object: percentiles only when on
// and N > 0, bins only with json+ and percentiles.
func fioStat(h *latency.Histogram, percentiles bool, list []float64, format OutputFormat) ordered {
	if h == nil || h.Count() == 0 {
		return ordered{{"min", 0}, {"max", 0}, {"mean", fixed6(0)}, {"stddev", fixed6(0)}, {"N", 0}}
	}
	o := ordered{
		{"min", h.Min()},
		{"max", h.Max()},
		{"mean", fixed6(h.Mean())},
		{"stddev", fixed6(h.Stddev())},
		{"N", h.Count()},
	}
	if !percentiles {
		return o
	}
	pl := make(latency.PercentileList, len(list))
	for i, v := range h.Percentiles(list) {
		pl[i] = latency.PercentileValue{P: list[i], Value: v}
	}
	o = append(o, field{"percentile", pl})
	if format == FormatJSONPlus {
		o = append(o, field{"bins", json.RawMessage(h.AppendBinsJSON(nil))})
	}
	return o
}

func stortestExtras(j *workload.JobResult) ordered {
	errs := ordered{}
	for _, e := range slices.Sorted(maps.Keys(j.ErrnoCounts)) {
		errs = append(errs, field{strconv.Itoa(e), j.ErrnoCounts[e]})
	}
	first := make([]string, 0, len(j.FirstErrors))
	for _, e := range j.FirstErrors {
		first = append(first, e.Error())
	}
	var clipped uint64
	for d := range workload.NumDirs {
		if h := j.Dirs[d].Lat; h != nil {
			clipped += h.Clipped()
		}
	}
	vfirst := make([]string, 0, len(j.Verify.First))
	for _, e := range j.Verify.First {
		vfirst = append(vfirst, e.Error())
	}
	o := ordered{
		{"version", workload.Version},
		{"engine", j.Engine},
		{"target", j.Target},
		{"clone", j.Clone},
		{"canceled", j.Canceled},
		{"errors_by_errno", errs},
		{"first_errors", first},
		{"lat_clipped", clipped},
		// The job threads' CPU as fio's usr_cpu and sys_cpu, exactly, and
		// per I/O.
		{"usr_cpu_ns", int64(j.UsrCPU)},
		{"sys_cpu_ns", int64(j.SysCPU)},
		{"cpu_ns_per_io", fixed6(j.CPUPerIO())},
		{"verify", ordered{{"checked", j.Verify.Checked}, {"mismatches", j.Verify.Mismatches}, {"first", vfirst}}},
	}
	if j.Engine == "io_uring" {
		// Whether the buffers were registered with the ring: stortest's
		// default where the kernel allows it, fio's fixedbufs=1.
		o = append(o, field{"fixed_buffers", j.FixedBufs})
	}
	if len(j.Outstanding) > 0 {
		// I/Os the run stopped waiting for (a hung device), oldest first.
		out := make([]any, 0, len(j.Outstanding))
		for _, io := range j.Outstanding {
			out = append(out, ordered{{"op", io.Op}, {"offset", io.Offset}, {"len", io.Len},
				{"issued_ns", int64(io.Issued)}, {"age_ns", int64(io.Age)}})
		}
		o = append(o, field{"outstanding", out})
	}
	if j.Err != nil {
		o = append(o, field{"error", j.Err.Error()})
	}
	return o
}

// fioDiskUtil is fio's "disk_util" array: one object per device.
func fioDiskUtil(ds []workload.DiskUtil) []any {
	out := make([]any, 0, len(ds))
	for _, d := range ds {
		out = append(out, ordered{
			{"name", d.Name},
			{"read_ios", d.ReadIOs},
			{"write_ios", d.WriteIOs},
			{"read_merges", d.ReadMerges},
			{"write_merges", d.WriteMerges},
			{"read_ticks", d.ReadTicks},
			{"write_ticks", d.WriteTicks},
			{"in_queue", d.InQueue},
			{"util", fixed6(d.Util)},
		})
	}
	return out
}

// fioRates summarises direction d's per-second bandwidth (KiB/s) and
// IOPS as fio's bw_* and iops_* fields. fio's samples are integers (its
// integer division of bytes or I/Os by the interval's ms), so their
// printed min and max bracket the mean; fractional samples printed as
// integers would not (iops_max 400 under a mean of 400.08, which
// importers rightly take for damaged figures).
//
// fio leaves out the intervals in which nothing moved, so a direction
// that moved no bytes in the whole run (a read-only job's writes,
// cpuio's reads of no bytes) has no bw samples, and one without I/O no
// iops samples; the seconds of a direction that did move something are
// all kept here.
func fioRates(j *workload.JobResult, d workload.Dir) (bw, iops moments) {
	var ios, bytes uint64
	for i := range j.Seconds {
		ios += j.Seconds[i].IOs[d]
		bytes += j.Seconds[i].Bytes[d]
	}
	if bytes > 0 {
		secs, whole := rateSamples(j, j.Job.BWAvgTime)
		bw = perSecond(secs, whole, func(sec *workload.Second) float64 { return math.Floor(sec.BW(d) / 1024) })
	}
	if ios > 0 {
		secs, whole := rateSamples(j, j.Job.IOPSAvgTime)
		iops = perSecond(secs, whole, func(sec *workload.Second) float64 { return math.Floor(sec.IOPS(d)) })
	}
	return bw, iops
}

// rateSamples returns the samples of a job's bw_* or iops_* figures and
// the length of a whole one: its seconds, or, with bwavgtime or
// iopsavgtime (avg), windows of avg summed from its slices, as fio
// averages over avg.
func rateSamples(j *workload.JobResult, avg time.Duration) ([]workload.Second, time.Duration) {
	if avg <= 0 || avg == time.Second {
		return j.Seconds, time.Second
	}
	var out []workload.Second
	var cur workload.Second
	for _, s := range j.Slices {
		cur.T, cur.Dur = s.T, cur.Dur+s.Dur
		for d := range workload.NumDirs {
			cur.IOs[d] += s.IOs[d]
			cur.Bytes[d] += s.Bytes[d]
		}
		if cur.Dur >= avg*99/100 {
			out = append(out, cur)
			cur = workload.Second{}
		}
	}
	if cur.Dur > 0 {
		out = append(out, cur) // partial: not a sample
	}
	return out, avg
}

type moments struct {
	n                      int
	min, max, mean, stddev float64
}

// perSecond summarises a per-second series as fio's bw_*/iops_* fields.
// Like fio it uses whole intervals only: the last, partial one would read
// as a sudden drop.
func perSecond(secs []workload.Second, whole time.Duration, f func(*workload.Second) float64) moments {
	var m moments
	m.min = math.Inf(1)
	var sum float64
	for i := range secs {
		if secs[i].Dur < whole*99/100 {
			continue
		}
		v := f(&secs[i])
		m.min, m.max = math.Min(m.min, v), math.Max(m.max, v)
		sum += v
		m.n++
	}
	if m.n == 0 {
		return moments{}
	}
	m.mean = sum / float64(m.n)
	if m.n > 1 {
		var ss float64
		for i := range secs {
			if secs[i].Dur < whole*99/100 {
				continue
			}
			d := f(&secs[i]) - m.mean
			ss += d * d
		}
		m.stddev = math.Sqrt(ss / float64(m.n-1))
	}
	return m
}

// ordered is a JSON object that keeps its key order.
type ordered []field

type field struct {
	K string
	V any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, f.K)
		b = append(b, ':')
		v, err := json.Marshal(f.V)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// fixed6 is a double printed as fio prints them ("%f").
type fixed6 float64

func (f fixed6) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return strconv.AppendFloat(nil, v, 'f', 6, 64), nil
}
