package workload

import (
	"time"

	"stortest.dev/fio"
)

// The value syntax of fio's options is package fio's: one reading of
// sizes, times and booleans for job files, steady-state criteria and
// every other place that takes fio's values (fiojob's ParseSize,
// ParseCount, ParseTime and ParseBool read them for the parser).

// FormatSize prints n with the largest fio suffix that divides it exactly
// (4096 -> "4k", 1536 -> "1536"), so ParseSize(FormatSize(n)) == n.
func FormatSize(n int64) string { return fio.FormatSize(n) }

// FormatTime prints d with the largest fio unit that divides it exactly
// (90s -> "90s", 2m -> "2m", 1500us -> "1500us").
func FormatTime(d time.Duration) string { return fio.FormatTime(d) }

func formatBool(b bool) string { return fio.FormatBool(b) }

// invalid makes a value error of package fio match ErrInvalid.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return &valueError{err}
}
