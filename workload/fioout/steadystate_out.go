package fioout

import (
	"fmt"
	"strings"
	"time"

	"stortest.dev/steady"
	"stortest.dev/workload"
)

// The steady state in fio's outputs.

// fioSteadyOptions adds the steady-state options to a "job options"
// object under the names fio prints them with.
func fioSteadyOptions(o ordered, j *workload.Job) ordered {
	if j.SS == "" && j.SSDur == 0 {
		return o
	}
	if j.SS != "" {
		o = append(o, field{"steadystate", j.SS})
	}
	if j.SSDur > 0 {
		o = append(o, field{"steadystate_duration", workload.FormatTime(j.SSDur)})
	}
	if j.SSRamp > 0 {
		o = append(o, field{"steadystate_ramp_time", workload.FormatTime(j.SSRamp)})
	}
	return o
}

// fioSteadyFields are a job's steady-state members of the JSON output:
// fio's "steadystate" object (when a criterion is one fio knows) and
// "stortest_steadystate", stortest's extension.
func fioSteadyFields(j *workload.JobResult, format OutputFormat) []field {
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
		pcts := j.Job.Percentiles()
		lw := ordered{
			{"start_ms", l.Start.Milliseconds()},
			{"end_ms", l.End.Milliseconds()},
			{"first_second", l.First},
			{"last_second", l.Last},
			{"attempt", l.Attempt},
			{"clat_ns", fioStat(l.All, true, pcts, format)},
		}
		for d := range workload.NumDirs {
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
func writeSteadySummary(b *strings.Builder, j *workload.JobResult) {
	ss := j.Steady
	if ss == nil {
		return
	}
	fmt.Fprintf(b, "  steady state  : %s over %s", ss.Criteria, workload.FormatTime(ss.Window))
	if ss.Ramp > 0 {
		fmt.Fprintf(b, " after %s", workload.FormatTime(ss.Ramp))
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
