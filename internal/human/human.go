// Package human prints numbers for people: one rule per quantity, so that
// a latency, a size or a rate reads the same in a check's message, the
// progress line, a baseline's summary, a comparison, a history and a page.
//
// The rules:
//
//   - A latency (Latency, Duration) is printed in the largest of ns, µs,
//     ms and s that keeps it at least 1, with at most two decimals and no
//     trailing zeros; nanoseconds are whole: 812ns, 66.05µs, 2.41ms,
//     1.2s.
//   - A size in bytes (Bytes) is printed in the largest of B, KiB, MiB,
//     GiB, TiB, PiB (powers of 1024) that keeps it at least 1, with four
//     significant digits but at most two decimals, and no trailing zeros:
//     512B, 4KiB, 7.81MiB, 40.89KiB, 171.4MiB, 1.5GiB. A bandwidth (BW)
//     is a size per second: 49.3MiB/s.
//   - A count or a rate of things (Count: IOPS, I/Os, errors) is printed
//     with three significant digits and an SI prefix (k, M, G, T: powers
//     of 1000) from 1000 up: 950, 12.5, 41.9k, 1.23M.
//
// A value that rounds up to the next unit is printed in it (999.999µs is
// 1ms, 999.6 is 1k). What is not a finite number prints as strconv prints
// it (NaN, +Inf), without a unit.
//
// Output that must be fio's, byte for byte, keeps fio's own rules and is
// printed where fio's formats live (package fio and the fio-style
// outputs), not here.
package human

import (
	"math"
	"strconv"
	"strings"
	"time"
)

var (
	latencyUnits = []string{"ns", "µs", "ms", "s"}
	byteUnits    = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	countUnits   = []string{"", "k", "M", "G", "T"}
)

// Latency prints a latency in nanoseconds: "812ns", "66.05µs", "2.41ms",
// "1.2s".
func Latency(ns float64) string {
	return scaled(ns, latencyUnits, 1000, func(unit int, _ float64) int {
		if unit == 0 {
			return 0 // whole nanoseconds
		}
		return 2
	})
}

// Duration prints d as Latency prints its nanoseconds: "66.05µs".
func Duration(d time.Duration) string { return Latency(float64(d)) }

// Bytes prints a size in bytes: "512B", "4KiB", "7.81MiB", "171.4MiB",
// "1.5GiB".
func Bytes(v float64) string {
	return scaled(v, byteUnits, 1024, func(_ int, a float64) int {
		switch {
		case a < 100:
			return 2
		case a < 1000:
			return 1
		}
		return 0
	})
}

// BW prints a bandwidth in bytes per second: "49.3MiB/s".
func BW(v float64) string { return Bytes(v) + "/s" }

// Count prints a count or a rate of things (IOPS, I/Os, errors): "950",
// "12.5", "41.9k", "1.23M".
func Count(v float64) string {
	return scaled(v, countUnits, 1000, func(_ int, a float64) int { return decimals3(a) })
}

// decimals3 is the number of decimals that gives a (>= 0) three
// significant digits, at most two: Count's rule.
func decimals3(a float64) int {
	switch {
	case a < 10:
		return 2
	case a < 100:
		return 1
	}
	return 0
}

// scaled divides v by base while it is at least base and a larger unit
// remains, prints it with decimals(unit, |v|) decimals (trailing zeros
// trimmed), and moves up one unit more when the rounding reached the base
// (999.996µs is 1ms, not 1000µs).
func scaled(v float64, units []string, base float64, decimals func(unit int, a float64) int) string {
	if !finite(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	i := 0
	for i < len(units)-1 && math.Abs(v) >= base {
		v /= base
		i++
	}
	s := trim(v, decimals(i, math.Abs(v)))
	if r, _ := strconv.ParseFloat(s, 64); i < len(units)-1 && math.Abs(r) >= base {
		v /= base
		i++
		s = trim(v, decimals(i, math.Abs(v)))
	}
	return s + units[i]
}

// trim prints v with at most prec decimals, without trailing zeros (and
// never "-0").
func trim(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
