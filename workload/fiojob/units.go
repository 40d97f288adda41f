package fiojob

import (
	"errors"
	"strconv"
	"time"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// The value syntax of fio's options is package fio's: one reading of
// sizes, times and booleans for job files, steady-state criteria and
// every other place that takes fio's values. These wrappers keep the
// parser's error contract: a malformed value matches workload.ErrInvalid.

// ParseSize parses a byte count in fio's syntax ("4k", "1m", "0x1000",
// "512b"; "4KiB" is 4000, as fio 3.33 reads it): see package fio.
func ParseSize(s string) (int64, error) {
	v, err := fio.ParseSize(s)
	return v, workload.Invalid(err)
}

// ParseCount parses a count (iodepth, numjobs, rate_iops, ...). fio accepts
// the size suffixes on every integer option (iodepth=1k is 1024), and so
// does ParseCount; max bounds the result.
func ParseCount(s string, max int64) (int64, error) {
	v, err := fio.ParseSize(s)
	if err != nil {
		var ve *fio.ValueError
		if errors.As(err, &ve) {
			ve.Kind = "number"
		}
		return 0, workload.Invalid(err)
	}
	if v > max {
		return 0, workload.Invalid(&fio.ValueError{Kind: "number", Value: s, Why: "larger than " + strconv.FormatInt(max, 10)})
	}
	return v, nil
}

// ParseTime parses a time in fio's syntax ("10", "500ms", "2m", "1h");
// unit is the unit of a bare number.
func ParseTime(s string, unit time.Duration) (time.Duration, error) {
	d, err := fio.ParseTime(s, unit)
	return d, workload.Invalid(err)
}

// ParseBool parses a boolean: 1/0, true/false, yes/no, on/off, any case.
// fio 3.33 itself accepts only 1 and 0; fiojob.Format prints those.
func ParseBool(s string) (bool, error) {
	b, err := fio.ParseBool(s)
	return b, workload.Invalid(err)
}
