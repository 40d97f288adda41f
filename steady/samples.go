package steady

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxLine bounds one input line of ReadSamples (bytes).
const maxLine = 64 << 10

// ReadSamples reads a column of per-second values, one number per line,
// and calls fn with each value and its line number (from 1). Blank lines
// and lines starting with '#' are skipped. Values are non-negative
// decimal numbers (iops, bytes/s or latency nanoseconds); a fractional
// part is dropped, as fio's integer per-second arithmetic drops it.
// Errors name the input (name) and line; an error from fn is returned
// wrapped with the line.
func ReadSamples(r io.Reader, name string, fn func(line int, v uint64) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		v, err := parseSample(text)
		if err != nil {
			return fmt.Errorf("steady: %s line %d: %w", name, line, err)
		}
		if err := fn(line, v); err != nil {
			return fmt.Errorf("steady: %s line %d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("steady: %s line %d: longer than %d bytes: %w", name, line+1, maxLine, err)
		}
		return fmt.Errorf("steady: read %s after line %d: %w", name, line, err)
	}
	return nil
}

// ErrSample is wrapped by errors about a value of ReadSamples.
var ErrSample = errors.New("bad sample")

func parseSample(text string) (uint64, error) {
	if strings.ContainsAny(text, " \t,;") {
		return 0, fmt.Errorf("%w %q: want one number per line", ErrSample, text)
	}
	if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		return u, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w %q: want a number", ErrSample, text)
	}
	if f < 0 {
		return 0, fmt.Errorf("%w %q: want a number >= 0", ErrSample, text)
	}
	if f >= math.MaxInt64 {
		return 0, fmt.Errorf("%w %q: too large", ErrSample, text)
	}
	return uint64(f), nil
}
