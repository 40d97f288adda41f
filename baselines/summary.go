package baselines

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
	job := strings.Split(strings.TrimSpace(b.Job.String()), "\n")
	if len(job) > 0 {
		job = job[1:] // the [name] header
	}
	fmt.Fprintf(&s, "  job: %s\n", strings.Join(job, " "))
	for _, d := range b.Dirs {
		fmt.Fprintf(&s, "  %s: IOPS=%s, BW=%s, %d I/Os, %d errors, %d short\n", d.Name,
			FormatIOPS(d.IOPS), FormatBW(d.BW), d.IOs, d.Errors, d.ShortIOs)
		if m := d.IOPSSamples; m.N > 0 {
			fmt.Fprintf(&s, "    iops per second: min=%s mean=%s max=%s stddev=%s (%d samples)\n",
				FormatIOPS(m.Min), FormatIOPS(m.Mean), FormatIOPS(m.Max), FormatIOPS(m.Stddev), m.N)
		}
		if m := d.BWSamples; m.N > 0 {
			fmt.Fprintf(&s, "    bw per second:   min=%s mean=%s max=%s stddev=%s (%d samples)\n",
				FormatBW(m.Min), FormatBW(m.Mean), FormatBW(m.Max), FormatBW(m.Stddev), m.N)
		}
		for _, name := range []string{"slat", "clat", "lat"} {
			st := d.Stat(name)
			if st == nil {
				continue
			}
			fmt.Fprintf(&s, "    %-4s: n=%d min=%s mean=%s max=%s stddev=%s\n", name, st.N,
				FormatNS(float64(st.Min)), FormatNS(st.Mean), FormatNS(float64(st.Max)), FormatNS(st.Stddev))
			var ps []string
			for _, p := range Percentiles {
				if v, ok := st.Percentile(p); ok {
					ps = append(ps, percentileKey(p)+"="+FormatNS(float64(v)))
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
				x := fmt.Sprintf("%s IOPS=%s", d.Name, FormatIOPS(d.IOPS))
				if d.ClatP99 != 0 {
					x += " clat p99=" + FormatNS(float64(d.ClatP99))
				}
				ds = append(ds, x)
			}
			fmt.Fprintf(&s, "    %d: %s, %v: %s\n", i+1, r.Created.Format("2006-01-02T15:04:05Z07:00"), r.Runtime, strings.Join(ds, ", "))
		}
	}
	_, err := io.WriteString(w, s.String())
	return err
}

// FormatNS prints a latency in ns with a unit that keeps three or four
// significant digits: "812ns", "66.05µs", "2.41ms", "1.2s".
func FormatNS(ns float64) string {
	a := math.Abs(ns)
	switch {
	case a < 1e3:
		return trimFloat(ns, 0) + "ns"
	case a < 1e6:
		return trimFloat(ns/1e3, 2) + "µs"
	case a < 1e9:
		return trimFloat(ns/1e6, 2) + "ms"
	}
	return trimFloat(ns/1e9, 2) + "s"
}

// FormatIOPS prints a rate of I/Os to three significant digits with an
// SI prefix: "950", "2.01k", "12.6k", "1.23M".
func FormatIOPS(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 1e3:
		return trimFloat(v, 1)
	case a < 1e6:
		return sig3(v/1e3) + "k"
	}
	return sig3(v/1e6) + "M"
}

// FormatBW prints bytes per second in powers of 1024 to three significant
// digits, as fio: "49.3MiB/s".
func FormatBW(v float64) string { return FormatBytes(v) + "/s" }

// FormatBytes prints bytes in powers of 1024 to three significant digits:
// "256MiB".
func FormatBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return trimFloat(v, 1) + units[i]
	}
	return sig3(v) + units[i]
}

// sig3 prints v (below 10000 in magnitude) with three significant digits,
// trailing zeros trimmed.
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 10:
		return trimFloat(v, 2)
	case a < 100:
		return trimFloat(v, 1)
	}
	return trimFloat(v, 0)
}

// trimFloat prints v with at most prec decimals, without trailing zeros.
func trimFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
