package workload

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Sizes follow fio's integer syntax with its default kb_base=1024: a decimal
// or 0x-hexadecimal number and an optional case-insensitive suffix, where
// k, m, g, t and p (alone, followed by b, or followed by i) are powers of
// 1024. fio 3.33 reads the "KiB"-style suffixes (i followed by b) as powers
// of 1000 in that mode, the opposite of what they say; ParseSize refuses
// them rather than pick a meaning silently. Fractions, signs, percentages
// and trailing text are errors here, though fio truncates or ignores them.

// sizeShift gives the power of 1024 of each unit prefix.
var sizeShift = map[byte]uint{'k': 10, 'm': 20, 'g': 30, 't': 40, 'p': 50}

// ParseSize parses a byte count in fio's syntax ("4k", "1m", "0x1000",
// "512b"). See the package documentation for the accepted suffixes.
func ParseSize(s string) (int64, error) {
	num, suffix := splitNumber(s)
	if num == "" {
		return 0, unitErr("size", s, "want a whole number with an optional k/m/g/t/p suffix")
	}
	hex := strings.HasPrefix(num, "0x") || strings.HasPrefix(num, "0X")
	var v uint64
	var err error
	if hex {
		if suffix != "" {
			return 0, unitErr("size", s, "a hexadecimal size takes no suffix")
		}
		v, err = strconv.ParseUint(num[2:], 16, 63)
	} else {
		v, err = strconv.ParseUint(num, 10, 63)
	}
	if err != nil {
		return 0, unitErr("size", s, "out of range")
	}
	shift, err := sizeSuffix(s, suffix)
	if err != nil {
		return 0, err
	}
	if shift > 0 && v > math.MaxInt64>>shift {
		return 0, unitErr("size", s, "out of range")
	}
	return int64(v << shift), nil
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

// sizeSuffix returns the power-of-two shift of a size suffix.
func sizeSuffix(s, suffix string) (uint, error) {
	suf := strings.ToLower(suffix)
	switch suf {
	case "":
		return 0, nil
	case "b":
		return 0, nil
	}
	if strings.HasPrefix(suf, ".") {
		return 0, unitErr("size", s, "fractions are not allowed")
	}
	if strings.HasPrefix(suf, "%") {
		return 0, unitErr("size", s, "percentages of the device are not supported")
	}
	shift, ok := sizeShift[suf[0]]
	if !ok {
		return 0, unitErr("size", s, "unknown suffix "+strconv.Quote(suffix))
	}
	switch suf[1:] {
	case "", "b", "i":
		return shift, nil
	case "ib":
		return 0, unitErr("size", s, "fio (kb_base=1024) reads "+suffix+
			" as a power of 1000; write "+suf[:1]+" for a power of 1024 or give the bytes")
	}
	return 0, unitErr("size", s, "unknown suffix "+strconv.Quote(suffix))
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

// ParseCount parses a count (iodepth, numjobs, rate_iops, ...). fio accepts
// the size suffixes on every integer option (iodepth=1k is 1024), and so
// does ParseCount; max bounds the result.
func ParseCount(s string, max int64) (int64, error) {
	v, err := ParseSize(s)
	if err != nil {
		var ue *unitError
		if errors.As(err, &ue) {
			ue.what = "number"
		}
		return 0, err
	}
	if v > max {
		return 0, unitErr("number", s, "larger than "+strconv.FormatInt(max, 10))
	}
	return v, nil
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
		return 0, unitErr("time", s, "want a whole number with an optional us/ms/s/m/h/d suffix")
	}
	v, err := strconv.ParseUint(num, 10, 63)
	if err != nil {
		return 0, unitErr("time", s, "out of range")
	}
	if suffix != "" {
		u, ok := timeUnits[strings.ToLower(suffix)]
		switch {
		case strings.HasPrefix(suffix, "."):
			return 0, unitErr("time", s, "fractions are not allowed (fio truncates them); use a smaller unit")
		case strings.EqualFold(suffix, "sec"):
			return 0, unitErr("time", s, "fio 3.33 reads \"sec\" as microseconds; write s")
		case !ok:
			return 0, unitErr("time", s, "unknown unit "+strconv.Quote(suffix)+" (want us, ms, s, m, h or d)")
		}
		unit = u
	}
	hi, lo := bits.Mul64(v, uint64(unit))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, unitErr("time", s, "out of range")
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
// fio 3.33 itself accepts only 1 and 0; Job.String prints those.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, unitErr("boolean", s, "want 1/0, true/false, yes/no or on/off")
}

func formatBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// unitError is a malformed value; it matches ErrInvalid.
type unitError struct {
	what, value, why string
}

func unitErr(what, value, why string) error { return &unitError{what, value, why} }

func (e *unitError) Error() string {
	return "invalid " + e.what + " " + strconv.Quote(e.value) + ": " + e.why
}

func (e *unitError) Unwrap() error { return ErrInvalid }
