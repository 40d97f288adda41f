package iogen

import (
	"encoding/binary"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// Buffer contents at run time: what each write carries.

// bufFill writes the data of a job clone's writes when verify does not.
// Nothing is allocated after newBufFill: the working set is a range of
// block numbers whose data is a function of the number, not a copy.
type BufFill struct {
	pattern  []byte // buffer_pattern; nil for none
	zero     bool   // zero_buffers (or compress 100 without a pattern)
	chunked  bool   // compress or dedupe: data per chunk from a block key
	refill   bool   // fill every write
	scramble bool   // scramble every write (not refilled)
	comp     int    // percentage of each chunk that is zeros or pattern
	chunk    int    // bytes per chunk, 0 for the whole block
	dedupe   uint64 // percentage of writes that repeat a block
	ws       bool   // dedupe_mode=working_set
	wsBlocks uint64 // blocks in the working set
	perJob   uint64 // global: working-set blocks of each job
	self     uint64 // this clone's place among the run's clones
	jobs     uint64 // global: clones in the run; 1 otherwise
	base     uint64 // shared by the run's jobs: keys of job p from base and p
	rng      uint64 // SplitMix64 state: dedupe and working-set draws
	uniq     uint64 // unique blocks made so far
	last     uint64 // key of the last unique block
}

// newBufFill returns the filler of job's clone jobNum (1-based among the
// run's clones clones).
func NewBufFill(j *workload.Job, jobNum, clones int) *BufFill {
	f := &BufFill{
		zero:   j.ZeroBuffers,
		refill: j.RefillBuffers,
		comp:   j.BufferCompress,
		dedupe: uint64(j.DedupePercentage),
		ws:     j.DedupeWorkingSet,
		self:   uint64(max(jobNum-1, 0)),
		jobs:   1,
		base:   Seed(j, 0, 1),
	}
	f.rng = SplitMix64(f.base ^ (f.self+1)*0xd1b54a32d192ed03)
	f.pattern, _ = fio.ParseBufferPattern(j.BufferPattern) // validated
	if f.pattern != nil {
		f.zero = false
		f.refill = f.refill || j.BufferCompress > 0 || j.RW.Reads()
	}
	// fio scrambles no job with a compress or dedupe percentage.
	scrambleOK := !j.NoScramble && !j.ZeroBuffers && f.pattern == nil && j.BufferCompress == 0 && j.DedupePercentage == 0
	if f.comp == 100 {
		f.zero, f.comp = f.pattern == nil, 0
	}
	f.chunked = f.comp > 0 || f.dedupe > 0
	if f.chunked {
		f.refill = true
	}
	switch {
	case j.CompressChunk == 0:
		f.chunk = 512
	case j.CompressChunk > 0:
		f.chunk = int(j.CompressChunk)
	}
	if f.ws && f.dedupe > 0 {
		minBS := uint64(max(j.MinBlockSize(), 1))
		f.wsBlocks = max(uint64(j.Size)*uint64(j.DedupeSetPercent())/100/minBS, 1)
		f.perJob = f.wsBlocks
		if j.DedupeGlobal && clones > 1 {
			f.jobs = uint64(clones)
			f.perJob = max(f.wsBlocks/f.jobs, 1)
		}
	}
	f.last = f.key(f.self, 0)
	f.scramble = scrambleOK && !f.refill && !f.chunked
	return f
}

// key is the key of unique block k of clone p.
func (f *BufFill) key(p, k uint64) uint64 {
	return SplitMix64(SplitMix64(f.base^(p+1)*0x9e3779b97f4a7c15) ^ k*0xbf58476d1ce4e5b9)
}

// draw returns the next value of the filler's generator.
func (f *BufFill) draw() uint64 {
	f.rng += 0x9e3779b97f4a7c15
	return mix64(f.rng)
}

// perWrite reports whether writes change their buffer at all.
func (f *BufFill) PerWrite() bool { return f.refill || f.scramble }

// initBuf fills a buffer at the start.
func (f *BufFill) InitBuf(b []byte) {
	f.fill(b)
}

// write prepares the buffer of a write at offset, at time now (ns).
func (f *BufFill) FillWrite(b []byte, offset, now int64) {
	switch {
	case f.refill:
		f.fill(b)
	case f.scramble:
		scramble(b, offset, now)
	}
}

// fill writes one buffer's data.
func (f *BufFill) fill(b []byte) {
	switch {
	case f.chunked:
		f.fillChunks(b, f.blockKey())
	case f.pattern != nil:
		repeatPattern(b, f.pattern)
	case f.zero:
		clear(b)
	default:
		fillRandom(b, f.nextUnique())
	}
}

// nextUnique returns the key of a new unique block.
func (f *BufFill) nextUnique() uint64 {
	k := f.key(f.self, f.uniq)
	f.uniq++
	f.last = k
	return k
}

// blockKey decides whether the next block repeats one (dedupe) and
// returns its key.
func (f *BufFill) blockKey() uint64 {
	if f.dedupe == 0 || f.draw()%100 >= f.dedupe {
		return f.nextUnique()
	}
	if !f.ws {
		return f.last
	}
	i := f.draw() % f.wsBlocks
	// Block i of the working set: with dedupe_global the set is cut in
	// runs of perJob blocks, the first this clone's, the next the next
	// clone's, and so on round the run, each run a clone's first unique
	// blocks.
	p := (f.self + i/f.perJob) % f.jobs
	return f.key(p, i%f.perJob)
}

// fillChunks writes a block from its key: each chunk its random part,
// then zeros or the pattern.
func (f *BufFill) fillChunks(b []byte, key uint64) {
	chunk := f.chunk
	if chunk <= 0 || chunk > len(b) {
		chunk = len(b)
	}
	for i, c := 0, uint64(0); i < len(b); i, c = i+chunk, c+1 {
		d := b[i:min(i+chunk, len(b))]
		r := chunk * (100 - f.comp) / 100
		r = min(r, len(d))
		fillRandom(d[:r], key^c*0x94d049bb133111eb)
		if f.pattern != nil {
			repeatPattern(d[r:], f.pattern)
		} else {
			clear(d[r:])
		}
	}
}

// fillRandom writes pseudo-random bytes from key: a counter-based
// SplitMix64 stream, 8 bytes per step.
func fillRandom(d []byte, key uint64) {
	key = SplitMix64(key)
	i := 0
	for ; i+8 <= len(d); i += 8 {
		key += 0x9e3779b97f4a7c15
		binary.LittleEndian.PutUint64(d[i:], mix64(key))
	}
	if i < len(d) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], mix64(key+0x9e3779b97f4a7c15))
		copy(d[i:], tail[:])
	}
}

// repeatPattern fills d with p repeated.
func repeatPattern(d, p []byte) {
	n := copy(d, p)
	for n < len(d) {
		n += copy(d[n:], d[:n])
	}
}

// scramble makes a reused buffer differ from its last write, as fio's
// scramble_buffers does: in each 512 bytes, the offset in one of the
// eight 64-byte lines (picked by time and offset) and the time at the
// end of the first line.
func scramble(b []byte, offset, now int64) {
	line := int((uint64(now)^uint64(offset))&7) << 6
	for i := 0; i+512 <= len(b); i += 512 {
		p := b[i : i+512]
		binary.LittleEndian.PutUint64(p[line:], uint64(offset+int64(i)))
		binary.LittleEndian.PutUint64(p[48:], uint64(now/1e9))
		binary.LittleEndian.PutUint64(p[56:], uint64(now%1e9))
	}
}
