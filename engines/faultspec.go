package engines

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/fio"
)

// ErrFaultSpec is wrapped by ParseFaults errors.
var ErrFaultSpec = errors.New("engines: bad fault spec")

// ParseFaults reads Faults from the one-line form String prints, a
// comma-separated list of key=value (the command line's --faults):
//
//	seed=N               Seed (decimal or 0x hex)
//	errno=EIO            Errno, by name or number
//	err_at=R[:R...]      ErrAt; a range R is OFF+LEN, sizes as fio reads them (fio.ParseSize)
//	err_rate=P           ErrRate: a probability (0.001) or a percentage (0.1%)
//	err_ops=OP[:OP...]   ErrOps: read, write, fsync, fdatasync, trim
//	latency=D            Latency, a Go duration (250us, 2ms, 1.5s)
//	depth_latency=D      DepthLatency
//	spike=P:D            SpikeRate and Spike
//	tail=SHAPE:SCALE[:MAX]  TailShape, TailScale, TailMax
//	stall_at=R[:R...]    StallAt
//	stall=D              Stall
//	virtual=0|1          Virtual
//	short_rate=P         ShortRate
//	short_align=SIZE     ShortAlign (a size as fio reads it: 4k is 4096, 4KiB 4000)
//
// The result is validated. "" is the zero Faults.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s: %s", ErrFaultSpec, key, fmt.Sprintf(format, args...))
		}
		if !ok {
			return Faults{}, fmt.Errorf("%w: %q is not key=value", ErrFaultSpec, kv)
		}
		if seen[key] {
			return Faults{}, bad("given twice")
		}
		seen[key] = true
		var err error
		switch key {
		case "seed":
			if h, isHex := strings.CutPrefix(strings.ToLower(val), "0x"); isHex {
				f.Seed, err = strconv.ParseUint(h, 16, 64)
			} else {
				f.Seed, err = strconv.ParseUint(val, 10, 64)
			}
		case "errno":
			f.Errno, err = parseErrno(val)
		case "err_at":
			f.ErrAt, err = parseRanges(val)
		case "err_rate":
			f.ErrRate, err = parseProb(val)
		case "err_ops":
			f.ErrOps, err = parseOps(val)
		case "latency":
			f.Latency, err = parseDur(val)
		case "depth_latency":
			f.DepthLatency, err = parseDur(val)
		case "spike":
			p, d, ok := strings.Cut(val, ":")
			if !ok {
				return Faults{}, bad("%q: want RATE:DURATION", val)
			}
			if f.SpikeRate, err = parseProb(p); err == nil {
				f.Spike, err = parseDur(d)
			}
		case "tail":
			parts := strings.Split(val, ":")
			if len(parts) < 2 || len(parts) > 3 {
				return Faults{}, bad("%q: want SHAPE:SCALE[:MAX]", val)
			}
			f.TailShape, err = strconv.ParseFloat(parts[0], 64)
			if err == nil {
				f.TailScale, err = parseDur(parts[1])
			}
			if err == nil && len(parts) == 3 {
				f.TailMax, err = parseDur(parts[2])
			}
		case "stall_at":
			f.StallAt, err = parseRanges(val)
		case "stall":
			f.Stall, err = parseDur(val)
		case "virtual":
			switch val {
			case "1", "true", "on":
				f.Virtual = true
			case "0", "false", "off":
			default:
				err = fmt.Errorf("%q is not 0 or 1", val)
			}
		case "short_rate":
			f.ShortRate, err = parseProb(val)
		case "short_align":
			f.ShortAlign, err = parseSpecSize(val)
		default:
			return Faults{}, fmt.Errorf("%w: unknown key %q (want seed, errno, err_at, err_rate, err_ops, latency, spike, "+
				"tail, stall_at, stall, virtual, short_rate, short_align)", ErrFaultSpec, key)
		}
		if err != nil {
			return Faults{}, bad("%v", err)
		}
	}
	if err := f.Validate(); err != nil {
		return Faults{}, fmt.Errorf("%w: %w", ErrFaultSpec, err)
	}
	return f, nil
}

// String prints f in ParseFaults' form; fields at their zero value are
// left out.
func (f Faults) String() string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	if f.Seed != 0 {
		add("seed", strconv.FormatUint(f.Seed, 10))
	}
	if f.Errno != 0 {
		name := unix.ErrnoName(f.Errno)
		if name == "" {
			name = strconv.Itoa(int(f.Errno))
		}
		add("errno", name)
	}
	if len(f.ErrAt) > 0 {
		add("err_at", formatRanges(f.ErrAt))
	}
	if f.ErrRate != 0 {
		add("err_rate", strconv.FormatFloat(f.ErrRate, 'g', -1, 64))
	}
	if f.ErrOps != 0 {
		var ops []string
		for op := OpRead; op <= OpTrim; op++ {
			if f.ErrOps.Has(op) {
				ops = append(ops, op.String())
			}
		}
		add("err_ops", strings.Join(ops, ":"))
	}
	if f.Latency != 0 {
		add("latency", f.Latency.String())
	}
	if f.DepthLatency != 0 {
		add("depth_latency", f.DepthLatency.String())
	}
	if f.SpikeRate != 0 || f.Spike != 0 {
		add("spike", strconv.FormatFloat(f.SpikeRate, 'g', -1, 64)+":"+f.Spike.String())
	}
	if f.TailScale != 0 || f.TailShape != 0 {
		v := strconv.FormatFloat(f.TailShape, 'g', -1, 64) + ":" + f.TailScale.String()
		if f.TailMax != 0 {
			v += ":" + f.TailMax.String()
		}
		add("tail", v)
	} else if f.TailMax != 0 {
		add("tail", "0:0s:"+f.TailMax.String())
	}
	if len(f.StallAt) > 0 {
		add("stall_at", formatRanges(f.StallAt))
	}
	if f.Stall != 0 {
		add("stall", f.Stall.String())
	}
	if f.Virtual {
		add("virtual", "1")
	}
	if f.ShortRate != 0 {
		add("short_rate", strconv.FormatFloat(f.ShortRate, 'g', -1, 64))
	}
	if f.ShortAlign != 0 {
		add("short_align", strconv.FormatInt(f.ShortAlign, 10))
	}
	return strings.Join(parts, ",")
}

func parseErrno(s string) (unix.Errno, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 || n > 4095 {
			return 0, fmt.Errorf("errno %d is out of range", n)
		}
		return unix.Errno(n), nil
	}
	for e := unix.Errno(1); e < 4096; e++ {
		if unix.ErrnoName(e) == strings.ToUpper(s) {
			return e, nil
		}
	}
	return 0, fmt.Errorf("unknown errno %q (give a name such as EIO, or a number)", s)
}

func parseOps(s string) (OpSet, error) {
	var set OpSet
	for _, name := range strings.Split(s, ":") {
		found := false
		for op := OpRead; op <= OpTrim; op++ {
			if op.String() == name {
				set |= OpsOf(op)
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown operation %q (want read, write, fsync, fdatasync, trim)", name)
		}
	}
	return set, nil
}

func parseProb(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q is not a probability in [0, 1]", s)
	}
	return v, nil
}

func parseDur(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 250us, 2ms or 1.5s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

// parseSpecSize reads bytes as fio reads sizes (fio.ParseSize: "4k" is
// 4096, "1m" 1048576, "0x1000" 4096, and "4KiB" 4000, as in fio 3.33).
func parseSpecSize(s string) (int64, error) {
	v, err := fio.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size such as 4096, 4k or 1m: %w", s, err)
	}
	return v, nil
}

func parseRanges(s string) ([]Range, error) {
	var out []Range
	for _, r := range strings.Split(s, ":") {
		o, l, ok := strings.Cut(r, "+")
		if !ok {
			return nil, fmt.Errorf("range %q: want OFFSET+LENGTH", r)
		}
		off, err := parseSpecSize(o)
		if err != nil {
			return nil, fmt.Errorf("range %q: %w", r, err)
		}
		n, err := parseSpecSize(l)
		if err != nil {
			return nil, fmt.Errorf("range %q: %w", r, err)
		}
		out = append(out, Range{Off: off, Len: n})
	}
	return out, nil
}

func formatRanges(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatInt(r.Off, 10) + "+" + strconv.FormatInt(r.Len, 10)
	}
	return strings.Join(parts, ":")
}
