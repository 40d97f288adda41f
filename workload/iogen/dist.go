package iogen

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// Sampler draws block indices in [0, n) from a Distribution. Next
// allocates nothing. A Sampler is not safe for concurrent use; each job
// clone owns its own.
type Sampler struct {
	kind workload.DistKind
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
func NewSampler(d workload.Distribution, n, seed uint64) (*Sampler, error) {
	return newSampler(d, n, 0, seed)
}

func newSampler(d workload.Distribution, n uint64, blockBytes int64, seed uint64) (*Sampler, error) {
	if n == 0 {
		return nil, errors.New("workload: sampler over 0 blocks")
	}
	if msg := d.Validate(); msg != "" {
		return nil, errors.New("workload: random_distribution: " + msg)
	}
	s := &Sampler{kind: d.Kind, n: n}
	s.rng.Seed(SplitMix64(seed^0x5a3d), SplitMix64(seed+0x1f0b))
	if d.HasCenter {
		s.shift = uint64(d.Center*float64(n)) % n
	} else {
		s.scatter = true
		s.perm = newPermutation(n, SplitMix64(seed^0x7e7e))
	}
	nf := float64(n)
	switch d.Kind {
	case workload.DistZoned, workload.DistZonedAbs:
		s.zones(d, n, blockBytes)
	case workload.DistZipf:
		s.theta = d.Param
		s.zetan = zeta(n, s.theta)
		s.halfPow = math.Pow(0.5, s.theta)
		s.zeta2 = 1 + s.halfPow
		s.alpha = 1 / (1 - s.theta)
		s.eta = (1 - math.Pow(2/nf, 1-s.theta)) / (1 - s.zeta2/s.zetan)
	case workload.DistPareto:
		s.pow = math.Log(d.Param) / math.Log(1-d.Param)
	case workload.DistNormal:
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
	case workload.DistZipf, workload.DistPareto:
		r := s.nextRank()
		if s.scatter {
			return s.perm.at(r)
		}
		r += s.shift
		if r >= s.n {
			r -= s.n
		}
		return r
	case workload.DistNormal:
		return s.nextNormal()
	case workload.DistZoned, workload.DistZonedAbs:
		return s.nextZoned()
	}
	return uniform(&s.rng, s.n)
}

// nextRank draws a popularity rank of zipf or pareto: 0 is the hottest.
func (s *Sampler) nextRank() uint64 {
	u := unit(&s.rng)
	var r uint64
	if s.kind == workload.DistPareto {
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

// zones lays the zones of d out over n blocks of blockBytes bytes. A
// zoned_abs zone covers its bytes from where the one before it ends,
// clipped to the region; with blockBytes 0 (unknown) the sizes are
// taken as shares of their sum. A zone left with no block takes the
// region's last block.
func (s *Sampler) zones(d workload.Distribution, n uint64, blockBytes int64) {
	zs, _ := fio.SplitZones(d.String(), d.Kind, d.Zones) // validated
	total, unit := uint64(100), uint64(0)
	if d.Kind == workload.DistZonedAbs {
		if blockBytes > 0 {
			unit = uint64(blockBytes)
		} else {
			total = 0
			for _, z := range zs {
				total += z.Span
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
		spanned += z.Span
		hi := blocksAt(spanned)
		if z.Access == 0 {
			continue
		}
		lo = min(lo, n-1)
		hi = max(hi, lo+1)
		acc += z.Access
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
