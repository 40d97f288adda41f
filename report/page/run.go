package page

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/internal/human"
	"stortest.dev/iostat"
	"stortest.dev/regress"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// Run is what a run's page shows.
type Run struct {
	// Title heads the page: the test and the job.
	Title string
	// Jobs are the run's jobs, each with its clones merged (a baseline
	// holds exactly that: job, fingerprint, totals, whole-run histograms
	// and per-second samples with their clat percentiles).
	Jobs []RunJob
	// IOStat are the per-interval iostat samples of the target's devices
	// and of the CPUs, over the run.
	IOStat []iostat.Delta
	// Checks are the checks made on the run, passed or not.
	Checks []Check
	// Warnings are reasons to doubt the figures.
	Warnings []string
	// Notes are further lines shown under the title (the host).
	Notes []string
}

// RunJob is one job of a run.
type RunJob struct {
	*baselines.Baseline
	// Ramp is the job's ramp_time: run before the measured start, not in
	// the samples.
	Ramp time.Duration
	// Steady holds each clone's steady-state outcome (nil entries and an
	// empty slice when the job has no steady-state options).
	Steady []*workload.SteadyResult
}

// Check is one check made on a run and its outcome.
type Check struct {
	Name    string // "clat p99.9", "iops floor"
	Limit   string // "≤ 2ms", "≥ 10k"; "" when the check has no limit
	Outcome string // "pass", "fail" or "not judged"
	Message string // the failure's message, or why it was not judged
}

// NewRun makes the page of a workload result: one section per job name,
// its clones merged. fp says where it ran. A job that failed or was cut
// short is drawn all the same, as far as it got.
func NewRun(title string, res *workload.Result, fp baselines.Fingerprint) (*Run, error) {
	if res == nil || len(res.Jobs) == 0 {
		return nil, errors.New("page: run has no job results")
	}
	r := &Run{Title: title}
	var order []string
	byName := map[string][]*workload.JobResult{}
	for _, j := range res.Jobs {
		if _, ok := byName[j.Name]; !ok {
			order = append(order, j.Name)
		}
		// A copy without the failure, so that the baseline is made of
		// what was measured; the page says it was cut short.
		c := *j
		if c.Canceled || c.Err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s.%d: %s", j.Name, j.Clone, partialWhy(j)))
		}
		c.Canceled, c.Err = false, nil
		byName[j.Name] = append(byName[j.Name], &c)
	}
	for _, name := range order {
		jobs := byName[name]
		b, err := baselines.FromResult(&workload.Result{Jobs: jobs}, fp)
		if err != nil {
			return nil, fmt.Errorf("page: %w", err)
		}
		rj := RunJob{Baseline: b, Ramp: jobs[0].Job.Normalized().RampTime}
		for _, j := range jobs {
			if j.Steady != nil {
				rj.Steady = append(rj.Steady, j.Steady)
			}
		}
		r.Jobs = append(r.Jobs, rj)
	}
	return r, nil
}

func partialWhy(j *workload.JobResult) string {
	if j.Err != nil {
		return "stopped early: " + j.Err.Error() + "; the figures cover the run up to there"
	}
	return "cut short: the figures cover the run up to there"
}

// dirClass gives each direction its colour throughout: read blue, write
// vermillion, trim green.
var dirClass = map[string]string{"read": "c0", "write": "c1", "trim": "c2"}

// pctClass styles the per-second percentiles: p50 solid, p99 dashed,
// p99.9 dotted, each in its direction's colour.
var pctStyle = []string{"", " dash", " dot"}

// WriteRun writes r's page.
func WriteRun(w io.Writer, r *Run) error {
	_, err := io.WriteString(w, RenderRun(r))
	return err
}

// RenderRun returns r's page.
func RenderRun(r *Run) string {
	var d doc
	sub := ""
	if len(r.Jobs) > 0 {
		b := r.Jobs[0].Baseline
		sub = fmt.Sprintf("%s, measured %s from %s UTC", fingerprintLine(b.Fingerprint), b.Runtime.Round(time.Millisecond), b.Created.UTC().Format("2006-01-02 15:04:05"))
	}
	d.begin(r.Title, sub)
	for _, n := range r.Notes {
		d.p("sub", n)
	}
	for _, w := range r.Warnings {
		d.p("warn", "warning: "+w)
	}
	if len(r.Checks) > 0 {
		d.h2("checks", "Checks")
		d.checks(r.Checks)
	}
	for i, j := range r.Jobs {
		d.runJob(i, j)
	}
	if len(r.IOStat) > 0 {
		d.iostat(r.IOStat)
	}
	return d.end()
}

func (d *doc) checks(cs []Check) {
	var rows [][]cell
	for _, c := range cs {
		cls := strings.ReplaceAll(c.Outcome, " ", "")
		rows = append(rows, []cell{{text: c.Name}, {text: c.Limit}, {text: c.Outcome, class: "verdict " + cls}, {text: c.Message}})
	}
	d.table("checks", []string{"check", "limit", "outcome", "detail"}, rows)
}

// fingerprintLine is where a run ran, in one line.
func fingerprintLine(f baselines.Fingerprint) string {
	var parts []string
	dev := f.Device
	if f.Model != "" && f.Model != dev {
		dev = strings.TrimSpace(dev + " " + f.Model)
	}
	if dev != "" {
		parts = append(parts, dev)
	}
	if f.Firmware != "" {
		parts = append(parts, "firmware "+f.Firmware)
	}
	if f.Kernel != "" {
		parts = append(parts, "kernel "+f.Kernel)
	}
	if f.Engine != "" {
		parts = append(parts, f.Engine)
	}
	if f.Version != "" {
		parts = append(parts, f.Version)
	}
	return strings.Join(parts, ", ")
}

func fingerprintRows(f baselines.Fingerprint) [][2]string {
	var rows [][2]string
	for _, kv := range [][2]string{
		{"kind", f.Kind}, {"device", f.Device}, {"vendor", f.Vendor}, {"model", f.Model}, {"serial", f.Serial},
		{"firmware", f.Firmware}, {"backing file", f.Backing}, {"backing device", f.BackingDevice},
		{"kernel", f.Kernel}, {"engine", f.Engine}, {"measured by", f.Version}, {"host", f.Hostname},
	} {
		if kv[1] != "" {
			rows = append(rows, kv)
		}
	}
	if f.Size > 0 {
		rows = append(rows, [2]string{"size", baselines.FormatBytes(float64(f.Size))})
	}
	return rows
}

func (d *doc) runJob(i int, j RunJob) {
	b := j.Baseline
	id := "job" + strconv.Itoa(i)
	clones := ""
	if b.Clones > 1 {
		clones = fmt.Sprintf(" (%d clones merged)", b.Clones)
	}
	d.h2(id, "Job "+b.Name+clones)
	d.summary(b)
	d.steadyText(j)
	d.throughput(id, j)
	d.latencyOverTime(id, b)
	d.distributions(id, b)
	d.h3("Job")
	d.b.WriteString("<pre>" + esc(fiojob.Format(b.Job)) + "</pre>\n")
	d.h3("Fingerprint")
	d.kv(fingerprintRows(b.Fingerprint))
}

// metricTable is regress' metric table (a test adds rows to it).
var metricTable = regress.MetricTable

// summary is the job's headline figures per direction: the metrics of
// regress' table with a column (regress.Metric.Column), then the
// largest clat, the I/Os and the errors.
func (d *doc) summary(b *baselines.Baseline) {
	var cols []regress.Metric
	head := []string{"direction"}
	for _, m := range metricTable() {
		if m.Column != "" {
			cols = append(cols, m)
			head = append(head, m.Column)
		}
	}
	head = append(head, "max", "I/Os", "errors")
	var rows [][]cell
	for _, dir := range b.Dirs {
		row := []cell{{text: dir.Name}}
		for _, m := range cols {
			if v, ok := m.Value(dir); ok {
				row = append(row, cell{text: m.Short(v), num: true})
			} else {
				row = append(row, cell{})
			}
		}
		if c := dir.Clat; c != nil {
			row = append(row, cell{text: human.Latency(float64(c.Max)), num: true})
		} else {
			row = append(row, cell{})
		}
		row = append(row, cell{text: strconv.FormatUint(dir.IOs, 10), num: true}, cell{text: strconv.FormatUint(dir.Errors, 10), num: true})
		rows = append(rows, row)
	}
	d.table("summary", head, rows)
}

// steadyText says what the steady-state detector found, per clone.
func (d *doc) steadyText(j RunJob) {
	for i, s := range j.Steady {
		if s == nil {
			continue
		}
		who := ""
		if len(j.Steady) > 1 {
			who = fmt.Sprintf("clone %d: ", i)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%ssteady state (%s over %v", who, s.Criteria, s.Window)
		if s.Ramp > 0 {
			fmt.Fprintf(&b, ", ss_ramp %v", s.Ramp)
		}
		b.WriteString("): ")
		switch {
		case s.Attained:
			fmt.Fprintf(&b, "attained at %v", s.AttainedAt.Round(time.Millisecond))
			if len(s.Losses) > 0 {
				fmt.Fprintf(&b, ", lost %d time(s)", len(s.Losses))
			}
			if s.Steady {
				b.WriteString(", steady at the end")
			} else {
				b.WriteString(", not steady at the end")
			}
		case s.Capped:
			b.WriteString("not attained within the round cap")
		default:
			b.WriteString("not attained")
		}
		if s.Last != "" {
			b.WriteString(" (" + s.Last + ")")
		}
		cls := "pass"
		if !s.Attained {
			cls = "fail"
		}
		d.p(cls, b.String())
	}
}

// spans marks the run's ramp_time (before 0: not measured), each clone's
// ss_ramp, steady-state window, losses and latency window.
func spans(j RunJob, end float64) ([]span, []mark) {
	var ss []span
	var ms []mark
	if j.Ramp > 0 {
		ss = append(ss, span{from: -j.Ramp.Seconds(), to: 0, class: "ramp", label: "ramp_time " + j.Ramp.String() + ": not measured"})
	}
	for i, s := range j.Steady {
		if s == nil {
			continue
		}
		if s.Ramp > 0 {
			ss = append(ss, span{from: 0, to: s.Ramp.Seconds(), class: "ramp", label: "ss_ramp " + s.Ramp.String()})
		}
		if s.Attained {
			at := s.AttainedAt.Seconds()
			ss = append(ss, span{from: math.Max(at-s.Window.Seconds(), 0), to: at, class: "window",
				label: fmt.Sprintf("steady-state window ending at attainment (%v)", s.Window)})
			label := "steady"
			if len(j.Steady) > 1 {
				label = fmt.Sprintf("steady (clone %d)", i)
			}
			ms = append(ms, mark{x: at, class: "attained", label: label})
		}
		for _, l := range s.Losses {
			to := l.EndElapsed.Seconds()
			if l.End < 0 || to <= 0 {
				to = end
			}
			ss = append(ss, span{from: l.StartElapsed.Seconds(), to: to, class: "loss",
				label: fmt.Sprintf("steady state lost at %v", l.StartElapsed.Round(time.Millisecond))})
		}
		if lw := s.Latency; lw != nil {
			ss = append(ss, span{from: lw.Start.Seconds(), to: lw.End.Seconds(), class: "latwin", label: "steady latency window"})
		}
	}
	return ss, ms
}

// secondsAxis is the measured time axis, starting before 0 when a ramp
// ran.
func secondsAxis(b *baselines.Baseline, ramp time.Duration) axis {
	a := axis{label: "time since the measured start", kind: kindTime}
	a.min, a.max = -ramp.Seconds(), b.Runtime.Seconds()
	if a.max <= a.min {
		a.max = a.min + 1
	}
	return a
}

// minLastSecond is the shortest final second drawn: the last second of
// a run is what remains of it, and a rate over a few milliseconds is
// noise that would set the axis.
const minLastSecond = 500 * time.Millisecond

// perSecond returns the per-second series of one direction's value as
// steps: each sample holds over its interval, from T-Dur to T.
func perSecond(b *baselines.Baseline, di int, v func(s *baselines.Second, sd *baselines.SecondDir) float64) (xs, ys []float64) {
	xs = make([]float64, 0, len(b.Seconds)+1)
	ys = make([]float64, 0, len(b.Seconds)+1)
	var end time.Duration
	for i := range b.Seconds {
		s := &b.Seconds[i]
		if i > 0 && i == len(b.Seconds)-1 && s.Dur < minLastSecond {
			break
		}
		if start := s.T - s.Dur; i > 0 && start != end {
			// Not contiguous (folded seconds): close the step before.
			xs, ys = append(xs, end.Seconds()), append(ys, ys[len(ys)-1])
		}
		xs = append(xs, (s.T - s.Dur).Seconds())
		if sd := s.Dirs[di]; sd != nil {
			ys = append(ys, v(s, sd))
		} else {
			ys = append(ys, v(s, &baselines.SecondDir{}))
		}
		end = s.T
	}
	if len(xs) > 0 {
		xs, ys = append(xs, end.Seconds()), append(ys, ys[len(ys)-1])
	}
	return xs, ys
}

func dirIndex(name string) int {
	for i, n := range baselines.DirNames {
		if n == name {
			return i
		}
	}
	return -1
}

func rate(n uint64, dur time.Duration) float64 {
	if dur <= 0 {
		return math.NaN()
	}
	return float64(n) / dur.Seconds()
}

// throughput draws IOPS and bandwidth per second, per direction, with
// the steady-state marks.
func (d *doc) throughput(id string, j RunJob) {
	b := j.Baseline
	if len(b.Seconds) == 0 {
		d.p("note", "No per-second samples (an imported fio result).")
		return
	}
	ss, ms := spans(j, b.Runtime.Seconds())
	// A short run is drawn from its slices (a tenth of a second each), so
	// that a few seconds still show their shape.
	per, fine := "second", len(b.Seconds) < sliceRunSeconds && len(b.Slices) > 0
	if fine {
		per = b.SliceInterval.String()
	}
	iops := &chart{id: id + "-iops", title: "IOPS per " + per, x: secondsAxis(b, j.Ramp),
		y: axis{label: "throughput", kind: kindCount, unit: "IOPS"}, spans: ss, marks: ms}
	bw := &chart{id: id + "-bw", title: "Bandwidth per " + per, x: secondsAxis(b, j.Ramp),
		y: axis{label: "bandwidth", kind: kindBytes}, spans: ss, marks: ms}
	for _, dir := range b.Dirs {
		di := dirIndex(dir.Name)
		var xs, ys, bx, by []float64
		if fine {
			xs, ys = perSlice(b, di, func(sd *baselines.SliceDir, dur time.Duration) float64 { return rate(sd.IOs, dur) })
			bx, by = perSlice(b, di, func(sd *baselines.SliceDir, dur time.Duration) float64 { return rate(sd.Bytes, dur) })
		} else {
			xs, ys = perSecond(b, di, func(s *baselines.Second, sd *baselines.SecondDir) float64 { return rate(sd.IOs, s.Dur) })
			bx, by = perSecond(b, di, func(s *baselines.Second, sd *baselines.SecondDir) float64 { return rate(sd.Bytes, s.Dur) })
		}
		iops.lines = append(iops.lines, series{name: dir.Name, class: dirClass[dir.Name], xs: xs, ys: ys, step: true})
		bw.lines = append(bw.lines, series{name: dir.Name, class: dirClass[dir.Name], xs: bx, ys: by, step: true})
	}
	d.chart(iops)
	d.chart(bw)
}

// sliceRunSeconds: runs of fewer seconds draw their throughput per slice.
const sliceRunSeconds = 20

// perSlice is perSecond over the baseline's slices; the last slice,
// shorter than a tenth of its interval, is left out as noise.
func perSlice(b *baselines.Baseline, di int, v func(sd *baselines.SliceDir, dur time.Duration) float64) (xs, ys []float64) {
	var end time.Duration
	for i := range b.Slices {
		s := &b.Slices[i]
		if i > 0 && i == len(b.Slices)-1 && s.Dur < b.SliceInterval/10 {
			break
		}
		if start := s.T - s.Dur; i > 0 && start != end {
			xs, ys = append(xs, end.Seconds()), append(ys, ys[len(ys)-1])
		}
		xs = append(xs, (s.T - s.Dur).Seconds())
		sd := s.Dirs[di]
		if sd == nil {
			sd = &baselines.SliceDir{}
		}
		ys = append(ys, v(sd, s.Dur))
		end = s.T
	}
	if len(xs) > 0 {
		xs, ys = append(xs, end.Seconds()), append(ys, ys[len(ys)-1])
	}
	return xs, ys
}

// latencyOverTime draws each second's clat p50, p99 and p99.9, from the
// second's own histogram, on a log axis.
func (d *doc) latencyOverTime(id string, b *baselines.Baseline) {
	if len(b.Seconds) == 0 {
		return
	}
	c := &chart{id: id + "-clat", title: "Completion latency per second (p50, p99, p99.9)", x: secondsAxis(b, 0),
		y: axis{label: "clat", kind: kindNS, log: true}}
	c.x.min = 0
	for _, dir := range b.Dirs {
		di := dirIndex(dir.Name)
		for k, get := range []func(sd *baselines.SecondDir) uint64{
			func(sd *baselines.SecondDir) uint64 { return sd.ClatP50 },
			func(sd *baselines.SecondDir) uint64 { return sd.ClatP99 },
			func(sd *baselines.SecondDir) uint64 { return sd.ClatP999 },
		} {
			xs, ys := perSecond(b, di, func(_ *baselines.Second, sd *baselines.SecondDir) float64 {
				if v := get(sd); v > 0 {
					return float64(v)
				}
				return math.NaN() // no completions: a gap, not a zero
			})
			c.lines = append(c.lines, series{name: dir.Name + " " + []string{"p50", "p99", "p99.9"}[k],
				class: dirClass[dir.Name] + pctStyle[k], xs: xs, ys: ys, step: true})
		}
	}
	d.chart(c)
}

// distributions draws the whole run's clat distribution per direction.
func (d *doc) distributions(id string, b *baselines.Baseline) {
	var ds []dist
	for _, dir := range b.Dirs {
		if dir.Clat == nil || dir.Clat.Hist == nil {
			continue
		}
		ds = append(ds, dist{name: dir.Name, class: dirClass[dir.Name], bins: dir.Clat.Hist.Bins})
	}
	if len(ds) == 0 {
		d.p("note", "No latency histogram recorded.")
		return
	}
	d.chart(histChart(id+"-hist", "Completion latency distribution, whole run", ds))
	d.chart(exceedanceChart(id+"-exceed", "Completion latency exceedance (1 − CDF), whole run", ds))
}

// iostat draws the devices' and CPUs' samples.
func (d *doc) iostat(samples []iostat.Delta) {
	d.h2("iostat", "iostat")
	var t0 time.Time
	if len(samples) > 0 {
		t0 = samples[0].Prev
	}
	at := func(s iostat.Delta) float64 { return s.Curr.Sub(t0).Seconds() }
	// Devices in order of first appearance.
	var devs []string
	seen := map[string]bool{}
	for _, s := range samples {
		for _, dd := range s.Disks {
			if !seen[dd.Name] {
				seen[dd.Name] = true
				devs = append(devs, dd.Name)
			}
		}
	}
	xAxis := func() axis { return axis{label: "time since the first sample", kind: kindTime} }
	type fig struct {
		id, title string
		y         axis
		lines     []struct {
			name string
			get  func(e iostat.Ext) float64
		}
	}
	type line = struct {
		name string
		get  func(e iostat.Ext) float64
	}
	figs := []fig{
		{"iostat-rw", "Requests completed per second (r/s, w/s)", axis{label: "rate", kind: kindCount, unit: "requests/s"},
			[]line{{"r/s", func(e iostat.Ext) float64 { return e.RPerS }}, {"w/s", func(e iostat.Ext) float64 { return e.WPerS }}}},
		{"iostat-await", "Mean time per request, queue and service (r_await, w_await)", axis{label: "await", kind: kindMS},
			[]line{{"r_await", func(e iostat.Ext) float64 { return e.RAwait }}, {"w_await", func(e iostat.Ext) float64 { return e.WAwait }}}},
		{"iostat-aqu", "Mean requests in flight (aqu-sz)", axis{label: "aqu-sz (requests)", kind: kindPlain},
			[]line{{"aqu-sz", func(e iostat.Ext) float64 { return e.AquSz }}}},
		{"iostat-util", "Share of time with a request in flight (%util)", axis{label: "%util", kind: kindPercent},
			[]line{{"%util", func(e iostat.Ext) float64 { return e.Util }}}},
	}
	for _, f := range figs {
		c := &chart{id: f.id, title: f.title, x: xAxis(), y: f.y}
		for di, dev := range devs {
			for li, l := range f.lines {
				s := series{name: dev + " " + l.name, class: "c" + strconv.Itoa((di*len(f.lines)+li)%7)}
				if len(f.lines) > 1 && li == 1 {
					s.class = "c" + strconv.Itoa((di*len(f.lines)+li)%7) + " dash"
				}
				for _, smp := range samples {
					dd, ok := smp.Disk(dev)
					s.xs = append(s.xs, at(smp))
					if !ok {
						s.ys = append(s.ys, math.NaN())
						continue
					}
					s.ys = append(s.ys, l.get(dd.Ext()))
				}
				c.lines = append(c.lines, s)
			}
		}
		if len(devs) > 0 {
			d.chart(c)
		}
	}
	cpu := &chart{id: "iostat-cpu", title: "CPU (avg-cpu)", x: xAxis(), y: axis{label: "CPU", kind: kindPercent}}
	for i, l := range []struct {
		name string
		get  func(c *iostat.AvgCPU) float64
	}{
		{"%user", func(c *iostat.AvgCPU) float64 { return c.User + c.Nice }},
		{"%system", func(c *iostat.AvgCPU) float64 { return c.System }},
		{"%iowait", func(c *iostat.AvgCPU) float64 { return c.IOWait }},
		{"%steal", func(c *iostat.AvgCPU) float64 { return c.Steal }},
		{"%idle", func(c *iostat.AvgCPU) float64 { return c.Idle }},
	} {
		s := series{name: l.name, class: "c" + strconv.Itoa(i)}
		for _, smp := range samples {
			s.xs = append(s.xs, at(smp))
			if smp.CPU == nil {
				s.ys = append(s.ys, math.NaN())
				continue
			}
			s.ys = append(s.ys, l.get(smp.CPU))
		}
		cpu.lines = append(cpu.lines, s)
	}
	cpu.y.min, cpu.y.max = 0, 100
	d.chart(cpu)
	if len(devs) == 0 {
		d.p("note", "No block device under the target: the CPU only.")
	}
}
