package steady

import (
	"math"
	"strconv"
	"time"
)

// Report is a detector's steady-state result for a job's JSON output:
// fio's "steadystate" object, with fio's keys and formatting, and
// stortest's additions under a key of their own so fio's object stays
// identical.
type Report struct {
	// Fio is fio's object for the first iops/bw deviation or slope
	// criterion; nil when the criteria have none (latency or PTS only).
	Fio      *FioSteadyState `json:"steadystate,omitempty"`
	Stortest Extension       `json:"stortest_steadystate"`
}

// Extension is what stortest adds to fio's steady-state object.
type Extension struct {
	Criteria []CriterionReport `json:"criteria"`
	Window   int               `json:"window_s"` // fio's ss_dur in seconds
	RampMs   int64             `json:"ramp_ms"`
	Samples  int               `json:"samples"` // fed so far, ramp included
	// Attained is the state after the last sample; AttainedSample and
	// AttainedMs the first attainment (-1 and 0 when never attained).
	Attained       bool  `json:"attained"`
	AttainedSample int   `json:"attained_sample"`
	AttainedMs     int64 `json:"attained_ms"`
	// WindowFirst and WindowLast are the sample indices of the judged
	// window (see Verdict).
	WindowFirst int          `json:"window_first_sample"`
	WindowLast  int          `json:"window_last_sample"`
	PTSCapped   bool         `json:"pts_capped,omitempty"`
	Losses      []LossReport `json:"losses"`
	// Lat holds the window's per-second latency percentiles, oldest first.
	Lat []LatencyWindow `json:"lat,omitempty"`
}

// CriterionReport is one criterion's result in JSON.
type CriterionReport struct {
	Criterion    string     `json:"criterion"`
	Evaluated    bool       `json:"evaluated"`
	Attained     bool       `json:"attained"`
	Value        Float      `json:"value"`
	Limit        Float      `json:"limit"`
	Mean         Float      `json:"mean"`
	MaxDeviation Float      `json:"max_deviation"`
	Slope        Float      `json:"slope"`
	Missing      int        `json:"missing,omitempty"`
	PTS          *PTSReport `json:"pts,omitempty"`
}

// PTSReport is a PTSResult in JSON.
type PTSReport struct {
	FirstRound     int   `json:"first_round"`
	LastRound      int   `json:"last_round"`
	Mean           Float `json:"mean"`
	Min            Float `json:"min"`
	Max            Float `json:"max"`
	Range          Float `json:"range"`
	RangeLimit     Float `json:"range_limit"`
	Slope          Float `json:"slope"`
	Intercept      Float `json:"intercept"`
	Excursion      Float `json:"excursion"`
	ExcursionLimit Float `json:"excursion_limit"`
	Attained       bool  `json:"attained"`
}

// LossReport is a Loss in JSON.
type LossReport struct {
	Criterion   string `json:"criterion"`
	StartSample int    `json:"start_sample"`
	EndSample   int    `json:"end_sample"` // -1 while lost
	StartMs     int64  `json:"start_ms"`
	EndMs       int64  `json:"end_ms"`
	Value       Float  `json:"value"`
	Worst       Float  `json:"worst"`
	Limit       Float  `json:"limit"`
}

// LatencyWindow is one latency series of the window, in nanoseconds; -1
// marks a second without completions.
type LatencyWindow struct {
	Name string  `json:"name"` // "clat_p99"
	Ns   []int64 `json:"ns"`
}

// Float is a float64 that marshals as the shortest decimal that reads
// back as the same value, and as null when it is NaN or infinite.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	return []byte(shortest(float64(f))), nil
}

// UnmarshalJSON reads a number or null (NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Fio returns fio's "steadystate" object for the first iops/bw deviation
// or slope criterion: as of the first attainment (where fio stops), or
// of the last sample when steady state was never attained. ok is false
// when no criterion is one fio knows.
func (d *Detector) Fio() (f FioSteadyState, ok bool) {
	if d.fioIdx < 0 {
		return FioSteadyState{}, false
	}
	c := d.cfg.Criteria[d.fioIdx]
	if d.attainedAt >= 0 {
		return NewFioSteadyState(c, d.snapResult, true, d.snapIOPS, d.snapBW), true
	}
	iops, bw := make([]uint64, d.n), make([]uint64, d.n)
	d.iops.copyTo(iops)
	d.bw.copyTo(bw)
	return NewFioSteadyState(c, d.results[d.fioIdx], false, iops, bw), true
}

// Report returns the detector's state for a job's JSON output.
func (d *Detector) Report() Report {
	var rep Report
	if f, ok := d.Fio(); ok {
		rep.Fio = &f
	}
	v := d.verdict(d.samples-1, d.prevElapsed)
	e := Extension{
		Window: d.n, RampMs: d.cfg.Ramp.Milliseconds(), Samples: d.samples,
		Attained: d.attained, AttainedSample: d.attainedAt, AttainedMs: d.attainedEl.Milliseconds(),
		WindowFirst: v.WindowFirst, WindowLast: v.WindowLast, PTSCapped: d.capped,
		Losses: make([]LossReport, 0, len(d.losses)),
	}
	for _, r := range d.results {
		e.Criteria = append(e.Criteria, criterionReport(r))
	}
	for _, l := range d.losses {
		e.Losses = append(e.Losses, LossReport{
			Criterion: d.cfg.Criteria[l.Criterion].String(), StartSample: l.Start, EndSample: l.End,
			StartMs: l.StartElapsed.Milliseconds(), EndMs: l.EndElapsed.Milliseconds(),
			Value: Float(l.Value), Worst: Float(l.Worst), Limit: Float(l.Limit),
		})
	}
	for i, spec := range d.lats {
		if d.n == 0 {
			break
		}
		raw := make([]uint64, d.n)
		miss := make([]bool, d.n)
		r := &d.lat[i]
		r.copyTo(raw)
		copyMiss(r, miss)
		ns := make([]int64, min(r.count, d.n))
		for k := range ns {
			ns[k] = int64(raw[k])
			if miss[k] {
				ns[k] = -1
			}
		}
		e.Lat = append(e.Lat, LatencyWindow{Name: spec.String(), Ns: ns})
	}
	rep.Stortest = e
	return rep
}

// copyMiss writes the ring's missing flags oldest first.
func copyMiss(r *ring, dst []bool) {
	if !r.full() {
		copy(dst, r.miss)
		return
	}
	k := copy(dst, r.miss[r.head:])
	copy(dst[k:], r.miss[:r.head])
}

func criterionReport(r Result) CriterionReport {
	c := r.Criterion
	cr := CriterionReport{
		Criterion: c.String(), Evaluated: r.Evaluated, Attained: r.Attained,
		Value: Float(r.Value), Limit: Float(c.Limit), Mean: Float(r.Mean),
		MaxDeviation: Float(r.MaxDeviation), Slope: Float(r.Slope), Missing: r.Missing,
	}
	if c.Method == PTS {
		p := r.PTS
		cr.Limit = Float(c.PTS.Range)
		cr.PTS = &PTSReport{
			FirstRound: p.FirstRound, LastRound: p.LastRound, Mean: Float(p.Mean), Min: Float(p.Min), Max: Float(p.Max),
			Range: Float(p.Range), RangeLimit: Float(p.RangeLimit), Slope: Float(p.Slope), Intercept: Float(p.Intercept),
			Excursion: Float(p.Excursion), ExcursionLimit: Float(p.ExcursionLimit), Attained: p.Attained,
		}
	}
	return cr
}

// MarshalJSON prints a verdict as one compact object: sample, elapsed_ms,
// counted, evaluated, attained, stop, event, window, results, reason.
func (v Verdict) MarshalJSON() ([]byte, error) {
	obj := fioObject{
		{"sample", int64(v.Sample)},
		{"elapsed_ms", int64(v.Elapsed / time.Millisecond)},
		{"counted", v.Counted},
		{"evaluated", v.Evaluated},
		{"attained", v.Attained},
		{"stop", v.Stop},
		{"event", v.Event.String()},
		{"window_first_sample", int64(v.WindowFirst)},
		{"window_last_sample", int64(v.WindowLast)},
	}
	var rs []fioPair
	for i, r := range v.Results {
		rs = append(rs, fioPair{strconv.Itoa(i), fioObject{
			{"criterion", r.Criterion.String()},
			{"evaluated", r.Evaluated},
			{"attained", r.Attained},
			{"value", shortest(r.Value)},
			{"mean", shortest(r.Mean)},
			{"max_deviation", shortest(r.MaxDeviation)},
			{"slope", shortest(r.Slope)},
		}})
	}
	obj = append(obj, fioPair{"results", fioArray(rs)}, fioPair{"reason", v.Reason()})
	p := fioPrinter{compact: true}
	p.value(obj, 0)
	return p.b, nil
}
