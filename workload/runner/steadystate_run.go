package runner

import (
	"fmt"
	"time"

	"stortest.dev/latency"
	"stortest.dev/steady"
	"stortest.dev/workload"
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
	latPrev  [workload.NumDirs]*latency.Histogram
	latDelta [workload.NumDirs]*latency.Histogram
	merged   *latency.Histogram // all directions of one second

	res  workload.SteadyResult
	last steady.Verdict

	lw      int
	lwFrom  int           // sample index of the attainment that opened the window
	lwFirst int           // Seconds index of the window's first second
	lwT0    time.Duration // measured time the window starts at
	lwClat  [workload.NumDirs]*latency.Histogram
}

// newSteadyRun returns nil, nil for a job without steady-state options.
func newSteadyRun(job workload.Job, layout latency.Layout, opts workload.Options) (*steadyRun, error) {
	cfg, ok, err := SteadyConfig(job)
	if err != nil || !ok {
		return nil, err
	}
	cfg.Continue = opts.SteadyContinue || opts.SteadyLatencyWindow || opts.SteadyMeasure > 0
	det, err := steady.NewDetector(cfg)
	if err != nil {
		return nil, fmt.Errorf("workload: job %s: %w", job.Name, err)
	}
	s := &steadyRun{det: det, cont: opts.SteadyContinue, latWin: opts.SteadyLatencyWindow, measure: max(0, opts.SteadyMeasure)}
	s.res = workload.SteadyResult{Criteria: cfg.Criteria, Window: cfg.Window, Ramp: cfg.Ramp, Continue: opts.SteadyContinue}
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
	for d := range workload.NumDirs {
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
func (s *steadyRun) second(r *workload.JobResult, clat *[workload.NumDirs]*latency.Histogram) (stop bool) {
	secIdx := len(r.Seconds) - 1
	sec := &r.Seconds[secIdx]
	c := steady.Counters{Elapsed: sec.T}
	for d := range workload.NumDirs {
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
		s.res.Events = append(s.res.Events, workload.SteadyEvent{Event: v.Event, Sample: v.Sample, T: v.Elapsed, Loss: v.Loss, Reason: v.Reason()})
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
func (s *steadyRun) percentiles(r *workload.JobResult, clat *[workload.NumDirs]*latency.Histogram) {
	if s.needLat {
		for d := range workload.NumDirs {
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
		for d := range workload.NumDirs {
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
func (s *steadyRun) latencyWindow(v steady.Verdict, secIdx int, clat *[workload.NumDirs]*latency.Histogram) {
	if s.lw == lwMeasuring {
		for d := range workload.NumDirs {
			_ = s.lwClat[d].Merge(clat[d])
		}
		if v.Sample < s.lwFrom+s.span {
			return
		}
		if v.Attained {
			s.lw = lwDone
			l := &workload.SteadyLatency{Start: s.lwT0, End: v.Elapsed, First: s.lwFirst, Last: secIdx,
				Attempt: s.res.LatencyAttempts, All: s.lwClat[0].Clone()}
			for d := range workload.NumDirs {
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
		for d := range workload.NumDirs {
			s.lwClat[d].Reset()
		}
	}
}

// result returns the outcome once the job has ended.
func (s *steadyRun) result() *workload.SteadyResult {
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

// SteadyConfig returns the detector configuration of job j's SS, SSDur
// and SSRamp. ok is false when the job has no steady-state detection:
// SSDur is 0 (fio's switch) and SS does not consist of PTS criteria
// only, which need no window. Errors wrap steady.ErrSyntax for a bad SS.
func SteadyConfig(j workload.Job) (cfg steady.Config, ok bool, err error) {
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
