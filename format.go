package stortest

import (
	"strconv"
	"time"

	"stortest.dev/baselines"
)

// fmtLatency prints a latency with three significant digits in the
// largest unit that keeps it at least 1: 812ns, 31.2µs, 2.41ms, 1.5s.
func fmtLatency(d time.Duration) string {
	if d < 0 {
		return "-" + fmtLatency(-d)
	}
	units := []struct {
		name string
		size float64
	}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}}
	for _, u := range units {
		if float64(d) >= u.size {
			return sig3(float64(d)/u.size) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// sig3 prints v (>= 1) with three significant digits and no trailing
// zeros: 2.41, 31.2, 812, 1000 (not 1e+03), 12345.
func sig3(v float64) string {
	prec := 2
	switch {
	case v >= 100:
		prec = 0
	case v >= 10:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if prec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// fmtCount prints a rate such as IOPS as baselines.FormatIOPS does, so
// that a figure reads the same in a check's message, the progress line
// and a baseline comparison: 812, 41.9k, 1.2M.
func fmtCount(v float64) string { return baselines.FormatIOPS(v) }

// fmtRate prints bytes per second as baselines.FormatBW does: 49.3MiB/s.
func fmtRate(v float64) string { return baselines.FormatBW(v) }

// fmtBytes prints a byte count with three significant digits and an IEC
// unit: 512B, 4KiB, 163MiB, 1.5GiB.
func fmtBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 1 {
		return strconv.FormatFloat(v, 'g', 3, 64) + units[i]
	}
	return sig3(v) + units[i]
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// timeNow is the wall clock of reports; tests fix it.
var timeNow = time.Now
