package workload

import (
	"fmt"
	"strings"
	"time"

	"stortest.dev/latency"
	"stortest.dev/steady"
)

// Steady state in the runner.
//
// A job with steady-state options (SS, SSDur, SSRamp) gets a
// steady.Detector per clone, fed once per measured second from the
// runner's tick on the clone's own goroutine, as fio's helper thread
// samples each job once a second. Without group_reporting fio judges each
// job for itself (with it, a reporting group's summed IOPS), so each clone
// here decides for itself. fio stops a job as soon as its criterion holds;
// Options.SteadyContinue runs it to the end instead and reports when, and
// by how much, it left steady state, and Options.SteadyLatencyWindow
// measures the clat distribution of one more window once steady.
//
// Nothing here runs per I/O. The per-second work (the detector, the
// latency window's merge) allocates nothing except when steady state
// changes (an event); latency criteria add a few small allocations per
// percentile and second (latency.Percentile's exact fio threshold).

// SteadyResult is one job clone's steady-state outcome.
type SteadyResult struct {
	Criteria steady.Set
	Window   time.Duration // ss_dur
	Ramp     time.Duration // ss_ramp
	Continue bool          // Options.SteadyContinue was set

	// Samples counts the per-second samples judged, ramp included.
	Samples int
	// Attained is true when steady state was attained at least once;
	// AttainedAt is the measured time (since the end of ramp_time) of the
	// first attainment.
	Attained   bool
	AttainedAt time.Duration
	// Steady is true when the criteria held at the last sample.
	Steady bool
	// Stopped is true when steady state ended the job before its runtime;
	// StopReason says why.
	Stopped    bool
	StopReason string
	// Capped is true when a PTS criterion used up its round cap without
	// steady state.
	Capped bool
	// Events are the changes of steady state in order: attained, then
	// lost and regained (losses are seen with Options.SteadyContinue or
	// while a latency window is measured).
	Events []SteadyEvent
	// Losses are the periods out of steady state after attainment.
	Losses []steady.Loss
	// Latency is the latency window (Options.SteadyLatencyWindow) when
	// one was measured in steady state; LatencyAttempts counts the windows
	// started, failed ones included.
	Latency         *SteadyLatency
	LatencyAttempts int
	// Last explains the last verdict in one line.
	Last string
	// Report is what the JSON output prints: fio's "steadystate" object
	// and stortest's extension.
	Report steady.Report
}

// SteadyEvent is a change of steady state.
type SteadyEvent struct {
	Event steady.Event
	// Sample is the detector's sample index: the index in JobResult.Seconds
	// (unless a second under 1 ms was folded into the next, as fio would).
	Sample int
	T      time.Duration // measured time at the end of the sample's second
	Loss   steady.Loss   // for Lost and Regained
	Reason string
}

// SteadyLatency is the latency of a steady window: the window of SSDur
// seconds that follows attainment, kept when the criteria hold over
// exactly that window.
type SteadyLatency struct {
	// Start and End are the measured times the window spans; First and
	// Last index its seconds in JobResult.Seconds.
	Start, End  time.Duration
	First, Last int
	Attempt     int // 1 for the first window started
	// Clat holds the window's completion latencies per direction, All
	// every direction's merged.
	Clat [NumDirs]*latency.Histogram
	All  *latency.Histogram
}

// SteadyConfig returns the detector configuration of job j's SS, SSDur
// and SSRamp. ok is false when the job has no steady-state detection:
// SSDur is 0 (fio's switch) and SS does not consist of PTS criteria
// only, which need no window. Errors wrap steady.ErrSyntax for a bad SS.
func (j Job) SteadyConfig() (cfg steady.Config, ok bool, err error) {
	n := j.Normalized()
	if n.SS == "" {
		return steady.Config{}, false, nil
	}
	set, err := steady.ParseSet(n.SS)
	if err != nil {
		return steady.Config{}, false, fmt.Errorf("workload: job %s: steadystate: %w", j.Name, err)
	}
	if n.SSDur == 0 {
		for _, c := range set {
			if c.Method != steady.PTS {
				return steady.Config{}, false, nil
			}
		}
	}
	cfg = steady.Config{Criteria: set, Window: n.SSDur, Ramp: n.SSRamp}
	if _, err := steady.NewDetector(cfg); err != nil {
		return steady.Config{}, false, fmt.Errorf("workload: job %s: %w", j.Name, err)
	}
	return cfg, true, nil
}

// Latency window states.
const (
	lwIdle      = iota // waiting for steady state
	lwMeasuring        // merging the seconds after an attainment
	lwDone             // a window was kept
)

// steadyRun is one clone's detector and what it needs each second.
type steadyRun struct {
	det      *steady.Detector
	cont     bool          // Options.SteadyContinue
	measure  time.Duration // Options.SteadyMeasure
	latWin   bool          // Options.SteadyLatencyWindow
	span     int           // the criteria's window in samples
	specs    []steady.LatencySpec
	lat      []time.Duration // the second's percentiles, in specs order
	needLat  bool            // a criterion on total latency
	latPrev  [NumDirs]*latency.Histogram
	latDelta [NumDirs]*latency.Histogram
	merged   *latency.Histogram // all directions of one second

	res  SteadyResult
	last steady.Verdict

	lw      int
	lwFrom  int           // sample index of the attainment that opened the window
	lwFirst int           // Seconds index of the window's first second
	lwT0    time.Duration // measured time the window starts at
	lwClat  [NumDirs]*latency.Histogram
}

// newSteadyRun returns nil, nil for a job without steady-state options.
func newSteadyRun(job Job, layout latency.Layout, opts Options) (*steadyRun, error) {
	cfg, ok, err := job.SteadyConfig()
	if err != nil || !ok {
		return nil, err
	}
	cfg.Continue = opts.SteadyContinue || opts.SteadyLatencyWindow || opts.SteadyMeasure > 0
	det, err := steady.NewDetector(cfg)
	if err != nil {
		return nil, fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	s := &steadyRun{det: det, cont: opts.SteadyContinue, latWin: opts.SteadyLatencyWindow, measure: max(0, opts.SteadyMeasure)}
	s.res = SteadyResult{Criteria: cfg.Criteria, Window: cfg.Window, Ramp: cfg.Ramp, Continue: opts.SteadyContinue}
	s.span = int(cfg.Window / time.Second)
	if s.span == 0 { // PTS only: its measurement window
		p := det.Config().Criteria[0].PTS
		s.span = p.Window * int(p.Round/time.Second)
	}
	s.specs = det.Latencies()
	s.lat = make([]time.Duration, len(s.specs))
	if len(s.specs) > 0 {
		s.merged = latency.New(layout)
	}
	for _, l := range s.specs {
		s.needLat = s.needLat || l.Metric == steady.Lat
	}
	for d := range NumDirs {
		if s.needLat {
			s.latPrev[d], s.latDelta[d] = latency.New(layout), latency.New(layout)
		}
		if s.latWin {
			s.lwClat[d] = latency.New(layout)
		}
	}
	s.last = steady.Verdict{Sample: -1}
	return s, nil
}

// second judges the second that just closed (the last of r.Seconds), with
// clat the second's completion latencies per direction. It returns true
// when the job should stop.
func (s *steadyRun) second(r *JobResult, clat *[NumDirs]*latency.Histogram) (stop bool) {
	secIdx := len(r.Seconds) - 1
	sec := &r.Seconds[secIdx]
	c := steady.Counters{Elapsed: sec.T}
	for d := range NumDirs {
		c.IOs += r.Dirs[d].IOs
		c.Bytes += r.Dirs[d].Bytes
	}
	if len(s.specs) > 0 {
		s.percentiles(r, clat)
		c.Lat = s.lat
	}
	v := s.det.Observe(c)
	if !v.Counted {
		return false // ramp, or folded into the next second
	}
	s.last = v
	if v.Event != steady.NoEvent {
		s.res.Events = append(s.res.Events, SteadyEvent{Event: v.Event, Sample: v.Sample, T: v.Elapsed, Loss: v.Loss, Reason: v.Reason()})
	}
	if s.latWin && s.lw != lwDone {
		s.latencyWindow(v, secIdx, clat)
	}
	if s.cont {
		return false // run to the end whatever happens
	}
	if s.measure > 0 {
		// Measure a window after the first attainment, then stop.
		idx, at := s.det.AttainedAt()
		if idx < 0 || v.Elapsed < at+s.measure {
			return false
		}
		s.res.StopReason = fmt.Sprintf("steady state attained at %v and measured for %v after", at, s.measure)
		s.res.Stopped = true
		return true
	}
	switch {
	case v.Capped && !v.Attained:
		s.res.StopReason = "no steady state within the PTS round cap"
	case s.latWin && s.lw == lwDone:
		s.res.StopReason = "steady state attained and its latency window measured"
	case v.Attained && !s.latWin:
		s.res.StopReason = "steady state attained"
	default:
		return false
	}
	s.res.Stopped = true
	return true
}

// percentiles fills s.lat with the second's latency percentiles over all
// directions; NoLatency when nothing completed.
func (s *steadyRun) percentiles(r *JobResult, clat *[NumDirs]*latency.Histogram) {
	if s.needLat {
		for d := range NumDirs {
			if h := r.Dirs[d].Lat; h != nil {
				_ = s.latDelta[d].Sub(h, s.latPrev[d])
				_ = s.latPrev[d].CopyFrom(h)
			}
		}
	}
	for _, m := range [...]steady.Metric{steady.Clat, steady.Lat} {
		src := clat
		if m == steady.Lat {
			if !s.needLat {
				continue
			}
			src = &s.latDelta
		}
		s.merged.Reset()
		for d := range NumDirs {
			_ = s.merged.Merge(src[d])
		}
		for i, l := range s.specs {
			if l.Metric != m {
				continue
			}
			s.lat[i] = steady.NoLatency
			if s.merged.Count() > 0 {
				s.lat[i] = time.Duration(s.merged.Percentile(l.Percentile))
			}
		}
	}
}

// latencyWindow advances the latency window with verdict v of the second
// r.Seconds[secIdx]. A window opens at an attainment and spans the next
// span seconds; it is kept when the criteria hold over exactly those
// seconds (the detector's window at its last second), else dropped, and
// the next attainment opens another.
func (s *steadyRun) latencyWindow(v steady.Verdict, secIdx int, clat *[NumDirs]*latency.Histogram) {
	if s.lw == lwMeasuring {
		for d := range NumDirs {
			_ = s.lwClat[d].Merge(clat[d])
		}
		if v.Sample < s.lwFrom+s.span {
			return
		}
		if v.Attained {
			s.lw = lwDone
			l := &SteadyLatency{Start: s.lwT0, End: v.Elapsed, First: s.lwFirst, Last: secIdx,
				Attempt: s.res.LatencyAttempts, All: s.lwClat[0].Clone()}
			for d := range NumDirs {
				l.Clat[d] = s.lwClat[d]
				if d > 0 {
					_ = l.All.Merge(s.lwClat[d])
				}
			}
			s.res.Latency = l
			return
		}
		s.lw = lwIdle
	}
	if v.Attained {
		s.lw, s.lwFrom, s.lwFirst, s.lwT0 = lwMeasuring, v.Sample, secIdx+1, v.Elapsed
		s.res.LatencyAttempts++
		for d := range NumDirs {
			s.lwClat[d].Reset()
		}
	}
}

// result returns the outcome once the job has ended.
func (s *steadyRun) result() *SteadyResult {
	r := s.res
	idx, at := s.det.AttainedAt()
	r.Attained, r.AttainedAt = idx >= 0, at
	r.Steady = s.last.Sample >= 0 && s.last.Attained
	r.Capped = s.last.Capped
	r.Report = s.det.Report()
	r.Samples = r.Report.Stortest.Samples
	r.Losses = append([]steady.Loss(nil), s.det.Losses()...)
	if s.last.Sample >= 0 {
		r.Last = s.last.Reason()
	} else {
		r.Last = "no sample judged"
	}
	return &r
}

// fioSteadyOptions adds the steady-state options to a "job options"
// object under the names fio prints them with.
func fioSteadyOptions(o ordered, j *Job) ordered {
	if j.SS == "" && j.SSDur == 0 {
		return o
	}
	if j.SS != "" {
		o = append(o, field{"steadystate", j.SS})
	}
	if j.SSDur > 0 {
		o = append(o, field{"steadystate_duration", FormatTime(j.SSDur)})
	}
	if j.SSRamp > 0 {
		o = append(o, field{"steadystate_ramp_time", FormatTime(j.SSRamp)})
	}
	return o
}

// fioSteadyFields are a job's steady-state members of the JSON output:
// fio's "steadystate" object (when a criterion is one fio knows) and
// "stortest_steadystate", stortest's extension.
func fioSteadyFields(j *JobResult, format OutputFormat) []field {
	ss := j.Steady
	if ss == nil {
		return nil
	}
	var out []field
	if ss.Report.Fio != nil {
		out = append(out, field{"steadystate", *ss.Report.Fio})
	}
	ext := steadyExtension{
		Extension: ss.Report.Stortest, Continue: ss.Continue, Stopped: ss.Stopped, StopReason: ss.StopReason,
		Events: make([]steadyEventJSON, 0, len(ss.Events)), LatencyAttempts: ss.LatencyAttempts, Last: ss.Last,
	}
	for _, e := range ss.Events {
		ext.Events = append(ext.Events, steadyEventJSON{Event: e.Event.String(), Sample: e.Sample, Ms: e.T.Milliseconds(), Reason: e.Reason})
	}
	if l := ss.Latency; l != nil {
		pcts := j.Job.percentileList()
		lw := ordered{
			{"start_ms", l.Start.Milliseconds()},
			{"end_ms", l.End.Milliseconds()},
			{"first_second", l.First},
			{"last_second", l.Last},
			{"attempt", l.Attempt},
			{"clat_ns", fioStat(l.All, true, pcts, format)},
		}
		for d := range NumDirs {
			if l.Clat[d].Count() > 0 {
				lw = append(lw, field{d.String(), ordered{{"clat_ns", fioStat(l.Clat[d], true, pcts, format)}}})
			}
		}
		ext.LatencyWindow = lw
	}
	return append(out, field{"stortest_steadystate", ext})
}

// steadyExtension is "stortest_steadystate": the detector's extension and
// the runner's additions.
type steadyExtension struct {
	steady.Extension
	Continue        bool              `json:"continue"`
	Stopped         bool              `json:"stopped"`
	StopReason      string            `json:"stop_reason,omitempty"`
	Events          []steadyEventJSON `json:"events"`
	LatencyAttempts int               `json:"latency_window_attempts,omitempty"`
	LatencyWindow   ordered           `json:"latency_window,omitempty"`
	Last            string            `json:"last"`
}

type steadyEventJSON struct {
	Event  string `json:"event"`
	Sample int    `json:"sample"`
	Ms     int64  `json:"ms"`
	Reason string `json:"reason"`
}

// writeSteadySummary writes the summary's steady-state lines.
func writeSteadySummary(b *strings.Builder, j *JobResult) {
	ss := j.Steady
	if ss == nil {
		return
	}
	fmt.Fprintf(b, "  steady state  : %s over %s", ss.Criteria, FormatTime(ss.Window))
	if ss.Ramp > 0 {
		fmt.Fprintf(b, " after %s", FormatTime(ss.Ramp))
	}
	switch {
	case ss.Attained:
		fmt.Fprintf(b, ": attained at %.1fs", ss.AttainedAt.Seconds())
	default:
		fmt.Fprintf(b, ": not attained in %.1fs", j.Runtime.Seconds())
	}
	switch {
	case ss.Stopped:
		fmt.Fprintf(b, ", job stopped (%s)", ss.StopReason)
	case ss.Attained && ss.Steady:
		b.WriteString(", steady at the end")
	case ss.Attained:
		b.WriteString(", not steady at the end")
	}
	b.WriteString("\n")
	for _, l := range ss.Losses {
		c := ss.Criteria[l.Criterion]
		unit := ""
		if c.Percent || c.Method == steady.PTS {
			unit = "%"
		}
		fmt.Fprintf(b, "    lost at %.1fs: %s %.4g%s (limit %.4g%s, worst %.4g%s)", l.StartElapsed.Seconds(),
			c.Name(), l.Value, unit, l.Limit, unit, l.Worst, unit)
		if l.End >= 0 {
			fmt.Fprintf(b, ", regained at %.1fs\n", l.EndElapsed.Seconds())
		} else {
			b.WriteString(", not regained\n")
		}
	}
	if !ss.Attained || (!ss.Steady && !ss.Stopped) {
		fmt.Fprintf(b, "    last: %s\n", ss.Last)
	}
	if l := ss.Latency; l != nil && l.All.Count() > 0 {
		fmt.Fprintf(b, "    latency window %.1fs-%.1fs (attempt %d): clat N=%d", l.Start.Seconds(), l.End.Seconds(), l.Attempt, l.All.Count())
		for _, p := range []float64{50, 99, 99.9} {
			fmt.Fprintf(b, ", p%g=%s", p, time.Duration(l.All.Percentile(p)))
		}
		b.WriteString("\n")
	} else if ss.LatencyAttempts > 0 {
		fmt.Fprintf(b, "    latency window: not measured in steady state (%d attempts)\n", ss.LatencyAttempts)
	}
}
