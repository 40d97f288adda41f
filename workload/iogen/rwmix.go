package iogen

import "stortest.dev/workload"

// The direction of each I/O of a mixed job (rw, randrw, readwrite) is
// drawn as fio 3.33 draws it, so that the same job issues the same
// number of reads and writes, in the same order, as under fio:
//
//   - The generator is fio's 32-bit combined Tausworthe generator
//     (L'Ecuyer's taus88), one state of its own for the mix.
//   - Its seed is the one fio derives for the mix from randseed (0x89
//     unless set) and the job's thread number (fio's 1-based count of the
//     jobs of a run, a job's clones numbered one after another); with
//     randrepeat=0 and no randseed it comes from entropy, as fio's does
//     from /dev/urandom.
//   - A draw r gives v = 1 + floor(100 * r / 2^32), a read when v is at
//     most the read percentage.
//   - It is not drawn for every I/O. The mix keeps the current direction
//     and a threshold; while the I/Os issued so far in the current
//     direction are below the threshold, the current direction goes on.
//     Otherwise it draws; when the draw switches direction the threshold
//     becomes the I/Os issued so far in the direction left times the
//     percentage of the new direction, over 100 (rounded down). Only
//     the workload's own I/Os count: verify reads do not.
//   - A loop (not time based) ends when fio finds no block left for an
//     I/O whose direction it has just decided (a random job's map is
//     full): that decision counts though nothing is issued. Then the
//     threshold returns to zero and, with randrepeat (the default, and
//     randseed unset), the generator restarts from its seed; the
//     direction and the counts go on. Without the map (norandommap, a
//     random_distribution) nothing runs out: all the loops' bytes go in
//     one loop of fio's, with one mix.

// taus88 is fio's 32-bit Tausworthe generator: three shift-register
// components xored together, period about 2^88.
type taus88 struct{ s1, s2, s3 uint32 }

// seed sets the state from seed as fio does: a linear congruential step
// per component from a fixed start, each component raised above the
// minimum its shifts need, then six draws discarded.
func (t *taus88) seed(seed uint32) {
	lcg := func(x uint32) uint32 { return x*69069 ^ seed }
	atLeast := func(x, m uint32) uint32 {
		if x < m {
			return x + m
		}
		return x
	}
	// 53 is fio's start value: C's (2^31)+(2^17)+(2^7), xors, not powers.
	t.s1 = atLeast(lcg(53), 1)
	t.s2 = atLeast(lcg(t.s1), 7)
	t.s3 = atLeast(lcg(t.s2), 15)
	for range 6 {
		t.next()
	}
}

func (t *taus88) next() uint32 {
	t.s1 = (t.s1&0xfffffffe)<<12 ^ (t.s1<<13^t.s1)>>19
	t.s2 = (t.s2&0xfffffff8)<<4 ^ (t.s2<<2^t.s2)>>25
	t.s3 = (t.s3&0xfffffff0)<<17 ^ (t.s3<<3^t.s3)>>11
	return t.s1 ^ t.s2 ^ t.s3
}

// percent draws an integer in [1, 100] as fio's rand_between(1, 100):
// the draw scaled to [0, 1) in double precision, times 100, truncated.
func (t *taus88) percent() uint64 {
	return 1 + uint64(100*(float64(t.next())/(1<<32)))
}

// fio's per-purpose seed slots (its rand_seeds index); the mix's is 4.
const fioSeedMix = 4

// fioSeedStep is the multiplier fio steps its seed with between slots.
const fioSeedStep = 0x9e370001

// fioSeed returns fio's seed of slot off for the job numbered thread
// (1-based) from randseed base: base stepped four times, then once more
// per slot, times the thread number, plus the slot (all modulo 2^64).
func fioSeed(base uint64, thread int, off int) uint64 {
	s := base
	for range 4 + off {
		s *= fioSeedStep
	}
	return s*uint64(max(thread, 1)) + uint64(off)
}

// MixSeed returns the seed of the direction generator of the job's clone
// whose fio thread number is thread (1 for the first job of a run; the
// clones of a job numbered one after another, then the next job's), and
// whether each loop restarts the generator from it (randrepeat). With
// RandSeed set the seed follows it and loops do not restart (fio: randseed
// overrides randrepeat); with RandRepeat false the seed comes from
// entropy, which the runner draws at random.
func MixSeed(j *workload.Job, thread int, entropy uint64) (seed uint32, restart bool) {
	return slotSeed(j, thread, fioSeedMix, entropy)
}

// slotSeed returns the seed of fio's slot off for the job's clone whose
// fio thread number is thread, and whether each loop restarts from it,
// as MixSeed says; with RandRepeat false it comes from entropy.
func slotSeed(j *workload.Job, thread, off int, entropy uint64) (seed uint32, restart bool) {
	switch {
	case j.RandSeed != 0:
		return uint32(fioSeed(j.RandSeed, thread, off)), false
	case j.RandRepeat == nil || *j.RandRepeat:
		return uint32(fioSeed(workload.DefaultSeed, thread, off)), true
	}
	return uint32(SplitMix64(entropy)), false
}

// Mixer draws the direction of each I/O of a job: always read, write or
// trim; for rw/randrw read or write as fio does (see the top of this
// file), with RWMixRead percent of the draws reads; for
// trimwrite/randtrimwrite a trim, then a write, in turn. Next counts the
// direction it returns as issued; Switched corrects that when another is
// issued instead. Next allocates nothing.
type Mixer struct {
	rw      workload.RW
	pct     [2]uint64 // [DirRead], [DirWrite]: percent of draws
	rng     taus88
	seed    uint32
	restart bool         // Restart reseeds (randrepeat)
	cur     workload.Dir // the current direction of the mix
	issues  [2]uint64    // I/Os issued per direction
	until   uint64       // the current direction goes on while its issues are below
	trimmed bool         // trimwrite: the last I/O was the trim, the write is next
}

// NewMixer returns the direction chooser for rw with readPercent reads
// (used by mixed patterns only), seeded with fio's seed for the mix (see
// Job.MixSeed); Restart reseeds it.
func NewMixer(rw workload.RW, readPercent int, seed uint32) Mixer {
	r := uint64(min(max(readPercent, 0), 100))
	m := Mixer{rw: rw, pct: [2]uint64{r, 100 - r}, seed: seed, restart: true, cur: workload.DirRead}
	m.rng.seed(seed)
	return m
}

// Next returns the direction of the next I/O.
func (m *Mixer) Next() workload.Dir {
	switch {
	case m.rw.TrimWrites():
		m.trimmed = !m.trimmed
		if m.trimmed {
			return workload.DirTrim
		}
		return workload.DirWrite
	case m.rw.Trims():
		return workload.DirTrim
	case m.rw.Mixed():
		m.decide()
		m.issues[m.cur]++
		return m.cur
	case m.rw.Writes():
		return workload.DirWrite
	}
	return workload.DirRead
}

// decide sets the current direction for the next I/O: the same while
// its issues are below the threshold, else a draw.
func (m *Mixer) decide() {
	if m.issues[m.cur] < m.until {
		return
	}
	d := workload.DirWrite
	if m.rng.percent() <= m.pct[workload.DirRead] {
		d = workload.DirRead
	}
	if d != m.cur {
		m.until = m.issues[m.cur] * m.pct[d] / 100
	}
	m.cur = d
}

// Switched records that the I/O Next gave direction drew went in
// direction d instead (a rate limit switched it), as fio then continues
// the mix in d.
func (m *Mixer) Switched(drew, d workload.Dir) {
	if !m.rw.Mixed() || drew == d || drew > workload.DirWrite || d > workload.DirWrite {
		return
	}
	m.issues[drew]--
	m.issues[d]++
	m.cur = d
}

// Restart starts a new loop. fio decides the direction of one more I/O
// before it finds the loop over (no block left), so the mix moves on
// once without an issue; then the threshold returns to zero and, with
// randrepeat, the generator to its seed.
func (m *Mixer) Restart() {
	if !m.rw.Mixed() {
		return
	}
	m.decide()
	m.until = 0
	if m.restart {
		m.rng.seed(m.seed)
	}
}
