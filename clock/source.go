package clock

import (
	"errors"
	"fmt"
	"strings"
)

// Source is where Now reads time from.
type Source int

const (
	// Runtime is the Go runtime's monotonic clock (CLOCK_MONOTONIC through the
	// vDSO on Linux), read as time.Since a package epoch.
	Runtime Source = iota + 1
	// TSC is the CPU's cycle counter converted with a calibrated rate: the
	// time-stamp counter on amd64, the generic timer's virtual counter
	// CNTVCT_EL0 on arm64.
	TSC
)

// EnvSource names the environment variable that forces a Source: "tsc",
// "runtime", or "" / "auto" for the automatic choice.
const EnvSource = "STORTEST_CLOCK"

// ErrBadSource reports an unknown source name.
var ErrBadSource = errors.New("clock: unknown source")

// ErrNoTSC reports that the TSC source was asked for but cannot be used.
var ErrNoTSC = errors.New("clock: TSC unusable")

func (s Source) String() string {
	switch s {
	case Runtime:
		return "runtime"
	case TSC:
		return "tsc"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// ParseSource parses "tsc" or "runtime" (any case, surrounding space ignored).
// "" and "auto" return 0, meaning: choose automatically.
func ParseSource(name string) (Source, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "auto":
		return 0, nil
	case "tsc":
		return TSC, nil
	case "runtime":
		return Runtime, nil
	}
	return 0, fmt.Errorf("%w %q (want tsc, runtime or auto)", ErrBadSource, name)
}
