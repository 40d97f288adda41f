package baselines

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"stortest.dev/internal/human"
	"stortest.dev/workload/fiojob"
)

// WriteSummary writes a human summary of b: where and what ran, then per
// direction the throughput, the per-second spread and the latency
// statistics with their percentiles (what `stortest baseline show`
// prints).
func (b *Baseline) WriteSummary(w io.Writer) error {
	var s strings.Builder
	clones := "1 clone"
	if b.Clones != 1 {
		clones = fmt.Sprintf("%d clones", b.Clones)
	}
	fmt.Fprintf(&s, "%s: schema %d, created %s, runtime %s, %s\n", b.Name, b.Schema,
		b.Created.Format("2006-01-02T15:04:05Z07:00"), b.Runtime, clones)
	var fp []string
	for _, f := range b.Fingerprint.fields() {
		if *f.v != "" {
			fp = append(fp, f.label+"="+strconv.Quote(*f.v))
		}
	}
	if b.Fingerprint.Size != 0 {
		fp = append(fp, "size="+strconv.Quote(sizeString(b.Fingerprint.Size)))
	}
	fmt.Fprintf(&s, "  fingerprint: %s\n", strings.Join(fp, " "))
	if b.Tolerances != "" {
		fmt.Fprintf(&s, "  tolerances: %s\n", b.Tolerances)
	}
	if b.Shared != "" {
		fmt.Fprintf(&s, "  shared device: %s\n", b.Shared)
	}
	if len(b.Runs) > 1 {
		// What the gate learns a device's spread from: independent
		// sessions, not the runs of one go test -count=N.
		first, last := b.Runs[0].Created, b.Runs[0].Created
		for _, r := range b.Runs {
			if r.Created.Before(first) {
				first = r.Created
			}
			if r.Created.After(last) {
				last = r.Created
			}
		}
		fmt.Fprintf(&s, "  runs: %d in %d sessions, %s to %s\n", len(b.Runs), len(b.Sessions()),
			first.Format("2006-01-02T15:04:05Z07:00"), last.Format("2006-01-02T15:04:05Z07:00"))
	}
	job := strings.Split(strings.TrimSpace(fiojob.Format(b.Job)), "\n")
	if len(job) > 0 {
		job = job[1:] // the [name] header
	}
	fmt.Fprintf(&s, "  job: %s\n", strings.Join(job, " "))
	for _, d := range b.Dirs {
		fmt.Fprintf(&s, "  %s: IOPS=%s, BW=%s, %d I/Os, %d errors, %d short\n", d.Name,
			human.Count(d.IOPS), human.BW(d.BW), d.IOs, d.Errors, d.ShortIOs)
		if m := d.IOPSSamples; m.N > 0 {
			fmt.Fprintf(&s, "    iops per second: min=%s mean=%s max=%s stddev=%s (%d samples)\n",
				human.Count(m.Min), human.Count(m.Mean), human.Count(m.Max), human.Count(m.Stddev), m.N)
		}
		if m := d.BWSamples; m.N > 0 {
			fmt.Fprintf(&s, "    bw per second:   min=%s mean=%s max=%s stddev=%s (%d samples)\n",
				human.BW(m.Min), human.BW(m.Mean), human.BW(m.Max), human.BW(m.Stddev), m.N)
		}
		for _, name := range []string{"slat", "clat", "lat"} {
			st := d.Stat(name)
			if st == nil {
				continue
			}
			fmt.Fprintf(&s, "    %-4s: n=%d min=%s mean=%s max=%s stddev=%s\n", name, st.N,
				human.Latency(float64(st.Min)), human.Latency(st.Mean), human.Latency(float64(st.Max)), human.Latency(st.Stddev))
			var ps []string
			for _, p := range Percentiles {
				if v, ok := st.Percentile(p); ok {
					ps = append(ps, percentileKey(p)+"="+human.Latency(float64(v)))
				}
			}
			if st.Hist != nil {
				ps = append(ps, fmt.Sprintf("(histogram: %d buckets, %d groups)", len(st.Hist.Bins), st.Hist.Groups))
			}
			if len(ps) > 0 {
				fmt.Fprintf(&s, "          %s\n", strings.Join(ps, " "))
			}
		}
	}
	whole := 0
	for _, sec := range b.Seconds {
		if sec.Dur >= WholeSecond {
			whole++
		}
	}
	fmt.Fprintf(&s, "  seconds: %d samples (%d whole)\n", len(b.Seconds), whole)
	if len(b.Slices) > 0 {
		fmt.Fprintf(&s, "  slices: %d of %v\n", len(b.Slices), b.SliceInterval)
	}
	if len(b.Runs) > 0 {
		fmt.Fprintf(&s, "  runs: %d\n", len(b.Runs))
		for i, r := range b.Runs {
			var ds []string
			for _, d := range r.Dirs {
				x := fmt.Sprintf("%s IOPS=%s", d.Name, human.Count(d.IOPS))
				if d.ClatP99 != 0 {
					x += " clat p99=" + human.Latency(float64(d.ClatP99))
				}
				ds = append(ds, x)
			}
			fmt.Fprintf(&s, "    %d: %s, %v: %s\n", i+1, r.Created.Format("2006-01-02T15:04:05Z07:00"), r.Runtime, strings.Join(ds, ", "))
		}
	}
	_, err := io.WriteString(w, s.String())
	return err
}

// FormatNS prints a latency in ns for people: "812ns", "66.05µs",
// "2.41ms", "1.2s" (the module's one rule, internal/human.Latency).
func FormatNS(ns float64) string { return human.Latency(ns) }

// FormatIOPS prints a rate of I/Os for people, three significant digits
// with an SI prefix: "950", "12.6k", "1.23M" (internal/human.Count).
func FormatIOPS(v float64) string { return human.Count(v) }

// FormatBW prints bytes per second for people: "49.3MiB/s"
// (internal/human.BW).
func FormatBW(v float64) string { return human.BW(v) }

// FormatBytes prints bytes for people, powers of 1024 with at most one
// decimal: "256MiB", "171.4MiB" (internal/human.Bytes).
func FormatBytes(v float64) string { return human.Bytes(v) }
