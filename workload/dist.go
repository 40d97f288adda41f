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
	DistRandom DistKind = iota // uniform (fio's default "random")
	DistZipf                   // Zipf with exponent theta
	DistPareto                 // Pareto with power h
	DistNormal                 // Gaussian with a standard deviation in percent of the range
)

var distNames = [...]string{"random", "zipf", "pareto", "normal"}

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
// fio's zoned and zoned_abs are not supported. The zero value is random.
type Distribution struct {
	Kind      DistKind
	Param     float64 // theta, h or dev
	Center    float64 // c; meaningful when HasCenter
	HasCenter bool
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
	case "zoned", "zoned_abs":
		return d, unsupported("random_distribution=" + parts[0])
	default:
		if strings.HasPrefix(s, "zoned") {
			return d, unsupported("random_distribution=" + s)
		}
		return d, fmt.Errorf("unknown distribution %q (want random, zipf:theta, pareto:h or normal:dev)", s)
	}
	if len(parts) < 2 || len(parts) > 3 {
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
	if d.Kind == DistRandom {
		return "random"
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
}

// NewSampler returns a sampler of d over n blocks (n >= 1), seeded.
func NewSampler(d Distribution, n, seed uint64) (*Sampler, error) {
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
