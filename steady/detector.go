package steady

import (
	"fmt"
	"math"
	"strings"
	"time"

	"stortest.dev/internal/enum"
)

// Config configures a Detector.
type Config struct {
	// Criteria must all hold for steady state.
	Criteria Set
	// Window is fio's ss_dur: the deviation and slope criteria judge the
	// last Window/1s per-second samples. Whole seconds; required unless
	// every criterion is PTS (whose window is in rounds).
	Window time.Duration
	// Ramp is fio's ss_ramp: samples count once the job has run for
	// Ramp + 1 s (from the start when Ramp is 0).
	Ramp time.Duration
	// Continue keeps the detector judging after steady state is attained
	// so that a loss of steady state is seen. Without it, Stop is set as
	// soon as steady state is attained, as fio stops the job.
	Continue bool
}

// LatencySpec names one per-second latency percentile the criteria need.
type LatencySpec struct {
	Metric     Metric // Clat or Lat
	Percentile float64
}

// String is "clat_p99" style.
func (l LatencySpec) String() string {
	return Criterion{Metric: l.Metric, Percentile: l.Percentile}.metricName()
}

// Sample is one second of a job, as per-second values.
type Sample struct {
	IOPS uint64 // I/Os completed in the second, all directions
	BW   uint64 // bytes per second, all directions
	// Lat holds the latency percentiles of the I/Os completed in the
	// second, in the order of Detector.Latencies. A negative value (or a
	// short slice) means none completed: a window holding such a second
	// does not satisfy a latency criterion.
	Lat []time.Duration
}

// Counters are a job's cumulative counters at one instant, for Observe,
// which derives the per-second values from their deltas as fio does.
type Counters struct {
	Elapsed time.Duration // since the job started (fio's epoch)
	IOs     uint64        // completed I/Os so far, all directions
	Bytes   uint64        // bytes transferred so far, all directions
	// Lat are the latency percentiles of the I/Os completed since the
	// previous call, as in Sample.Lat.
	Lat []time.Duration
}

// NoLatency marks a second without completions in Sample.Lat.
const NoLatency time.Duration = -1

// Event is a change of steady state reported by a Verdict.
type Event uint8

const (
	NoEvent  Event = iota
	Attained       // first time all criteria hold
	Lost           // a criterion stopped holding after steady state
	Regained       // all criteria hold again after a loss
)

// String names the event.
func (e Event) String() string { return enum.Name(eventNames[:], e, "Event") }

var eventNames = [...]string{NoEvent: "none", Attained: "attained", Lost: "lost", Regained: "regained"}

// Result is one criterion's judgement of the current window.
type Result struct {
	Criterion Criterion
	// Evaluated is false while the window (or, for PTS, the measurement
	// window of rounds) is not yet full.
	Evaluated bool
	Attained  bool
	// Value is the criterion value compared with the limit: the deviation
	// or slope, in percent of the mean when the criterion is a percentage.
	// For PTS it is the range in percent of the mean.
	Value float64
	// Mean, MaxDeviation and Slope (per second) describe the window of a
	// deviation or slope criterion; both are computed whatever the method.
	Mean, MaxDeviation, Slope float64
	// Missing counts window seconds without a latency value.
	Missing int
	// PTS is the PTS judgement of the last complete round.
	PTS PTSResult
}

// String describes the result in one line.
func (r Result) String() string {
	c := r.Criterion
	if !r.Evaluated {
		return c.String() + ": window not full"
	}
	verdict := "holds"
	if !r.Attained {
		verdict = "does not hold"
	}
	if c.Method == PTS {
		p := r.PTS
		return fmt.Sprintf("%s rounds %d-%d: range %.6g (limit %.6g), excursion %.6g (limit %.6g), mean %.6g: %s",
			c, p.FirstRound, p.LastRound, p.Range, p.RangeLimit, p.Excursion, p.ExcursionLimit, p.Mean, verdict)
	}
	if r.Missing > 0 {
		return fmt.Sprintf("%s: %d seconds of the window have no latency: does not hold", c, r.Missing)
	}
	unit := ""
	if c.Percent {
		unit = "%"
	}
	cmp := "<"
	if !r.Attained {
		cmp = ">="
	}
	return fmt.Sprintf("%s %.6g%s %s %.6g%s (mean %.6g, max deviation %.6g, slope %.6g/s): %s",
		c.Name(), r.Value, unit, cmp, c.Limit, unit, r.Mean, r.MaxDeviation, r.Slope, verdict)
}

// Loss is a period out of steady state after it was attained.
type Loss struct {
	// Start is the sample index at which steady state was lost; End the
	// one at which it was regained, -1 while it is still lost.
	Start, End               int
	StartElapsed, EndElapsed time.Duration
	// Criterion indexes Config.Criteria: the first criterion that failed.
	Criterion int
	// Value is that criterion's value when it failed; Worst the largest
	// (in absolute value) while the loss lasted; Limit its limit. For PTS
	// the values are the range in percent of the mean.
	Value, Worst, Limit float64
}

// Verdict is the detector's judgement after one sample.
type Verdict struct {
	// Sample is the index of the sample, from 0, ramp samples included.
	Sample  int
	Elapsed time.Duration
	// Counted is false for samples inside the ramp.
	Counted bool
	// Evaluated is true when every criterion judged a full window.
	Evaluated bool
	// Attained is true while all criteria hold.
	Attained bool
	// Stop tells the runner to end the job: steady state was attained
	// (unless Config.Continue), or PTS gave up after MaxRounds.
	Stop bool
	// Capped is true once a PTS criterion used up its MaxRounds.
	Capped bool
	Event  Event
	// Loss describes the loss when Event is Lost or Regained.
	Loss Loss
	// WindowFirst and WindowLast are the sample indices of the window
	// judged (fio's window; with only PTS criteria the PTS measurement
	// window). Merging the per-second histograms of these samples gives
	// the latency distribution of the steady window. -1 before any sample
	// counted.
	WindowFirst, WindowLast int
	// Results holds one entry per criterion. It belongs to the Detector
	// and is overwritten by the next sample: copy it to keep it.
	Results []Result
	// windowHave of windowWant samples are in the window (for Reason).
	windowHave, windowWant int
}

// Reason explains the verdict in one line.
func (v Verdict) Reason() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sample %d at %v: ", v.Sample, v.Elapsed)
	switch {
	case !v.Counted:
		b.WriteString("ramp, not counted")
		return b.String()
	case v.Capped && !v.Attained:
		b.WriteString("no steady state within the PTS round cap")
	case v.Event == Lost:
		fmt.Fprintf(&b, "steady state lost: %s", v.Results[v.Loss.Criterion])
		return b.String()
	case v.Event == Regained:
		fmt.Fprintf(&b, "steady state regained after %d samples out (worst %.6g, limit %.6g)",
			v.Sample-v.Loss.Start, v.Loss.Worst, v.Loss.Limit)
	case v.Attained:
		b.WriteString("steady state")
	case !v.Evaluated && v.windowWant > 0 && v.windowHave < v.windowWant:
		fmt.Fprintf(&b, "window filling, %d of %d samples", v.windowHave, v.windowWant)
	default:
		b.WriteString("not steady")
	}
	for i, r := range v.Results {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// Detector judges steady state from per-second samples. It keeps
// fixed-size windows: feeding a sample allocates nothing. It is a pure
// state machine (no clock, no goroutine) and is not safe for concurrent
// use.
type Detector struct {
	cfg  Config
	n    int // window in samples; 0 when only PTS criteria
	lats []LatencySpec

	iops, bw ring   // fio's data arrays; present when n > 0
	lat      []ring // one per lats entry
	crit     []critState
	results  []Result

	samples, counted  int
	rampOver          bool
	prevElapsed       time.Duration
	prevIOs, prevByte uint64

	attained   bool
	attainedAt int // sample index of the first attainment, -1 before
	attainedEl time.Duration
	capped     bool
	losses     []Loss

	// The fio object at the first attainment (fio stops there).
	fioIdx          int // index of the first iops/bw deviation or slope criterion, -1 if none
	snapIOPS        []uint64
	snapBW          []uint64
	snapResult      Result
	snapFirst, snap int // window sample indices at the snapshot
}

// critState is per-criterion state.
type critState struct {
	series *ring // deviation and slope criteria
	// PTS: per-second samples of the current round and the round values.
	latIdx     int // index into lats, -1 for iops/bw
	roundLen   int // seconds per round
	roundSum   float64
	roundN     int // seconds with a value in the current round
	roundSecs  int // seconds elapsed in the current round
	rounds     []float64
	roundsDone int
}

// NewDetector checks cfg and returns a Detector.
func NewDetector(cfg Config) (*Detector, error) {
	if len(cfg.Criteria) == 0 {
		return nil, fmt.Errorf("steady: no criteria")
	}
	if cfg.Window < 0 || cfg.Window%time.Second != 0 {
		return nil, fmt.Errorf("steady: window %v: want whole seconds", cfg.Window)
	}
	if cfg.Ramp < 0 {
		return nil, fmt.Errorf("steady: ramp %v is negative", cfg.Ramp)
	}
	d := &Detector{cfg: cfg, n: int(cfg.Window / time.Second), fioIdx: -1, attainedAt: -1}
	d.cfg.Criteria = append(Set(nil), cfg.Criteria...)
	for i, c := range d.cfg.Criteria {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if c.Method == PTS {
			d.cfg.Criteria[i].PTS = c.PTS.withDefaults()
			continue
		}
		if d.n == 0 {
			return nil, fmt.Errorf("steady: %s needs a window (fio's ss_dur)", c)
		}
		if c.Method == Slope && d.n < 2 {
			return nil, fmt.Errorf("steady: %s: a window of %d s has no slope", c, d.n)
		}
	}
	for _, c := range d.cfg.Criteria {
		if c.Metric.IsLatency() {
			d.latIndex(LatencySpec{c.Metric, c.Percentile})
		}
	}
	if d.n > 0 {
		d.iops, d.bw = newRing(d.n, false), newRing(d.n, false)
		d.snapIOPS, d.snapBW = make([]uint64, d.n), make([]uint64, d.n)
		d.lat = make([]ring, len(d.lats))
		for i := range d.lat {
			d.lat[i] = newRing(d.n, true)
		}
	}
	d.crit = make([]critState, len(d.cfg.Criteria))
	d.results = make([]Result, len(d.cfg.Criteria))
	for i, c := range d.cfg.Criteria {
		cs := &d.crit[i]
		cs.latIdx = -1
		if c.Metric.IsLatency() {
			cs.latIdx = d.latIndex(LatencySpec{c.Metric, c.Percentile})
		}
		if c.Method == PTS {
			cs.roundLen = int(c.PTS.Round / time.Second)
			cs.rounds = make([]float64, c.PTS.Window)
		} else {
			switch c.Metric {
			case IOPS:
				cs.series = &d.iops
			case BW:
				cs.series = &d.bw
			default:
				cs.series = &d.lat[cs.latIdx]
			}
			if d.fioIdx < 0 && !c.Metric.IsLatency() {
				d.fioIdx = i
			}
		}
		d.results[i].Criterion = d.cfg.Criteria[i]
	}
	d.losses = make([]Loss, 0, 8)
	return d, nil
}

// latIndex returns the index of l in d.lats, adding it when new.
func (d *Detector) latIndex(l LatencySpec) int {
	for i, x := range d.lats {
		if x == l {
			return i
		}
	}
	d.lats = append(d.lats, l)
	return len(d.lats) - 1
}

// Config returns the configuration (with PTS defaults filled in).
func (d *Detector) Config() Config { return d.cfg }

// Latencies lists the latency percentiles Sample.Lat must carry, in order.
func (d *Detector) Latencies() []LatencySpec { return d.lats }

// Losses returns the periods out of steady state after attainment.
func (d *Detector) Losses() []Loss { return d.losses }

// AttainedAt returns the sample index and elapsed time of the first
// attainment, or -1 when steady state was never attained.
func (d *Detector) AttainedAt() (int, time.Duration) { return d.attainedAt, d.attainedEl }

// Reset forgets all samples.
func (d *Detector) Reset() {
	d.iops.reset()
	d.bw.reset()
	for i := range d.lat {
		d.lat[i].reset()
	}
	for i := range d.crit {
		cs := &d.crit[i]
		cs.roundSum, cs.roundN, cs.roundSecs, cs.roundsDone = 0, 0, 0, 0
		clear(cs.rounds)
		d.results[i] = Result{Criterion: d.cfg.Criteria[i]}
	}
	d.samples, d.counted, d.rampOver = 0, 0, false
	d.prevElapsed, d.prevIOs, d.prevByte = 0, 0, 0
	d.attained, d.attainedAt, d.attainedEl, d.capped = false, -1, 0, false
	d.losses = d.losses[:0]
	d.snapResult = Result{}
}

// Observe feeds cumulative counters, as fio's steady-state check reads
// them once a second: iops = 1000*dIOs/ms and bw = 1000*dBytes/ms in
// integers, ms being the whole milliseconds since the previous call (or
// since the start). A call less than 1 ms after the previous one is
// folded into the next.
func (d *Detector) Observe(c Counters) Verdict {
	ms := uint64(0)
	if c.Elapsed > d.prevElapsed {
		ms = uint64((c.Elapsed - d.prevElapsed) / time.Millisecond)
	}
	if ms == 0 {
		v := d.verdict(d.samples, c.Elapsed)
		v.Counted = false
		return v
	}
	iops := 1000 * (c.IOs - d.prevIOs) / ms
	bw := 1000 * (c.Bytes - d.prevByte) / ms
	d.prevElapsed, d.prevIOs, d.prevByte = c.Elapsed, c.IOs, c.Bytes
	return d.add(c.Elapsed, iops, bw, c.Lat)
}

// Add feeds one second's values. Sample k (from 0) is taken to end k+1
// seconds into the job, which places the ramp as fio does.
func (d *Detector) Add(s Sample) Verdict {
	return d.add(time.Duration(d.samples+1)*time.Second, s.IOPS, s.BW, s.Lat)
}

func (d *Detector) add(elapsed time.Duration, iops, bw uint64, lat []time.Duration) Verdict {
	idx := d.samples
	d.samples++
	if !d.rampOver {
		// fio compares whole microseconds since the start with ramp + 1 s.
		d.rampOver = d.cfg.Ramp == 0 || elapsed.Truncate(time.Microsecond) >= d.cfg.Ramp+time.Second
	}
	if !d.rampOver {
		v := d.verdict(idx, elapsed)
		v.Counted = false
		return v
	}
	d.counted++
	if d.n > 0 {
		d.iops.push(iops, false)
		d.bw.push(bw, false)
		for i := range d.lat {
			l := NoLatency
			if i < len(lat) {
				l = lat[i]
			}
			d.lat[i].push(uint64(max(l, 0)), l < 0)
		}
	}
	all := true
	failed := -1 // the first criterion that does not hold
	for i := range d.crit {
		r := &d.results[i]
		d.judge(i, r, iops, bw, lat)
		if !r.Attained {
			all = false
			if failed < 0 {
				failed = i
			}
		}
	}
	v := d.verdict(idx, elapsed)
	switch {
	case all && d.attainedAt < 0:
		d.attained, d.attainedAt, d.attainedEl = true, idx, elapsed
		v.Event = Attained
		d.snapshot(idx)
	case all && !d.attained:
		d.attained = true
		l := &d.losses[len(d.losses)-1]
		l.End, l.EndElapsed = idx, elapsed
		v.Event, v.Loss = Regained, *l
	case !all && d.attained:
		d.attained = false
		val := d.results[failed].Value
		d.losses = append(d.losses, Loss{
			Start: idx, End: -1, StartElapsed: elapsed, Criterion: failed,
			Value: val, Worst: val, Limit: d.limit(failed),
		})
		v.Event, v.Loss = Lost, d.losses[len(d.losses)-1]
	case !all && d.attainedAt >= 0:
		l := &d.losses[len(d.losses)-1]
		if val := d.results[l.Criterion].Value; math.Abs(val) > math.Abs(l.Worst) || math.IsNaN(val) {
			l.Worst = val
		}
	}
	v.Attained = d.attained
	v.Stop = (d.attained && !d.cfg.Continue) || (d.capped && !d.attained)
	return v
}

// limit is criterion i's limit in the unit of its Value.
func (d *Detector) limit(i int) float64 {
	c := d.cfg.Criteria[i]
	if c.Method == PTS {
		return c.PTS.Range
	}
	return c.Limit
}

// judge updates criterion i's result with the newest sample.
func (d *Detector) judge(i int, r *Result, iops, bw uint64, lat []time.Duration) {
	c := d.cfg.Criteria[i]
	cs := &d.crit[i]
	if c.Method != PTS {
		s := cs.series
		if !s.full() {
			r.Evaluated, r.Attained = false, false
			return
		}
		st := s.stats()
		r.Evaluated = true
		r.Value = c.Value(st)
		r.Mean, r.MaxDeviation, r.Slope = st.Mean, st.MaxDeviation, st.Slope
		r.Missing = s.nMiss
		r.Attained = s.nMiss == 0 && c.Holds(r.Value)
		return
	}
	// PTS: accumulate the second into the current round.
	var v float64
	present := true
	switch {
	case c.Metric == IOPS:
		v = float64(iops)
	case c.Metric == BW:
		v = float64(bw)
	case cs.latIdx < len(lat) && lat[cs.latIdx] >= 0:
		v = float64(lat[cs.latIdx])
	default:
		present = false
	}
	if present {
		cs.roundSum += v
		cs.roundN++
	}
	cs.roundSecs++
	if cs.roundSecs < cs.roundLen {
		return
	}
	val := math.NaN() // a round without any value never satisfies PTS
	if cs.roundN > 0 {
		val = cs.roundSum / float64(cs.roundN)
	}
	w := len(cs.rounds)
	if cs.roundsDone < w {
		cs.rounds[cs.roundsDone] = val
	} else {
		copy(cs.rounds, cs.rounds[1:])
		cs.rounds[w-1] = val
	}
	cs.roundsDone++
	cs.roundSum, cs.roundN, cs.roundSecs = 0, 0, 0
	if cs.roundsDone < w {
		return
	}
	p := EvaluatePTS(cs.rounds, cs.roundsDone, c.PTS)
	r.Evaluated = true
	r.PTS = p
	r.Attained = p.Attained
	r.Value = fioDiv(100*p.Range, p.Mean)
	r.Mean, r.Slope, r.MaxDeviation = p.Mean, p.Slope, 0
	if !p.Attained && cs.roundsDone >= c.PTS.MaxRounds {
		d.capped = true
	}
}

// verdict fills the fields common to every verdict.
func (d *Detector) verdict(idx int, elapsed time.Duration) Verdict {
	v := Verdict{
		Sample: idx, Elapsed: elapsed, Counted: true, Attained: d.attained,
		Capped: d.capped, Results: d.results, WindowFirst: -1, WindowLast: -1,
	}
	if d.counted > 0 {
		v.WindowLast = d.samples - 1
		v.WindowFirst = v.WindowLast - min(d.counted, d.span()) + 1
	}
	v.Evaluated = true
	for _, r := range d.results {
		v.Evaluated = v.Evaluated && r.Evaluated
	}
	v.windowHave, v.windowWant = min(d.counted, d.n), d.n
	return v
}

// span is the window in samples: fio's window, or with only PTS criteria
// the first one's measurement window (rounds * round length).
func (d *Detector) span() int {
	if d.n > 0 {
		return d.n
	}
	for _, c := range d.cfg.Criteria {
		if c.Method == PTS {
			return c.PTS.Window * int(c.PTS.Round/time.Second)
		}
	}
	return 1
}

// snapshot keeps the fio object's data at the first attainment.
func (d *Detector) snapshot(idx int) {
	if d.n == 0 {
		return
	}
	d.iops.copyTo(d.snapIOPS)
	d.bw.copyTo(d.snapBW)
	if d.fioIdx >= 0 {
		d.snapResult = d.results[d.fioIdx]
	}
	d.snap = idx
	d.snapFirst = idx - min(d.counted, d.n) + 1
}
