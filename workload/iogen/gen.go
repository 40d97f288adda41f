package iogen

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// IO is one I/O the runner issues: Len bytes at Offset in direction Dir
// (DirRead or DirWrite).
type IO struct {
	Dir    workload.Dir
	Offset int64 // bytes from the start of the file or device
	Len    int64 // bytes
}

// OffsetConfig describes an offset generator.
type OffsetConfig struct {
	// Start and Size are the region in bytes. Size is rounded down to a
	// multiple of Align; offsets are Start + k*Align.
	Start, Size int64
	Align       int64 // block unit, bytes: the job's smallest block size
	Random      bool
	// RandomMap makes uniform random offsets visit every block exactly
	// once per pass (fio's default, norandommap=0) through a seeded
	// permutation of the blocks, re-keyed every pass: no map memory, like
	// fio's lfsr, while every I/O is one block. Ignored for sequential
	// offsets and for non-uniform distributions (fio disables its map for
	// those too).
	RandomMap bool
	// MaxLen is the largest I/O in bytes (0: Align). Above Align, the
	// random map also keeps a bit per block, as fio's does: an I/O uses
	// up every block it covers, is cut short at a block already used, and
	// one drawn on a used block moves to the next free one, so a pass
	// moves the region's size, not one I/O per block. The bits take
	// Size/Align/8 bytes, at most MaxMapBytes.
	MaxLen int64
	Dist   workload.Distribution // random offsets only
	Seed   uint64
	// Add is fio's offset modifier of a sequential pattern (Job.RWModifier):
	// bytes added to the offset after each I/O, negative to go backwards.
	// A pass then ends when an I/O ends at the end of the region, when
	// the next one would not fit before it, or when a region's size has
	// moved; an offset past the end wraps to the start, one before the
	// start to the end plus Add.
	Add int64
	// Quota is the bytes a pass of uniform or distribution offsets moves
	// (fio's size, which need not be a multiple of Align: the I/O that
	// reaches it ends the pass); 0 means Size rounded down.
	Quota int64
}

// MaxMapBytes bounds the random map's bits (OffsetConfig.MaxLen): 256
// MiB, a TiB in 512-byte blocks. Past it NewOffsets fails; norandommap or
// a larger smallest block size avoids the map.
const MaxMapBytes = 256 << 20

type offsetMode uint8

const (
	modeSequential offsetMode = iota
	modeRandomMap
	modeUniform
	modeDist
)

// Offsets generates the offsets of one job over its region. Next allocates
// nothing. Not safe for concurrent use.
type Offsets struct {
	start, size, align int64
	blocks             uint64
	mode               offsetMode
	seed               uint64

	pos   int64  // sequential: next offset relative to start
	add   int64  // sequential: the offset modifier
	drawn uint64 // random map: blocks drawn in this pass
	bytes int64  // uniform and distributions: bytes in this pass
	quota int64  // uniform and distributions: bytes that end a pass
	pass  int64

	perm permutation
	used *blockMap // random map with mixed sizes: the blocks used this pass
	rng  rand.PCG
	dist *Sampler
}

// ErrRegion is wrapped by errors about a region that cannot hold an I/O.
var ErrRegion = errors.New("workload: bad I/O region")

// NewOffsets returns the generator c describes.
func NewOffsets(c OffsetConfig) (*Offsets, error) {
	if c.Align <= 0 || c.Start < 0 || c.Size < c.Align {
		return nil, fmt.Errorf("%w: start %d size %d align %d (size must hold one block)", ErrRegion, c.Start, c.Size, c.Align)
	}
	o := &Offsets{
		start:  c.Start,
		size:   c.Size - c.Size%c.Align,
		align:  c.Align,
		blocks: uint64(c.Size / c.Align),
		seed:   c.Seed,
		quota:  c.Quota,
	}
	if o.quota <= 0 {
		o.quota = o.size
	}
	if !c.Random {
		o.add = c.Add
	}
	switch {
	case !c.Random:
		o.mode = modeSequential
	case c.Dist.Canonical() != workload.Distribution{}:
		o.mode = modeDist
		d, err := newSampler(c.Dist, o.blocks, c.Align, SplitMix64(c.Seed^0xd157))
		if err != nil {
			return nil, err
		}
		o.dist = d
	case c.RandomMap:
		o.mode = modeRandomMap
		o.perm = newPermutation(o.blocks, o.passKey(0))
		if c.MaxLen > c.Align {
			if o.blocks/8 > MaxMapBytes {
				return nil, fmt.Errorf("%w: the random map of %d blocks of %d bytes would take more than %d MiB (use norandommap or a larger smallest block size)",
					ErrRegion, o.blocks, c.Align, MaxMapBytes>>20)
			}
			o.used = newBlockMap(o.blocks)
		}
	default:
		o.mode = modeUniform
		o.rng.Seed(SplitMix64(c.Seed^0x0ff5), SplitMix64(c.Seed+0x0ff5))
	}
	return o, nil
}

func (o *Offsets) passKey(pass int64) uint64 {
	return SplitMix64(o.seed ^ SplitMix64(uint64(pass)+0x6d61))
}

// Next returns the offset of the next I/O of bs bytes and its length:
// bs, or less where the region ends (still a multiple of Align when bs is).
func (o *Offsets) Next(bs int64) (off, n int64) {
	var rel int64
	switch o.mode {
	case modeSequential:
		rel = o.pos
		n = min(bs, o.size-rel)
		o.pos += n
		if o.add != 0 {
			o.stride(n)
		} else if o.pos >= o.size {
			o.pos = 0
			o.pass++
		}
		return o.start + rel, n
	case modeRandomMap:
		b := o.perm.at(o.drawn)
		o.drawn++
		n = bs
		if u := o.used; u != nil {
			if u.isSet(b) {
				b = u.nextFree(b)
			}
			n = min(bs, int64(u.setRun(b, uint64((bs+o.align-1)/o.align)))*o.align)
		}
		rel = int64(b) * o.align
		// Every draw uses at least one new block, so the map fills by
		// the time the permutation is through.
		if o.drawn == o.blocks || (o.used != nil && o.used.left == 0) {
			o.drawn = 0
			o.pass++
			o.perm = newPermutation(o.blocks, o.passKey(o.pass))
			if o.used != nil {
				o.used.reset()
			}
		}
		return o.start + rel, min(n, o.size-rel)
	case modeDist:
		rel = int64(o.dist.Next()) * o.align
	default:
		rel = int64(uniform(&o.rng, o.blocks)) * o.align
	}
	n = min(bs, o.size-rel)
	o.bytes += n
	if o.bytes >= o.quota {
		o.bytes -= o.quota
		o.pass++
	}
	return o.start + rel, n
}

// stride moves a sequential position with an offset modifier on past an
// I/O of n bytes that ended at o.pos, as fio moves it.
func (o *Offsets) stride(n int64) {
	o.bytes += n
	next := o.pos + o.add
	switch {
	case o.pos >= o.size || o.bytes >= o.size:
		next = -1 // the end of the region, or a region's worth moved
	case next >= o.size:
		next = 0
	case next < 0:
		next = o.size + o.add
		if next < 0 {
			next = 0
		}
	}
	if next < 0 || next+o.align > o.size {
		o.pos, o.bytes = 0, 0
		o.pass++
		return
	}
	o.pos = next
}

// rebase moves the generator's region to start, its size unchanged, and
// starts over there (strided zones).
func (o *Offsets) rebase(start int64) {
	o.start = start
	o.pos, o.bytes, o.drawn = 0, 0, 0
	if o.used != nil {
		o.used.reset()
	}
}

// MixSeed returns the seed of the pattern's direction mix and whether
// the mix restarts from it each pass (MixSeed).
func (p *Pattern) MixSeed() (seed uint32, restart bool) { return p.mix.seed, p.mix.restart }

// Passes returns the passes completed over the region: wraps of sequential
// offsets, full permutations of the random map, else region-sizes worth of
// bytes.
func (o *Offsets) Passes() int64 { return o.pass }

// Blocks returns the number of Align-sized blocks in the region.
func (o *Offsets) Blocks() uint64 { return o.blocks }

// permutation is a seeded bijection of [0, n): a keyed mixing function
// that is a bijection of [0, 2^k) (xor with a key, multiplication by an
// odd number and xor-shift right are each invertible modulo 2^k), made a
// bijection of [0, n) by cycle walking: re-apply it until the value falls
// below n. 2^k < 2n, so a walk takes fewer than 2 steps on average. The
// value is small and copied freely; at allocates nothing.
type permutation struct {
	n     uint64
	mask  uint64
	shift uint
	key   [3]uint64
	mul   [3]uint64
}

func newPermutation(n, seed uint64) permutation {
	p := permutation{n: n}
	if n <= 1 {
		return p
	}
	k := uint(bits.Len64(n - 1)) // 2^k >= n
	p.mask = 1<<k - 1
	p.shift = (k + 1) / 2
	for i := range 3 {
		seed = SplitMix64(seed)
		p.key[i] = seed & p.mask
		seed = SplitMix64(seed)
		p.mul[i] = seed | 1
	}
	return p
}

func (p *permutation) round(x uint64) uint64 {
	for i := range 3 {
		x = ((x ^ p.key[i]) * p.mul[i]) & p.mask
		x ^= x >> p.shift
	}
	return x
}

// at returns the i-th element of the permutation, i < n.
func (p *permutation) at(i uint64) uint64 {
	if p.n <= 1 {
		return 0
	}
	x := p.round(i)
	for x >= p.n {
		x = p.round(x)
	}
	return x
}

// blockMap marks the blocks of a region used in a pass: a bit per block,
// over it a bit per full word, and so on up to a single word (the shape
// of fio's axmap), so the next free block is found in a few word reads
// however few are left. Bits past the end are set from the start. Nothing
// allocates after newBlockMap.
type blockMap struct {
	n      uint64     // blocks
	left   uint64     // blocks not used yet
	levels [][]uint64 // levels[0]: a bit per block; levels[i+1]: a bit per full word of levels[i]
}

func newBlockMap(n uint64) *blockMap {
	m := &blockMap{n: n}
	for bitsAt := n; ; {
		words := (bitsAt + 63) / 64
		m.levels = append(m.levels, make([]uint64, words))
		if words == 1 {
			break
		}
		bitsAt = words
	}
	m.reset()
	return m
}

// reset marks every block free.
func (m *blockMap) reset() {
	m.left = m.n
	bitsAt := m.n
	for _, lv := range m.levels {
		clear(lv)
		if r := bitsAt % 64; r != 0 {
			lv[len(lv)-1] = ^uint64(0) << r
		}
		bitsAt = uint64(len(lv))
	}
}

func (m *blockMap) isSet(b uint64) bool { return m.levels[0][b/64]&(1<<(b%64)) != 0 }

// set marks free block b used.
func (m *blockMap) set(b uint64) {
	m.left--
	for _, lv := range m.levels {
		w := b / 64
		lv[w] |= 1 << (b % 64)
		if lv[w] != ^uint64(0) {
			return
		}
		b = w
	}
}

// setRun marks up to k blocks from b used, stopping at the end or at a
// block already used, and returns how many it marked (fio's axmap_set_nr).
func (m *blockMap) setRun(b, k uint64) uint64 {
	var i uint64
	for ; i < k && b+i < m.n && !m.isSet(b+i); i++ {
		m.set(b + i)
	}
	return i
}

// nextFree returns the first free block after b, wrapping to the start;
// at least one must be free.
func (m *blockMap) nextFree(b uint64) uint64 {
	if f, ok := m.find(0, b); ok {
		return f
	}
	if f, ok := m.find(0, 0); ok {
		return f
	}
	panic("workload: random map: no free block left in a pass")
}

// find returns the first clear bit at or after i at level l.
func (m *blockMap) find(l int, i uint64) (uint64, bool) {
	lv := m.levels[l]
	w := i / 64
	if w >= uint64(len(lv)) {
		return 0, false
	}
	if free := ^lv[w] &^ (1<<(i%64) - 1); free != 0 {
		return w*64 + uint64(bits.TrailingZeros64(free)), true
	}
	if l+1 == len(m.levels) {
		return 0, false // the top level is one word
	}
	j, ok := m.find(l+1, w+1) // the next word that is not full
	if !ok {
		return 0, false
	}
	return j*64 + uint64(bits.TrailingZeros64(^lv[j])), true
}

// BlockSizes draws the block size of each I/O: fixed (bs), uniform over
// the multiples of the minimum (bsrange, as fio issues them), or weighted
// (bssplit). Next allocates nothing.
type BlockSizes struct {
	lo, hi int64  // smallest and largest size
	steps  uint64 // bsrange: sizes are k*lo, 1 <= k <= steps
	sizes  []int64
	cumul  []uint64 // bssplit: cumulative percentages
	rng    rand.PCG
}

// NewBlockSizes returns the block-size chooser of the job (normalized
// first), seeded.
func NewBlockSizes(j *workload.Job, seed uint64) *BlockSizes {
	n := j.Normalized()
	own := n.BlocksOf() // a job's WriteBlocks have a chooser of their own
	b := &BlockSizes{lo: own.MinSize(), hi: own.MaxSize()}
	b.rng.Seed(SplitMix64(seed^0xb5), SplitMix64(seed+0xb5))
	switch {
	case len(n.BlockSizeSplit) > 0:
		var c uint64
		for _, s := range n.BlockSizeSplit {
			if s.Percent <= 0 {
				continue
			}
			c += uint64(s.Percent)
			b.sizes = append(b.sizes, s.Size)
			b.cumul = append(b.cumul, c)
		}
	case !n.BlockSizeRange.IsZero():
		b.steps = uint64(b.hi / b.lo)
	}
	return b
}

// Next returns the size of the next I/O in bytes.
func (b *BlockSizes) Next() int64 {
	switch {
	case len(b.sizes) > 0:
		r := uniform(&b.rng, b.cumul[len(b.cumul)-1])
		for i, c := range b.cumul {
			if r < c {
				return b.sizes[i]
			}
		}
		return b.sizes[len(b.sizes)-1]
	case b.steps > 1:
		return int64(1+uniform(&b.rng, b.steps)) * b.lo
	}
	return b.lo
}

// fixed reports whether every size is the same.
func (b *BlockSizes) fixed() bool { return len(b.sizes) == 0 && b.steps <= 1 }

// Min returns the smallest size Next can return, Max the largest.
func (b *BlockSizes) Min() int64 { return b.lo }

// Max returns the largest size Next can return.
func (b *BlockSizes) Max() int64 { return b.hi }

// Pattern is the whole I/O pattern of one job clone: directions (rwmix),
// block sizes and offsets. (fsync=N is the runner's: it counts writes.)
// Sequential mixed jobs (rw) keep an
// offset stream per direction, as fio keeps a last position per
// direction; random jobs share one stream (and one random map). Next,
// NextDir and NextIO allocate nothing.
type Pattern struct {
	mix Mixer
	// drew is the direction NextDir returned, until NextIO takes it
	// (hasDrew); mixPass the passes at the last mix restart, restarts
	// whether a new pass restarts the mix (see NextDir).
	drew     workload.Dir
	hasDrew  bool
	mixPass  int64
	restarts bool
	bs       *BlockSizes
	wbs      *BlockSizes // the writes' (Job.WriteBlocks); nil: bs
	off      [2]*Offsets // [DirRead], [DirWrite]; the same when shared
	shared   bool
	size     int64 // the region's bytes
	quota    int64 // the bytes a pass moves (see Limit)
	bytes    int64
	// trimmed is the last trim of a trimwrite job, which the next write
	// rewrites: the same offset and length; until then the passes are
	// those before the trim (trimPasses), so a pass ends with its write.
	trimmed    IO
	trimPasses int64
	// seqN is a random job's offset modifier (rw=randread:N): one I/O in
	// seqN draws a random offset, the others follow the last I/O of
	// their direction (or repeat it: seqSame). seqAt counts the I/Os.
	seqN    int64
	seqSame bool
	seqAt   int64
	last    [2]IO
	// percRand is percentage_random by direction (read, write): an I/O
	// draws a random offset with this probability in percent, else
	// follows the last one of its direction; nil when every I/O is
	// random.
	percRand *[2]int64
	percRNG  rand.PCG
	// byBytes: a pass is the region's size moved (random offset
	// modifiers, whose sequential I/Os the offset streams do not see;
	// strided zones).
	byBytes bool
	zones   *zones // zonemode=strided; nil otherwise
	// files are the streams of a job of several files, one pair each
	// (files_gen.go); nil for one file.
	files *fileSet
	// fixed: one direction (dir), one block size and one offset stream,
	// none of the above; nextFixed draws such a job's I/O.
	fixed bool
	dir   workload.Dir
}

// NewPattern returns the pattern of job j (validated, then normalized) on
// a file or device of fileSize bytes (0 if unknown: then j.Size must be
// set, and the file ends with the region), with the seed of the clone
// (Seed). The region is fio's: [j.Offset, j.FileSize) with a
// filesize, else [j.Offset, j.Offset+j.Size), or up to fileSize when
// j.Size is 0; random offsets take its whole blocks of the smallest block
// size; sequential ones of one block size start inside it and end inside
// the file, so the last may run past the region's end when the file goes
// on. A pass moves the region's offsets, or the job's size (j.Size, at
// most the region) where that ends it first, as fio counts the bytes it
// issues: see Limit. The directions are those fio draws for the first job
// of a run (thread number 1; see MixSeed), or, with randrepeat=0, from
// seed.
func NewPattern(j *workload.Job, fileSize int64, seed uint64) (*Pattern, error) {
	return NewClonePattern(j, fileSize, seed, 1, seed)
}

// newPattern is NewPattern for the clone with fio's thread number thread,
// entropy seeding the directions of a job without randrepeat.
func NewClonePattern(j *workload.Job, fileSize int64, seed uint64, thread int, entropy uint64) (*Pattern, error) {
	if err := validate.Job(j); err != nil {
		return nil, err
	}
	n := j.Normalized()
	// size is fio's per-file io_size: the region offsets are drawn in;
	// quota is the job's size as fio settles it, the bytes a pass moves.
	size := n.Size
	switch {
	case fileSize < 0:
		return nil, fmt.Errorf("%w: file size %d", ErrRegion, fileSize)
	case n.FileSize > 0:
		// fio: filesize sizes the region, from the offset to its end;
		// size only bounds the bytes moved. (The files of a file
		// engine's job follow each other.)
		size = n.FileSize*int64(n.NumFiles()) - n.Offset
		if size <= 0 {
			return nil, fmt.Errorf("%w: job %q: offset %d is past the filesize (%d bytes)", ErrRegion, n.Name, n.Offset, n.FileSize)
		}
		if fileSize > 0 && n.Offset+size > fileSize {
			return nil, fmt.Errorf("%w: job %q: filesize %d is past the end of the file (%d bytes)", ErrRegion, n.Name, n.FileSize, fileSize)
		}
	case size == 0 && fileSize == 0:
		return nil, fmt.Errorf("%w: job %q: size is needed when the file size is unknown", ErrRegion, n.Name)
	case size == 0:
		size = fileSize - n.Offset
		if size <= 0 {
			return nil, fmt.Errorf("%w: job %q: offset %d is past the end of the file (%d bytes)", ErrRegion, n.Name, n.Offset, fileSize)
		}
	case fileSize > 0 && n.Offset+size > fileSize:
		return nil, fmt.Errorf("%w: job %q: offset %d + size %d is past the end of the file (%d bytes)", ErrRegion, n.Name, n.Offset, size, fileSize)
	}
	quota := size
	if n.Size > 0 {
		quota = min(n.Size, size)
	}
	align := n.MinBlockSize()
	if quota < align {
		return nil, fmt.Errorf("%w: job %q: region of %d bytes is smaller than a block (%d)", ErrRegion, n.Name, quota, align)
	}
	if !n.RW.Random() && n.RWModifier == 0 && !n.Strided() && n.WriteBlocks == nil && align == n.MaxBlockSize() {
		// fio issues a sequential I/O of one block size that starts
		// inside the region and ends inside the file: the last may
		// cross the region's end, where the file (or device) goes on.
		end := fileSize
		if fileSize == 0 {
			end = n.Offset + size // laid out to the region's end
		}
		room := end - n.Offset
		size = min((size+align-1)/align*align, room-room%align)
	}
	mixSeed, restart := MixSeed(&n, thread, entropy)
	p := &Pattern{
		mix:   NewMixer(n.RW, n.RWMixRead, mixSeed),
		bs:    NewBlockSizes(&n, SplitMix64(seed^2)),
		size:  size - size%align,
		quota: quota,
	}
	p.mix.restart = restart
	if w := n.WriteBlocks; w != nil {
		wj := n.WithBlocks(*w)
		p.wbs = NewBlockSizes(&wj, SplitMix64(seed^5))
	}
	cfg := OffsetConfig{
		Start: n.Offset, Size: size, Align: align, MaxLen: n.MaxBlockSize(),
		Random: n.RW.Random(), RandomMap: !n.NoRandomMap,
		Dist: n.RandomDistribution, Seed: SplitMix64(seed ^ 3), Add: n.RWModifier,
		Quota: quota,
	}
	if n.RW.Random() {
		if n.BlockAlign > 0 {
			// fio: blockalign turns the random map off.
			cfg.Align, cfg.RandomMap = n.BlockAlign, false
		}
		if n.RWModifier > 1 {
			p.seqN, p.seqSame, p.byBytes = n.RWModifier, n.RWSequencer == "identical", true
		} else if ps := n.PercentSequential; ps[0] > 0 || ps[1] > 0 {
			p.percRand, p.byBytes = &[2]int64{100 - ps[0], 100 - ps[1]}, true
			p.percRNG.Seed(SplitMix64(seed^6), 0)
		}
	}
	if n.Strided() {
		// The zones span the file from the offset; size is what moves.
		end := n.Offset + size
		if fileSize > 0 {
			end = fileSize
		}
		p.zones = newZones(&n, n.Offset, end)
		cfg.Size = p.zones.rng
		p.byBytes = true
		// A pass is the size moved over the zones, in whole blocks.
		p.size = quota - quota%align
		p.quota, cfg.Quota = p.size, 0
	}
	var err error
	if n.MultiFiles() {
		// Several files: each its own streams (files_gen.go).
		fseed, frestart := FileSeed(&n, thread, entropy)
		if p.files, _, err = newFileSet(&n, cfg, seed, fseed, frestart); err != nil {
			return nil, err
		}
		// A loop of files that do not run out is their bytes as fio
		// counts them: the regions' sizes as they are, at most size.
		p.size = n.TotalSize()
		p.off = p.files.offs[0]
		p.shared = n.RW != workload.ReadWrite
		p.restarts = n.RW.Mixed() && p.files.doneable
		return p, nil
	}
	if p.off[0], err = NewOffsets(cfg); err != nil {
		return nil, err
	}
	p.off[1] = p.off[0]
	p.shared = true
	if !n.RW.Mixed() && !n.RW.TrimWrites() && p.wbs == nil && p.bs.fixed() && p.seqN == 0 && p.percRand == nil && p.zones == nil {
		p.fixed, p.dir = true, p.mix.Next() // the same direction every time
	}
	// fio ends a loop, and restarts the mix, where an offset cannot be
	// had: only the random map runs out, once a pass. Without it the
	// loops' bytes go in one run of fio's, with one mix.
	p.restarts = n.RW.Mixed() && !n.TimeBased && p.off[0].mode == modeRandomMap && !p.byBytes
	if n.RW == workload.ReadWrite {
		cfg.Seed = SplitMix64(seed ^ 4)
		if p.off[1], err = NewOffsets(cfg); err != nil {
			return nil, err
		}
		p.shared = false
	}
	return p, nil
}

// NextDir returns the direction of the next I/O, the rwmix draw. The
// runner may issue another direction instead (see Pacer.Choose); NextIO
// tells the mix. A random mixed job with the random map restarts its mix
// with each pass, as fio with each loop. (fio ends a loop of rw, sequential,
// where the direction decided finds its stream at the end of the region,
// after about twice the size at 50%; this pattern's passes are the size,
// so its mix does not restart.)
func (p *Pattern) NextDir() workload.Dir {
	if p.restarts {
		if n := p.Passes(); n > p.mixPass {
			p.mixPass = n
			p.mix.Restart()
		}
	}
	p.drew, p.hasDrew = p.mix.Next(), true
	return p.drew
}

// NextIO returns the next I/O in direction d: the block size draw and the
// offset from d's stream; for a trimwrite job's write, the block its trim
// just discarded.
func (p *Pattern) NextIO(d workload.Dir) IO {
	if p.hasDrew {
		p.hasDrew = false
		p.mix.Switched(p.drew, d)
	}
	if p.mix.rw.TrimWrites() {
		return p.nextTrimWrite(d)
	}
	if p.seqN > 0 || p.percRand != nil {
		return p.nextSequenced(d)
	}
	if p.files != nil {
		return p.nextFile(d)
	}
	o := p.off[0]
	if d == workload.DirWrite {
		o = p.off[1]
	}
	off, n := o.Next(p.sizes(d).Next())
	p.bytes += n
	if p.zones != nil && p.zones.next(n) {
		p.off[0].rebase(p.zones.at)
		p.off[1].rebase(p.zones.at)
	}
	return IO{Dir: d, Offset: off, Len: n}
}

// Fixed reports whether the pattern has one direction, one block size
// and one offset stream and nothing else (no mix, size chooser, offset
// modifier of a random job, percentage_random or zones), and that
// direction: NextFixed then draws its I/Os.
func (p *Pattern) Fixed() (workload.Dir, bool) { return p.dir, p.fixed }

// NextFixed is Next of a Fixed pattern: no mix to draw, no size to
// choose.
func (p *Pattern) NextFixed() IO {
	off, n := p.off[0].Next(p.bs.lo)
	p.bytes += n
	return IO{Dir: p.dir, Offset: off, Len: n}
}

// sizes returns the block-size chooser of direction d.
func (p *Pattern) sizes(d workload.Dir) *BlockSizes {
	if d == workload.DirWrite && p.wbs != nil {
		return p.wbs
	}
	return p.bs
}

// nextSequenced is NextIO of a random job with an offset modifier or
// percentage_random: every seqN-th I/O (or one in percRand percent)
// draws a random offset; the others follow the last I/O of their
// direction, or repeat its offset, and draw a random one only where the
// region ends.
func (p *Pattern) nextSequenced(d workload.Dir) IO {
	bs := p.sizes(d).Next()
	k := 0
	if d == workload.DirWrite {
		k = 1
	}
	at := p.seqAt
	p.seqAt++
	last := p.last[k]
	var random bool
	if p.percRand != nil {
		random = int64(uniform(&p.percRNG, 100))+1 <= p.percRand[k] // fio: 1..100 <= percentage
	} else {
		random = at%p.seqN == 0
	}
	if !random && last.Len > 0 {
		off := last.Offset
		if !p.seqSame {
			off += last.Len
		}
		start, size := p.Region()
		if end := start + size; off+bs <= end {
			io := IO{Dir: d, Offset: off, Len: bs}
			p.bytes += bs
			p.last[k] = io
			return io
		}
	}
	off, n := p.off[k].Next(bs)
	p.bytes += n
	p.last[k] = IO{Dir: d, Offset: off, Len: n}
	return p.last[k]
}

// nextTrimWrite is NextIO of a trimwrite job: a write rewrites the block
// just trimmed; anything else is the next trim.
func (p *Pattern) nextTrimWrite(d workload.Dir) IO {
	if d == workload.DirWrite && p.trimmed.Len > 0 {
		w := p.trimmed
		w.Dir, p.trimmed = workload.DirWrite, IO{}
		p.bytes += w.Len
		return w
	}
	p.trimPasses = p.Passes()
	off, n := p.off[0].Next(p.bs.Next())
	p.bytes += n
	p.trimmed = IO{Dir: workload.DirTrim, Offset: off, Len: n}
	return p.trimmed
}

// Next returns NextIO(NextDir()).
func (p *Pattern) Next() IO { return p.NextIO(p.NextDir()) }

// Passes returns the passes completed over the region; a job that is not
// time based is done after Loops passes. With a random map a pass is one
// visit of every block; otherwise it is the region's size in bytes issued.
func (p *Pattern) Passes() int64 {
	if p.trimmed.Len > 0 {
		return p.trimPasses // the pass's last write is still to come
	}
	switch {
	case p.files != nil:
		return p.files.passes(p.bytes, p.size)
	case p.byBytes:
		return p.bytes / p.quota
	case p.shared:
		return p.off[0].Passes()
	}
	// rw: the job ends where either direction's stream reaches the end,
	// as fio's does, or where the size has moved.
	return max(p.bytes/p.quota, p.off[0].Passes(), p.off[1].Passes())
}

// Limit returns the bytes a pass moves when they end it before its
// offsets do (fio's size, where filesize makes the region larger, or
// where the region's last block runs on into the file), else 0: a job
// that is not time based and has no io_size is done once it has moved
// Limit times Loops bytes, fio's count, or else after Loops passes.
func (p *Pattern) Limit() int64 {
	if p.shared && !p.byBytes && p.off[0].mode != modeUniform && p.off[0].mode != modeDist && p.size > p.quota {
		return p.quota
	}
	return 0
}

// Region returns the region's start and size in bytes.
func (p *Pattern) Region() (start, size int64) { return p.off[0].start, p.size }
