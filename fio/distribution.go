package fio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DistKind is the model of fio's random_distribution.
type DistKind uint8

const (
	DistRandom   DistKind = iota // uniform (fio's default "random")
	DistZipf                     // Zipf with exponent theta
	DistPareto                   // Pareto with power h
	DistNormal                   // Gaussian with a standard deviation in percent of the range
	DistZoned                    // zones: access percent / range percent pairs
	DistZonedAbs                 // zones: access percent / range size pairs
)

var distNames = [...]string{"random", "zipf", "pareto", "normal", "zoned", "zoned_abs"}

func (k DistKind) String() string {
	if int(k) < len(distNames) {
		return distNames[k]
	}
	return "DistKind(" + strconv.Itoa(int(k)) + ")"
}

// Distribution is fio's random_distribution option:
//
//	random              uniform
//	zipf:theta[:c]      Zipf, theta > 0 and != 1 (1.2 is a common choice)
//	pareto:h[:c]        Pareto, 0 < h < 1: a fraction h of the I/Os hits a
//	                    fraction 1-h of the blocks when h > 0.5 (0.8 is 80/20)
//	normal:dev[:c]      Gaussian, standard deviation dev percent of the
//	                    range, 0 < dev <= 100
//
// The optional c in [0, 1] places the distribution: for normal it is the
// mean as a fraction of the range (default 0.5); for zipf and pareto it is
// where the hottest block lies, the next hottest following it upwards
// (wrapping). Without c, zipf and pareto scatter their hot blocks over the
// range with a seeded permutation, as fio scatters them with a hash.
//
//	zoned:a/r:a/r...    a percent of the I/Os fall uniformly in the next r
//	                    percent of the range, zone after zone from its
//	                    start; the a's sum to 100, the r's to at most 100
//	                    (a blank r is what is left)
//	zoned_abs:a/s:...   the same with zone sizes s in bytes (fio's size
//	                    syntax); fio also writes zoned_abs=...
//
// Per-direction zones (fio's "r:...,w:...") are not supported. The zero
// value is random.
type Distribution struct {
	Kind      DistKind
	Param     float64 // theta, h or dev
	Center    float64 // c; meaningful when HasCenter
	HasCenter bool
	// Zones of zoned and zoned_abs, canonical: "a/r:a/r" with every r
	// filled in (percent, or bytes for zoned_abs).
	Zones string
}

// ParseDistribution parses fio's random_distribution syntax.
func ParseDistribution(s string) (Distribution, error) {
	parts := strings.Split(s, ":")
	var d Distribution
	switch parts[0] {
	case "random":
		if len(parts) > 1 {
			return d, fmt.Errorf("%q: random takes no parameter", s)
		}
		return d, nil
	case "zipf":
		d.Kind = DistZipf
	case "pareto":
		d.Kind = DistPareto
	case "normal":
		d.Kind = DistNormal
	default:
		if k, rest, ok := cutZoned(s); ok {
			return parseZones(s, k, rest)
		}
		return d, fmt.Errorf("unknown distribution %q (want random, zipf:theta, pareto:h, normal:dev, zoned:a/r... or zoned_abs:a/size...)", s)
	}
	if len(parts) == 1 {
		// fio's defaults: zipf 1.1, pareto 0.2; normal without a
		// deviation is fio's mean of 12 uniform draws, whose standard
		// deviation is 1/12 of the range.
		d.Param = map[DistKind]float64{DistZipf: 1.1, DistPareto: 0.2, DistNormal: 100.0 / 12}[d.Kind]
		return d.Canonical(), nil
	}
	if len(parts) > 3 {
		return d, fmt.Errorf("%q: want %s:value[:center]", s, parts[0])
	}
	var err error
	if d.Param, err = strconv.ParseFloat(parts[1], 64); err != nil {
		return d, fmt.Errorf("%q: bad value %q", s, parts[1])
	}
	if len(parts) == 3 {
		d.HasCenter = true
		if d.Center, err = strconv.ParseFloat(parts[2], 64); err != nil {
			return d, fmt.Errorf("%q: bad center %q", s, parts[2])
		}
	}
	if msg := d.Validate(); msg != "" {
		return d, fmt.Errorf("%q: %s", s, msg)
	}
	return d.Canonical(), nil
}

// validate reports why d is invalid, or "".
func (d Distribution) Validate() string {
	p := d.Param
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "the value is not a finite number"
	}
	switch d.Kind {
	case DistRandom:
		return ""
	case DistZipf:
		if !(p > 0) || p == 1 {
			return "zipf theta must be > 0 and != 1"
		}
	case DistPareto:
		if !(p > 0 && p < 1) {
			return "pareto h must be in (0, 1)"
		}
	case DistNormal:
		if !(p > 0 && p <= 100) {
			return "normal deviation must be in (0, 100] percent"
		}
	case DistZoned, DistZonedAbs:
		if _, err := parseZones(d.Kind.String()+":"+d.Zones, d.Kind, d.Zones); err != nil {
			return err.Error()
		}
		return ""
	default:
		return "invalid kind " + d.Kind.String()
	}
	if d.HasCenter && !(d.Center >= 0 && d.Center <= 1) {
		return "center must be in [0, 1]"
	}
	return ""
}

// canonical drops what does not change the distribution, so that equal
// workloads compare equal: parameters of random, an unset center's value,
// and normal's explicit default center 0.5.
func (d Distribution) Canonical() Distribution {
	switch {
	case d.Kind == DistRandom:
		return Distribution{}
	case d.Kind == DistZoned || d.Kind == DistZonedAbs:
		return Distribution{Kind: d.Kind, Zones: d.Zones}
	case d.Kind == DistNormal && d.HasCenter && d.Center == 0.5:
		d.HasCenter = false
	}
	if !d.HasCenter {
		d.Center = 0
	}
	return d
}

// IsZero reports whether d is the default (uniform).
func (d Distribution) IsZero() bool { return d.Canonical() == Distribution{} }

// String prints fio's syntax.
func (d Distribution) String() string {
	switch d.Kind {
	case DistRandom:
		return "random"
	case DistZoned, DistZonedAbs:
		return d.Kind.String() + ":" + d.Zones
	}
	s := d.Kind.String() + ":" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	if d.HasCenter {
		s += ":" + strconv.FormatFloat(d.Center, 'g', -1, 64)
	}
	return s
}

// MarshalText writes fio's syntax.
func (d Distribution) MarshalText() ([]byte, error) {
	if msg := d.Validate(); msg != "" {
		return nil, errors.New("fio: random_distribution: " + msg)
	}
	return []byte(d.String()), nil
}

// UnmarshalText parses fio's syntax.
func (d *Distribution) UnmarshalText(b []byte) error {
	v, err := ParseDistribution(string(b))
	if err != nil {
		return fmt.Errorf("fio: random_distribution %w", err)
	}
	*d = v
	return nil
}

// cutZoned splits "zoned:..." (or zoned_abs with ':' or '=') into its
// kind and zone list.
func cutZoned(s string) (DistKind, string, bool) {
	for _, z := range [...]struct {
		prefix string
		kind   DistKind
	}{{"zoned_abs:", DistZonedAbs}, {"zoned_abs=", DistZonedAbs}, {"zoned:", DistZoned}} {
		if rest, ok := strings.CutPrefix(s, z.prefix); ok {
			return z.kind, rest, true
		}
	}
	return 0, "", false
}

// maxZones is fio's limit on zones.
const maxZones = 256

// zone is one access/range pair of a zoned distribution.
type zone struct {
	Access uint64 // percent of the I/Os
	Span   uint64 // percent of the range (zoned) or bytes (zoned_abs); 0: the rest
}

// parseZones parses the zone list of a zoned (percent ranges) or
// zoned_abs (byte ranges) distribution; s is the whole option value.
func parseZones(s string, kind DistKind, list string) (Distribution, error) {
	zs, err := SplitZones(s, kind, list)
	if err != nil {
		return Distribution{}, err
	}
	parts := make([]string, len(zs))
	for i, z := range zs {
		span := strconv.FormatUint(z.Span, 10)
		if kind == DistZonedAbs {
			span = FormatSize(int64(z.Span))
		}
		parts[i] = strconv.FormatUint(z.Access, 10) + "/" + span
	}
	return Distribution{Kind: kind, Zones: strings.Join(parts, ":")}, nil
}

func SplitZones(s string, kind DistKind, list string) ([]zone, error) {
	if strings.Contains(list, ",") {
		return nil, unsupported("random_distribution=" + s + " (zones per direction)")
	}
	fields := strings.Split(list, ":")
	if len(fields) > maxZones {
		return nil, fmt.Errorf("%q: more than %d zones", s, maxZones)
	}
	var zs []zone
	var access, span uint64
	blank := -1
	for _, f := range fields {
		a, r, ok := strings.Cut(f, "/")
		if !ok {
			return nil, fmt.Errorf("%q: zone %q is not access/range", s, f)
		}
		pa, err := strconv.ParseUint(strings.TrimSpace(a), 10, 8)
		if err != nil || pa > 100 {
			return nil, fmt.Errorf("%q: access percent %q is not a whole number in [0, 100]", s, a)
		}
		z := zone{Access: pa}
		switch r = strings.TrimSpace(r); {
		case r == "":
			if blank >= 0 {
				return nil, fmt.Errorf("%q: only one zone may leave its range blank", s)
			}
			blank = len(zs)
		case kind == DistZonedAbs:
			n, err := ParseSize(r)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%q: zone size %q is not a positive size", s, r)
			}
			z.Span = uint64(n)
		default:
			p, err := strconv.ParseUint(r, 10, 8)
			if err != nil || p == 0 || p > 100 {
				return nil, fmt.Errorf("%q: range percent %q is not a whole number in [1, 100]", s, r)
			}
			z.Span = p
		}
		access += z.Access
		span += z.Span
		zs = append(zs, z)
	}
	if access != 100 {
		return nil, fmt.Errorf("%q: access percentages sum to %d, not 100", s, access)
	}
	if kind == DistZoned {
		if span > 100 {
			return nil, fmt.Errorf("%q: range percentages sum to %d, more than 100", s, span)
		}
		if blank >= 0 {
			if span == 100 {
				return nil, fmt.Errorf("%q: a blank range has nothing left", s)
			}
			zs[blank].Span = 100 - span
		}
	} else if blank >= 0 {
		return nil, fmt.Errorf("%q: zoned_abs needs every zone's size", s)
	}
	return zs, nil
}
