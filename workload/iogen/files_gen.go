package iogen

import (
	"math"

	"stortest.dev/workload"
)

// The files of a job of several files (nrfiles above 1 with an engine
// that moves data), as fio 3.33 serves them: each file has its own
// offsets (a region, a sequential position per direction, a random map),
// and before each I/O fio's get_next_file picks the file, then the
// direction and size are drawn and the offset comes from the file's
// stream. A file whose stream has run out (a sequential region walked,
// a random map full) is done when it is next picked, and the pick is
// made again; once every file is done the loop is over and the next
// starts every file afresh. With a non-uniform file service fio never
// counts a file done: it starts it over (the streams here wrap by
// themselves).

// fileServiceShift is fio's FIO_FSERVICE_SHIFT: the non-uniform
// generators draw over nrfiles<<10 values and keep the high part.
const fileServiceShift = 10

// fioSeedFile and fioSeedFileSize are fio's seed slots of the file
// service (FIO_RAND_FILE_OFF) and of the files' sizes
// (FIO_RAND_FILE_SIZE_OFF).
const (
	fioSeedFile     = 5
	fioSeedFileSize = 7
)

// fileChooser picks the file of each I/O as fio's get_next_file does.
type fileChooser struct {
	kind workload.FileServiceKind
	n    int
	nr   int // I/Os a file gets before the next pick
	left int // I/Os left to the current file before the next pick
	cur  int // the current file; -1 for none
	next int // roundrobin, sequential: the file to try next
	rng  taus88
	seed uint32
	// zipf, pareto, normal: fio's generators over nranges values.
	nranges         uint64
	theta, zetan    float64
	zeta2, paretoPw float64
	stddev          uint64
	randOff         uint64
}

func newFileChooser(fs workload.FileService, n int, seed uint32) *fileChooser {
	c := &fileChooser{kind: fs.Kind, n: n, nr: fs.PerSwitch(), cur: -1, seed: seed}
	c.reseed()
	if c.kind.NonUniform() {
		c.nranges = uint64(n) << fileServiceShift
		center := -1.0
		if fs.HasCenter {
			center = fs.Center
		}
		switch c.kind {
		case workload.ServiceZipf, workload.ServicePareto:
			c.randOff = uint64(c.rng.next())
			if center != -1 {
				c.randOff = uint64(float64(c.nranges) * center)
			}
			if c.kind == workload.ServiceZipf {
				c.theta = fs.Value()
				c.zeta2 = math.Pow(1, c.theta) + math.Pow(0.5, c.theta)
				for i := range min(c.nranges, 10000000) {
					c.zetan += math.Pow(1/float64(i+1), c.theta)
				}
			} else {
				h := fs.Value()
				c.paretoPw = math.Log(h) / math.Log(1-h)
			}
		case workload.ServiceNormal:
			if dev := fs.Value(); dev != 0 {
				c.stddev = uint64(math.Ceil(float64(c.nranges) * dev / 100))
				c.stddev = min(c.stddev, c.nranges/2)
			}
			if center != -1 {
				c.randOff = uint64(int64(float64(c.nranges) * (center - 0.5)))
			}
		}
	}
	return c
}

// reseed starts the random draws over from the seed (fio reseeds at
// each loop with randrepeat).
func (c *fileChooser) reseed() { c.rng.seed(c.seed) }

// pick returns the file of the next I/O, given which files are done
// (at least one is not) and which are open: a file not open is opened
// if fewer than maxOpen are, else fio's pick fails (EBUSY) and is made
// again, the draws going on.
func (c *fileChooser) pick(done, open []bool, nopen *int, maxOpen int) int {
	for {
		f, kept := c.pick1(done)
		if kept {
			return f
		}
		if !open[f] {
			if *nopen >= maxOpen {
				continue // fio's EBUSY: the current file stays, the next pick draws again
			}
			open[f] = true
			*nopen++
		}
		c.cur, c.left = f, c.nr-1
		return f
	}
}

// pick1 is fio's __get_next_file before the open files' limit: the
// current file, kept, or the file of a new pick.
func (c *fileChooser) pick1(done []bool) (f int, kept bool) {
	if c.cur >= 0 && !done[c.cur] {
		if c.kind == workload.ServiceSequential {
			return c.cur, true
		}
		if c.left > 0 {
			c.left--
			return c.cur, true
		}
	}
	switch c.kind {
	case workload.ServiceRoundRobin, workload.ServiceSequential:
		for {
			f = c.next
			c.next++
			if c.next >= c.n {
				c.next = 0
			}
			if !done[f] {
				break
			}
		}
	default:
		for {
			f = c.draw()
			if !done[f] {
				break
			}
		}
	}
	return f, false
}

// draw is fio's __get_next_fileno_rand.
func (c *fileChooser) draw() int {
	switch c.kind {
	case workload.ServiceZipf:
		return int(c.zipf() >> fileServiceShift)
	case workload.ServicePareto:
		r := float64(c.rng.next()) / float64(math.MaxUint32)
		v := uint64(float64(c.nranges-1) * math.Pow(r, c.paretoPw))
		return int((v + c.randOff) % c.nranges >> fileServiceShift)
	case workload.ServiceNormal:
		return int(c.gauss() >> fileServiceShift)
	}
	r := c.rng.next()
	return int(float64(c.n) * (float64(r) / (1 << 32)))
}

// zipf is fio's zipf_next with its hash off.
func (c *fileChooser) zipf() uint64 {
	n := float64(c.nranges)
	alpha := 1 / (1 - c.theta)
	eta := (1 - math.Pow(2/n, 1-c.theta)) / (1 - c.zeta2/c.zetan)
	u := float64(c.rng.next()) / float64(math.MaxUint32)
	z := u * c.zetan
	var v uint64
	switch {
	case z < 1:
		v = 1
	case z < 1+math.Pow(0.5, c.theta):
		v = 2
	default:
		v = 1 + uint64(n*math.Pow(eta*u-eta+1, alpha))
	}
	return (v - 1 + c.randOff) % c.nranges
}

// gauss is fio's gauss_next with its hash off.
func (c *fileChooser) gauss() uint64 {
	const iters = 12
	var sum uint64
	for range iters {
		sum += uint64(c.rng.next()) % (c.nranges + 1)
	}
	sum = (sum + iters - 1) / iters
	if c.stddev != 0 {
		r := c.rng.next()
		vr := int32(float64(c.stddev) * (float64(r) / (1 << 32)))
		dev := int64(int32(uint64(int64(vr)) - c.stddev/2)) // C's int from unsigned arithmetic
		for uint64(dev)+sum >= c.nranges {
			dev /= 2
		}
		sum += uint64(dev)
	}
	return (sum + c.randOff) % c.nranges
}

// fileSet is the files' state of a Pattern of several files.
type fileSet struct {
	offs  [][2]*Offsets // per file: read and write streams (the same when shared)
	sizes []int64       // per file: its region's bytes, whole smallest blocks
	base  [][2]int64    // per file: the streams' passes when the loop started
	done  []bool
	ndone int
	// open are the files fio holds open, nopen their number, at most
	// maxOpen (openfiles): a done file is closed, and every file at the
	// end of a loop.
	open    []bool
	nopen   int
	maxOpen int
	// ran: the files whose stream (one of them) ran out this loop, nran
	// their number: with every file run out the loop is over.
	ran  []bool
	nran int
	pick *fileChooser
	cur  int32 // the file of the last I/O
	// doneable: a file's stream runs out (sequential offsets, or the
	// random map of a job that is not time based) and fio counts it
	// done; otherwise the streams wrap and only bytes end a loop.
	doneable bool
	restart  bool  // a new loop reseeds the file choice (randrepeat)
	loops    int64 // loops completed
}

// ended reports whether file f's stream k has run out this loop.
func (fs *fileSet) ended(f, k int) bool { return fs.offs[f][k].Passes() > fs.base[f][k] }

// passes returns the loops over the files completed, bytes having been
// moved over total: for files that run out, the loops ended (the
// current one once every file has run out), else the bytes' worth.
func (fs *fileSet) passes(bytes, total int64) int64 {
	if !fs.doneable {
		return bytes / total
	}
	if fs.nran == len(fs.offs) {
		return fs.loops + 1
	}
	return fs.loops
}

// newLoop starts every file afresh.
func (fs *fileSet) newLoop() {
	fs.loops++
	for f := range fs.offs {
		fs.done[f] = false
		for k := range 2 {
			o := fs.offs[f][k]
			if fs.ended(f, k) {
				fs.base[f][k] = o.Passes()
			} else {
				// fio reopens the file at its start: drop what is
				// left of the stream's pass.
				o.restartPass()
				fs.base[f][k] = o.Passes()
			}
		}
	}
	fs.ndone = 0
	clear(fs.open)
	fs.nopen = 0
	clear(fs.ran)
	fs.nran = 0
	if fs.restart {
		fs.pick.reseed()
	}
}

// streams returns the offset streams of the next I/O in direction k
// (0 read, 1 write): the file picked, skipping (and counting done) those
// whose stream in that direction has run out.
func (fs *fileSet) streams(k int) [2]*Offsets {
	for {
		if fs.doneable && fs.ndone == len(fs.offs) {
			fs.newLoop()
		}
		f := fs.pick.pick(fs.done, fs.open, &fs.nopen, fs.maxOpen)
		if fs.doneable && fs.ended(f, k) {
			fs.done[f] = true
			fs.ndone++
			fs.open[f] = false
			fs.nopen--
			continue
		}
		fs.cur = int32(f)
		return fs.offs[f]
	}
}

// nextFile is NextIO of a job of several files: the file picked, then
// the I/O from its stream in direction d.
func (p *Pattern) nextFile(d workload.Dir) IO {
	k := 0
	if d == workload.DirWrite {
		k = 1
	}
	fs := p.files
	p.off = fs.streams(k)
	off, n := p.off[k].Next(p.sizes(d).Next())
	p.bytes += n
	if f := fs.cur; !fs.ran[f] && fs.ended(int(f), k) {
		fs.ran[f] = true
		fs.nran++
	}
	return IO{Dir: d, Offset: off, Len: n}
}

// newFileSet makes the files' streams of job n (normalized) from cfg,
// the one-file stream's configuration.
func newFileSet(n *workload.Job, cfg OffsetConfig, seed uint64, fileSeed uint32, restart bool) (*fileSet, int64, error) {
	sizes := n.FileSizes()
	fs := &fileSet{
		offs: make([][2]*Offsets, len(sizes)), sizes: make([]int64, len(sizes)),
		base: make([][2]int64, len(sizes)), done: make([]bool, len(sizes)), ran: make([]bool, len(sizes)),
		open: make([]bool, len(sizes)), maxOpen: len(sizes),
		pick:     newFileChooser(n.FileService, len(sizes), fileSeed),
		doneable: !n.FileService.Kind.NonUniform() && (!n.RW.Random() || (cfg.RandomMap && cfg.Dist.Canonical() == workload.Distribution{} && !n.TimeBased)),
		restart:  restart,
	}
	if n.OpenFiles > 0 {
		fs.maxOpen = min(n.OpenFiles, len(sizes))
	}
	var total int64
	for f, size := range sizes {
		c := cfg
		c.Size = size
		c.Seed = SplitMix64(seed ^ 3 ^ uint64(f)<<32)
		o, err := NewOffsets(c)
		if err != nil {
			return nil, 0, err
		}
		fs.offs[f] = [2]*Offsets{o, o}
		if n.RW == workload.ReadWrite {
			c.Seed = SplitMix64(seed ^ 4 ^ uint64(f)<<32)
			if fs.offs[f][1], err = NewOffsets(c); err != nil {
				return nil, 0, err
			}
		}
		fs.sizes[f] = o.size
		total += o.size
	}
	return fs, total, nil
}

// restartPass drops what is left of the current pass: the next offset
// is the region's first (sequential) or a new pass's (random map).
func (o *Offsets) restartPass() {
	switch o.mode {
	case modeSequential:
		if o.pos != 0 {
			o.pos, o.bytes = 0, 0
			o.pass++
		}
	case modeRandomMap:
		if o.drawn != 0 {
			o.drawn = 0
			o.pass++
			o.perm = newPermutation(o.blocks, o.passKey(o.pass))
			if o.used != nil {
				o.used.reset()
			}
		}
	}
}

// FileSeed returns the seed of fio's file service of the job's clone
// whose fio thread number is thread, and whether each loop restarts
// the draws from it, as MixSeed for the direction mix.
func FileSeed(j *workload.Job, thread int, entropy uint64) (seed uint32, restart bool) {
	return slotSeed(j, thread, fioSeedFile, entropy^0xf11e)
}

// File returns the file of the I/O NextIO returned last: 0 for a job of
// one file.
func (p *Pattern) File() int32 {
	if p.files == nil {
		return 0
	}
	return p.files.cur
}

// Files returns the number of files the pattern serves.
func (p *Pattern) Files() int {
	if p.files == nil {
		return 1
	}
	return len(p.files.offs)
}

// DrawFileSizes returns the sizes of the files of a job of several files
// with a filesize range (FileSizeMax) as fio 3.33 draws them for the
// clone whose fio thread number is thread: one draw of fio's
// file_size_state each, scaled over the range and rounded down to the
// smallest block size; the job's FileSizes without a range. The draws
// follow randseed, else fio's default seed (also under randrepeat=0,
// where fio's are random).
func DrawFileSizes(j *workload.Job, thread int) []int64 {
	if j.FileSizeMax == 0 || !j.MultiFiles() {
		return j.FileSizes()
	}
	base := j.RandSeed
	if base == 0 {
		base = workload.DefaultSeed
	}
	var rng taus88
	rng.seed(uint32(fioSeed(base, thread, fioSeedFileSize)))
	bs := j.MinBlockSize()
	sizes := make([]int64, j.DataFiles())
	for i := range sizes {
		r := rng.next()
		v := int64(float64(j.FileSizeMax-j.FileSize)*(float64(r)/(1<<32))) + j.FileSize
		sizes[i] = v - v%bs
	}
	return sizes
}
