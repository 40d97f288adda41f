package fio

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// ValueError is an option value that fio's syntax does not allow, or
// that stortest refuses to guess at.
type ValueError struct {
	Kind  string // "size", "time", "boolean", "number"
	Value string
	Why   string
}

func (e *ValueError) Error() string {
	return "invalid " + e.Kind + " " + strconv.Quote(e.Value) + ": " + e.Why
}

func valueErr(kind, value, why string) error { return &ValueError{kind, value, why} }

// sizePow gives the power of each unit prefix.
var sizePow = map[byte]uint{'k': 1, 'm': 2, 'g': 3, 't': 4, 'p': 5}

// ParseSize parses a byte count in fio's syntax ("4k", "1m", "0x1000",
// "512b", "4KiB" = 4000). See the package documentation for the
// suffixes.
func ParseSize(s string) (int64, error) {
	num, suffix := splitNumber(s)
	if num == "" {
		return 0, valueErr("size", s, "want a whole number with an optional k/m/g/t/p suffix")
	}
	hex := strings.HasPrefix(num, "0x") || strings.HasPrefix(num, "0X")
	var v uint64
	var err error
	if hex {
		if suffix != "" {
			return 0, valueErr("size", s, "a hexadecimal size takes no suffix")
		}
		v, err = strconv.ParseUint(num[2:], 16, 63)
	} else {
		v, err = strconv.ParseUint(num, 10, 63)
	}
	if err != nil {
		return 0, valueErr("size", s, "out of range")
	}
	base, pow, err := sizeSuffix(s, suffix)
	if err != nil {
		return 0, err
	}
	for range pow {
		hi, lo := bits.Mul64(v, base)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, valueErr("size", s, "out of range")
		}
		v = lo
	}
	return int64(v), nil
}

// ParseSizePrefix reads the longest size at the start of s, as fio 3.33
// reads its size options: a number and a suffix, with whatever follows
// them ignored ("512/25" is 512, "4kx" is 4096). It returns the size and
// the text it ignored; a fraction or a percentage is still an error, and
// so is text without a leading number.
func ParseSizePrefix(s string) (int64, string, error) {
	if n, err := ParseSize(s); err == nil {
		return n, "", nil
	}
	num, suffix := splitNumber(s)
	if num == "" || strings.HasPrefix(suffix, ".") || strings.HasPrefix(suffix, "%") {
		n, err := ParseSize(s)
		return n, "", err
	}
	for k := len(suffix) - 1; k >= 0; k-- {
		if _, _, err := sizeSuffix(s, suffix[:k]); err != nil {
			continue
		}
		n, err := ParseSize(num + suffix[:k])
		return n, suffix[k:], err
	}
	n, err := ParseSize(s)
	return n, "", err
}

// splitNumber splits s into its leading number (decimal digits, or 0x and
// hexadecimal digits) and the rest.
func splitNumber(s string) (num, rest string) {
	i := 0
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		i = 2
		for i < len(s) && isHex(s[i]) {
			i++
		}
		if i == 2 {
			return "", s
		}
		return s[:i], s[i:]
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// sizeSuffix returns the multiplier of a size suffix as base**pow.
func sizeSuffix(s, suffix string) (base uint64, pow uint, err error) {
	suf := strings.ToLower(suffix)
	switch {
	case suf == "" || suf == "b":
		return 1, 0, nil
	case strings.HasPrefix(suf, "."):
		return 0, 0, valueErr("size", s, "fractions are not allowed")
	case strings.HasPrefix(suf, "%"):
		return 0, 0, valueErr("size", s, "percentages of the device are not supported")
	}
	pow, ok := sizePow[suf[0]]
	if !ok {
		return 0, 0, valueErr("size", s, "unknown suffix "+strconv.Quote(suffix))
	}
	switch suf[1:] {
	case "", "b", "i":
		return 1024, pow, nil
	case "ib":
		return 1000, pow, nil
	}
	return 0, 0, valueErr("size", s, "unknown suffix "+strconv.Quote(suffix))
}

// FormatSize prints n with the largest fio suffix that divides it exactly
// (4096 -> "4k", 1536 -> "1536"), so ParseSize(FormatSize(n)) == n.
func FormatSize(n int64) string {
	if n <= 0 {
		return strconv.FormatInt(n, 10)
	}
	for _, u := range [...]struct {
		shift  uint
		suffix string
	}{{50, "p"}, {40, "t"}, {30, "g"}, {20, "m"}, {10, "k"}} {
		if n&(1<<u.shift-1) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// timeUnits are fio's time suffixes, case-insensitive. A bare number is in
// the option's default unit (seconds for runtime, ramp_time, ss_dur and
// ss_ramp). fio 3.33 does not know "ns", reads "10sec" as 10 us despite
// its documentation, and truncates fractions ("0.3" is 0 s); all three are
// errors here.
var timeUnits = map[string]time.Duration{
	"us": time.Microsecond, "usec": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond,
	"s": time.Second,
	"m": time.Minute,
	"h": time.Hour,
	"d": 24 * time.Hour,
}

// ParseTime parses a time in fio's syntax ("10", "500ms", "2m", "1h");
// unit is the unit of a bare number.
func ParseTime(s string, unit time.Duration) (time.Duration, error) {
	num, suffix := splitNumber(s)
	if num == "" || strings.HasPrefix(num, "0x") || strings.HasPrefix(num, "0X") {
		return 0, valueErr("time", s, "want a whole number with an optional us/ms/s/m/h/d suffix")
	}
	v, err := strconv.ParseUint(num, 10, 63)
	if err != nil {
		return 0, valueErr("time", s, "out of range")
	}
	if suffix != "" {
		u, ok := timeUnits[strings.ToLower(suffix)]
		switch {
		case strings.HasPrefix(suffix, "."):
			return 0, valueErr("time", s, "fractions are not allowed (fio truncates them); use a smaller unit")
		case strings.EqualFold(suffix, "sec"):
			return 0, valueErr("time", s, "fio 3.33 reads \"sec\" as microseconds; write s")
		case !ok:
			return 0, valueErr("time", s, "unknown unit "+strconv.Quote(suffix)+" (want us, ms, s, m, h or d)")
		}
		unit = u
	}
	hi, lo := bits.Mul64(v, uint64(unit))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, valueErr("time", s, "out of range")
	}
	return time.Duration(lo), nil
}

// FormatTime prints d with the largest fio unit that divides it exactly
// (90s -> "90s", 2m -> "2m", 1500us -> "1500us"). Durations finer than a
// microsecond have no fio spelling and print in microseconds, truncated.
func FormatTime(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	for _, u := range [...]struct {
		unit   time.Duration
		suffix string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
}

// ParseBool parses a boolean: 1/0, true/false, yes/no, on/off, any case.
// fio 3.33 itself accepts only 1 and 0; FormatBool prints those.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, valueErr("boolean", s, "want 1/0, true/false, yes/no or on/off")
}

// FormatBool prints b as fio does: 1 or 0.
func FormatBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// ErrUnsupported matches what fio reads but stortest does not (zones per
// direction, a verify pattern with the offset): the values of fio's
// syntax that this package refuses rather than reads differently.
// Package workload's ErrUnsupported is this one.
var ErrUnsupported = errors.New("workload: not supported by stortest")

// unsupportedError is the error of a value stortest does not read.
type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string { return e.what + " is not supported by stortest" }
func (e *unsupportedError) Unwrap() error { return ErrUnsupported }

func unsupported(what string) error { return &unsupportedError{what} }
