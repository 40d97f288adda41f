package workload

import (
	"fmt"
)

// ContinueOn is fio's continue_on_error: the failures a job keeps running
// after instead of stopping at the first. As in fio, only the non-fatal
// errnos EIO and EILSEQ are continued after; EILSEQ counts as a verify
// failure whatever the direction, other failures by direction (trim as
// write). Verify mismatches found by the verify pass are verify failures.
// Options.ContinueOnError continues after every failure, whatever the
// errno.
type ContinueOn uint8

const (
	ContinueNone  ContinueOn = 0
	ContinueRead  ContinueOn = 1 << 0
	ContinueWrite ContinueOn = 1 << 1
	// ContinueVerify keeps the job running after a verify pass that found
	// mismatches (they are counted either way); without it the job ends
	// after that pass with the first mismatch as its error.
	ContinueVerify ContinueOn = 1 << 2
	ContinueIO                = ContinueRead | ContinueWrite
	ContinueAll               = ContinueIO | ContinueVerify
)

var continueNames = map[ContinueOn]string{
	ContinueNone: "none", ContinueRead: "read", ContinueWrite: "write",
	ContinueIO: "io", ContinueVerify: "verify", ContinueAll: "all",
}

// String returns fio's name: none, read, write, io, verify or all.
func (c ContinueOn) String() string {
	if n, ok := continueNames[c]; ok {
		return n
	}
	return fmt.Sprintf("ContinueOn(%d)", uint8(c))
}

// ParseContinueOn parses fio's continue_on_error values: none, read,
// write, io, verify, all, and 0 (none) and 1 (all).
func ParseContinueOn(s string) (ContinueOn, error) {
	switch s {
	case "0":
		return ContinueNone, nil
	case "1":
		return ContinueAll, nil
	}
	for c, n := range continueNames {
		if n == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%q: want none, read, write, io, verify, all, 0 or 1", s)
}

// Valid reports whether c is one of the values fio names.
func (c ContinueOn) Valid() bool { _, ok := continueNames[c]; return ok }

// MarshalText writes fio's name.
func (c ContinueOn) MarshalText() ([]byte, error) {
	return nameText(c, c.Valid(), "ContinueOn")
}

// UnmarshalText parses fio's name.
func (c *ContinueOn) UnmarshalText(b []byte) error {
	return parseText(c, b, ParseContinueOn, "continue_on_error ")
}
