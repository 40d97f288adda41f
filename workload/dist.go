package workload

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
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
		return d.canonical(), nil
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
	if msg := d.validate(); msg != "" {
		return d, fmt.Errorf("%q: %s", s, msg)
	}
	return d.canonical(), nil
}

// validate reports why d is invalid, or "".
func (d Distribution) validate() string {
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
func (d Distribution) canonical() Distribution {
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
func (d Distribution) IsZero() bool { return d.canonical() == Distribution{} }

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
	if msg := d.validate(); msg != "" {
		return nil, errors.New("workload: random_distribution: " + msg)
	}
	return []byte(d.String()), nil
}

// UnmarshalText parses fio's syntax.
func (d *Distribution) UnmarshalText(b []byte) error {
	v, err := ParseDistribution(string(b))
	if err != nil {
		return fmt.Errorf("workload: random_distribution %w", err)
	}
	*d = v
	return nil
}

// Sampler draws block indices in [0, n) from a Distribution. Next
// allocates nothing. A Sampler is not safe for concurrent use; each job
// clone owns its own.
type Sampler struct {
	kind DistKind
	n    uint64
	rng  rand.PCG

	// zipf, after Gray et al., "Quickly generating billion-record synthetic
	// databases" (SIGMOD 1994), the method fio uses.
	theta, zetan, zeta2, alpha, eta, halfPow float64
	// pareto: rank = (n-1) - (n-1)*u^pow.
	pow float64
	// normal, in blocks.
	mean, sigma float64
	spare       float64
	hasSpare    bool

	// Placement of ranks (zipf, pareto): scattered by perm, or shifted so
	// rank 0 lands on block shift.
	scatter bool
	perm    permutation
	shift   uint64

	// zoned: zone i takes access percent up to cumul[i] (of 100) and the
	// blocks [from[i], from[i+1]).
	cumul    []uint64
	from, to []uint64
}

// NewSampler returns a sampler of d over n blocks (n >= 1), seeded.
// zoned_abs zones, in bytes, are taken as shares of their sum; the
// offset generator, which knows the block size, places them exactly.
func NewSampler(d Distribution, n, seed uint64) (*Sampler, error) {
	return newSampler(d, n, 0, seed)
}

func newSampler(d Distribution, n uint64, blockBytes int64, seed uint64) (*Sampler, error) {
	if n == 0 {
		return nil, errors.New("workload: sampler over 0 blocks")
	}
	if msg := d.validate(); msg != "" {
		return nil, errors.New("workload: random_distribution: " + msg)
	}
	s := &Sampler{kind: d.Kind, n: n}
	s.rng.Seed(splitmix(seed^0x5a3d), splitmix(seed+0x1f0b))
	if d.HasCenter {
		s.shift = uint64(d.Center*float64(n)) % n
	} else {
		s.scatter = true
		s.perm = newPermutation(n, splitmix(seed^0x7e7e))
	}
	nf := float64(n)
	switch d.Kind {
	case DistZoned, DistZonedAbs:
		s.zones(d, n, blockBytes)
	case DistZipf:
		s.theta = d.Param
		s.zetan = zeta(n, s.theta)
		s.halfPow = math.Pow(0.5, s.theta)
		s.zeta2 = 1 + s.halfPow
		s.alpha = 1 / (1 - s.theta)
		s.eta = (1 - math.Pow(2/nf, 1-s.theta)) / (1 - s.zeta2/s.zetan)
	case DistPareto:
		s.pow = math.Log(d.Param) / math.Log(1-d.Param)
	case DistNormal:
		c := 0.5
		if d.HasCenter {
			c = d.Center
		}
		s.mean = c * nf
		s.sigma = d.Param / 100 * nf
	}
	return s, nil
}

// N returns the number of blocks.
func (s *Sampler) N() uint64 { return s.n }

// Next returns the next block index in [0, n).
func (s *Sampler) Next() uint64 {
	switch s.kind {
	case DistZipf, DistPareto:
		r := s.nextRank()
		if s.scatter {
			return s.perm.at(r)
		}
		r += s.shift
		if r >= s.n {
			r -= s.n
		}
		return r
	case DistNormal:
		return s.nextNormal()
	case DistZoned, DistZonedAbs:
		return s.nextZoned()
	}
	return uniform(&s.rng, s.n)
}

// nextRank draws a popularity rank of zipf or pareto: 0 is the hottest.
func (s *Sampler) nextRank() uint64 {
	u := unit(&s.rng)
	var r uint64
	if s.kind == DistPareto {
		x := float64(s.n-1) * math.Pow(u, s.pow)
		r = s.n - 1 - min(uint64(x), s.n-1)
		return r
	}
	uz := u * s.zetan
	switch {
	case uz < 1:
		return 0
	case uz < s.zeta2:
		return 1
	}
	x := float64(s.n) * math.Pow(s.eta*u-s.eta+1, s.alpha)
	if !(x >= 0) { // NaN guards tiny n, where eta is 0/0
		return 0
	}
	return min(uint64(x), s.n-1)
}

// nextNormal draws from the normal distribution truncated to the range by
// redrawing (Box-Muller pairs); after 64 misses, which needs a center at
// an edge and a wide deviation to be likely at all, it clamps.
func (s *Sampler) nextNormal() uint64 {
	var x float64
	for range 64 {
		var z float64
		if s.hasSpare {
			z, s.hasSpare = s.spare, false
		} else {
			u1 := 1 - unit(&s.rng) // (0, 1]: log is finite
			u2 := unit(&s.rng)
			r := math.Sqrt(-2 * math.Log(u1))
			sin, cos := math.Sincos(2 * math.Pi * u2)
			z, s.spare, s.hasSpare = r*cos, r*sin, true
		}
		x = s.mean + z*s.sigma
		if x >= 0 && x < float64(s.n) {
			return uint64(x)
		}
	}
	return uint64(min(max(x, 0), float64(s.n-1)))
}

// zeta returns sum_{i=1..n} i^-theta: exactly for the first 10000 terms,
// then by Euler-Maclaurin (integral, end-point and first derivative
// terms), whose error past 10^4 is below 1e-15 relative. fio sums at most
// 10^7 terms and drops the rest.
func zeta(n uint64, theta float64) float64 {
	const exact = 10000
	sum := 0.0
	m := min(n, exact)
	for i := uint64(1); i <= m; i++ {
		sum += math.Pow(float64(i), -theta)
	}
	if n <= exact {
		return sum
	}
	a, b := float64(exact+1), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	df := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	integral := (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
	return sum + integral + (f(a)+f(b))/2 + (df(b)-df(a))/12
}

// uniform returns a uniform integer in [0, n), n > 0, without bias
// (Lemire's multiply-and-reject).
func uniform(r *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// unit returns a uniform float64 in [0, 1).
func unit(r *rand.PCG) float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// splitmix is SplitMix64's finalizer: a bijective 64-bit mix used to
// derive independent seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
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
	access uint64 // percent of the I/Os
	span   uint64 // percent of the range (zoned) or bytes (zoned_abs); 0: the rest
}

// parseZones parses the zone list of a zoned (percent ranges) or
// zoned_abs (byte ranges) distribution; s is the whole option value.
func parseZones(s string, kind DistKind, list string) (Distribution, error) {
	zs, err := splitZones(s, kind, list)
	if err != nil {
		return Distribution{}, err
	}
	parts := make([]string, len(zs))
	for i, z := range zs {
		span := strconv.FormatUint(z.span, 10)
		if kind == DistZonedAbs {
			span = FormatSize(int64(z.span))
		}
		parts[i] = strconv.FormatUint(z.access, 10) + "/" + span
	}
	return Distribution{Kind: kind, Zones: strings.Join(parts, ":")}, nil
}

func splitZones(s string, kind DistKind, list string) ([]zone, error) {
	if strings.Contains(list, ",") {
		return nil, Unsupported("random_distribution=" + s + " (zones per direction)")
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
		z := zone{access: pa}
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
			z.span = uint64(n)
		default:
			p, err := strconv.ParseUint(r, 10, 8)
			if err != nil || p == 0 || p > 100 {
				return nil, fmt.Errorf("%q: range percent %q is not a whole number in [1, 100]", s, r)
			}
			z.span = p
		}
		access += z.access
		span += z.span
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
			zs[blank].span = 100 - span
		}
	} else if blank >= 0 {
		return nil, fmt.Errorf("%q: zoned_abs needs every zone's size", s)
	}
	return zs, nil
}

// zones lays the zones of d out over n blocks of blockBytes bytes. A
// zoned_abs zone covers its bytes from where the one before it ends,
// clipped to the region; with blockBytes 0 (unknown) the sizes are
// taken as shares of their sum. A zone left with no block takes the
// region's last block.
func (s *Sampler) zones(d Distribution, n uint64, blockBytes int64) {
	zs, _ := splitZones(d.String(), d.Kind, d.Zones) // validated
	total, unit := uint64(100), uint64(0)
	if d.Kind == DistZonedAbs {
		if blockBytes > 0 {
			unit = uint64(blockBytes)
		} else {
			total = 0
			for _, z := range zs {
				total += z.span
			}
		}
	}
	blocksAt := func(span uint64) uint64 {
		if unit > 0 {
			return min(span/unit, n)
		}
		return mulDiv(span, n, total)
	}
	var acc, spanned uint64
	for _, z := range zs {
		lo := blocksAt(spanned)
		spanned += z.span
		hi := blocksAt(spanned)
		if z.access == 0 {
			continue
		}
		lo = min(lo, n-1)
		hi = max(hi, lo+1)
		acc += z.access
		s.cumul = append(s.cumul, acc)
		s.from = append(s.from, lo)
		s.to = append(s.to, hi)
	}
}

// mulDiv returns a*b/c without overflow for the values used here.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi%c, lo, c)
	return q
}

// nextZoned draws a zone by its access percent, then a block in it.
func (s *Sampler) nextZoned() uint64 {
	r := uniform(&s.rng, 100)
	for i, c := range s.cumul {
		if r < c {
			return s.from[i] + uniform(&s.rng, s.to[i]-s.from[i])
		}
	}
	i := len(s.cumul) - 1
	return s.from[i] + uniform(&s.rng, s.to[i]-s.from[i])
}
