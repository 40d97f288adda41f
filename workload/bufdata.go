package workload

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Buffers are fio's options about what a job's writes carry; Job
// embeds it, so the fields read as Job's. By default, as in fio, each
// I/O buffer is filled with pseudo-random bytes once, at the start, and
// every write scrambles it lightly (the offset and the time in each 512
// bytes) so that no two written blocks are equal. With verify on, the
// verifier writes the data and these options change nothing, except
// that BufferCompress and DedupePercentage are refused: stortest's
// verified blocks cannot be made compressible or duplicate.
type Buffers struct {
	// BufferPattern is fio's buffer_pattern in fio's pattern syntax (see
	// ParseBufferPattern): buffers hold the pattern repeated, and neither
	// zero_buffers nor scrambling applies. With BufferCompress the
	// pattern fills the compressible part of each chunk in place of zeros.
	BufferPattern string `json:"buffer_pattern,omitempty"`
	// ZeroBuffers is fio's zero_buffers: buffers hold zeros, and writes
	// are not scrambled.
	ZeroBuffers bool `json:"zero_buffers,omitempty"`
	// RefillBuffers is fio's refill_buffers: every write's buffer is
	// filled anew. BufferCompress below 100, DedupePercentage, and a
	// BufferPattern on a job that reads too imply it, as in fio.
	RefillBuffers bool `json:"refill_buffers,omitempty"`
	// NoScramble is fio's scramble_buffers=0 (fio's default is 1).
	NoScramble bool `json:"scramble_buffers_off,omitempty"`
	// BufferCompress is fio's buffer_compress_percentage (0-100): each
	// chunk of CompressChunk bytes starts with (100-BufferCompress)% of
	// pseudo-random bytes and ends with zeros (or BufferPattern), so a
	// compressor shrinks the block to about 100-BufferCompress percent.
	// 100 is zero_buffers (or the pattern).
	BufferCompress int `json:"buffer_compress_percentage,omitempty"`
	// CompressChunk is fio's buffer_compress_chunk in bytes; 0 is fio's
	// default, 512, and -1 is fio's 0: one chunk per block.
	CompressChunk int64 `json:"buffer_compress_chunk,omitempty"`
	// DedupePercentage is fio's dedupe_percentage (0-100): that share of
	// the writes, drawn at random, carries the data of an earlier write
	// (the last unique one, or with DedupeWorkingSet one of the working
	// set) rather than fresh data.
	DedupePercentage int `json:"dedupe_percentage,omitempty"`
	// DedupeWorkingSet is fio's dedupe_mode=working_set (false: repeat):
	// duplicates repeat one of the job's first unique blocks, drawn
	// uniformly, the working set being DedupeWorkingSetPercent percent of
	// Size in blocks of the smallest write size.
	DedupeWorkingSet bool `json:"dedupe_working_set,omitempty"`
	// DedupeWorkingSetPercent is fio's dedupe_working_set_percentage; 0 is
	// fio's default, 5.
	DedupeWorkingSetPercent int `json:"dedupe_working_set_percentage,omitempty"`
	// DedupeGlobal is fio's dedupe_global: the working set is spread
	// evenly over the run's jobs (every clone of every job, in order), so
	// a job's duplicates repeat other jobs' unique blocks too.
	DedupeGlobal bool `json:"dedupe_global,omitempty"`
}

// validateBuffers checks Buffers' fields of the normalized job: the
// option and why, or "".
func (j *Job) validateBuffers() (string, string) {
	if _, err := ParseBufferPattern(j.BufferPattern); err != nil {
		return "buffer_pattern", err.Error()
	}
	switch {
	case j.BufferCompress < 0 || j.BufferCompress > 100:
		return "buffer_compress_percentage", fmt.Sprintf("%d is outside 0-100", j.BufferCompress)
	case j.DedupePercentage < 0 || j.DedupePercentage > 100:
		return "dedupe_percentage", fmt.Sprintf("%d is outside 0-100", j.DedupePercentage)
	case j.DedupeWorkingSetPercent < 0 || j.DedupeWorkingSetPercent > 100:
		return "dedupe_working_set_percentage", fmt.Sprintf("%d is outside 0-100", j.DedupeWorkingSetPercent)
	case j.CompressChunk < -1:
		return "buffer_compress_chunk", fmt.Sprintf("%d bytes", j.CompressChunk)
	}
	if j.Verify != VerifyNone {
		// fio accepts these and lets verify's data win: the job then
		// writes neither duplicates nor the asked compressibility.
		if j.DedupePercentage > 0 {
			return "dedupe_percentage", "with verify is not supported by stortest: verified blocks carry their offset, so none repeats another"
		}
		if j.BufferCompress > 0 && j.BufferCompress < 100 {
			return "buffer_compress_percentage", "with verify is not supported by stortest: verified blocks are pseudo-random"
		}
	}
	if j.DedupePercentage > 0 && j.DedupeWorkingSet {
		if j.Size <= 0 {
			return "dedupe_mode", "working_set needs size (as in fio)"
		}
		if j.DedupePercentage+j.dedupeSetPercent() > 100 {
			return "dedupe_working_set_percentage", fmt.Sprintf("%d%% working set and %d%% duplicates exceed 100%% (as in fio)",
				j.dedupeSetPercent(), j.DedupePercentage)
		}
	}
	return "", ""
}

func (j *Job) dedupeSetPercent() int {
	if j.DedupeWorkingSetPercent == 0 {
		return 5 // fio's default
	}
	return j.DedupeWorkingSetPercent
}

// buffersString prints Buffers' options in job-file syntax, for
// Job.String.
func (j *Job) buffersString() string {
	var b strings.Builder
	if j.BufferPattern != "" {
		fmt.Fprintf(&b, "buffer_pattern=%s\n", j.BufferPattern)
	}
	if j.ZeroBuffers {
		b.WriteString("zero_buffers=1\n")
	}
	if j.RefillBuffers {
		b.WriteString("refill_buffers=1\n")
	}
	if j.NoScramble {
		b.WriteString("scramble_buffers=0\n")
	}
	if j.BufferCompress != 0 {
		fmt.Fprintf(&b, "buffer_compress_percentage=%d\n", j.BufferCompress)
	}
	if j.CompressChunk != 0 {
		fmt.Fprintf(&b, "buffer_compress_chunk=%d\n", max(j.CompressChunk, 0))
	}
	if j.DedupePercentage != 0 {
		fmt.Fprintf(&b, "dedupe_percentage=%d\n", j.DedupePercentage)
	}
	if j.DedupeWorkingSet {
		b.WriteString("dedupe_mode=working_set\n")
	}
	if j.DedupeWorkingSetPercent != 0 {
		fmt.Fprintf(&b, "dedupe_working_set_percentage=%d\n", j.DedupeWorkingSetPercent)
	}
	if j.DedupeGlobal {
		b.WriteString("dedupe_global=1\n")
	}
	return b.String()
}

// ParseBufferPattern parses fio's buffer_pattern syntax: 0x-hexadecimal
// byte strings, "double-quoted" text and decimal numbers (-2^31 to
// 2^31-1, written little endian in as few bytes as hold them, one zero
// byte for 0), concatenated in any order, at most 512 bytes. fio's
// 'filename' (a pattern read from a file) is not supported. "" returns
// nil.
func ParseBufferPattern(s string) ([]byte, error) {
	return parsePattern(s, true)
}

// appendDecimal parses the decimal number at the start of s, as fio's
// patterns write it, onto out; it returns the rest of s.
func appendDecimal(out []byte, s string) ([]byte, string, error) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && !(s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X')) {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 32)
	if err != nil {
		return nil, "", fmt.Errorf("%q: not a 32-bit decimal number", s[:i])
	}
	if n == 0 {
		return append(out, 0), s[i:], nil
	}
	for v := uint32(n); v != 0; v >>= 8 {
		out = append(out, byte(v))
	}
	return out, s[i:], nil
}

// bufFill writes the data of a job clone's writes when verify does not.
// Nothing is allocated after newBufFill: the working set is a range of
// block numbers whose data is a function of the number, not a copy.
type bufFill struct {
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
func newBufFill(j *Job, jobNum, clones int) *bufFill {
	f := &bufFill{
		zero:   j.ZeroBuffers,
		refill: j.RefillBuffers,
		comp:   j.BufferCompress,
		dedupe: uint64(j.DedupePercentage),
		ws:     j.DedupeWorkingSet,
		self:   uint64(max(jobNum-1, 0)),
		jobs:   1,
		base:   j.Seed(0, 1),
	}
	f.rng = splitmix(f.base ^ (f.self+1)*0xd1b54a32d192ed03)
	f.pattern, _ = ParseBufferPattern(j.BufferPattern) // validated
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
		f.wsBlocks = max(uint64(j.Size)*uint64(j.dedupeSetPercent())/100/minBS, 1)
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
func (f *bufFill) key(p, k uint64) uint64 {
	return splitmix(splitmix(f.base^(p+1)*0x9e3779b97f4a7c15) ^ k*0xbf58476d1ce4e5b9)
}

// draw returns the next value of the filler's generator.
func (f *bufFill) draw() uint64 {
	f.rng += 0x9e3779b97f4a7c15
	return mix64(f.rng)
}

// perWrite reports whether writes change their buffer at all.
func (f *bufFill) perWrite() bool { return f.refill || f.scramble }

// initBuf fills a buffer at the start.
func (f *bufFill) initBuf(b []byte) {
	f.fill(b)
}

// write prepares the buffer of a write at offset, at time now (ns).
func (f *bufFill) write(b []byte, offset, now int64) {
	switch {
	case f.refill:
		f.fill(b)
	case f.scramble:
		scramble(b, offset, now)
	}
}

// fill writes one buffer's data.
func (f *bufFill) fill(b []byte) {
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
func (f *bufFill) nextUnique() uint64 {
	k := f.key(f.self, f.uniq)
	f.uniq++
	f.last = k
	return k
}

// blockKey decides whether the next block repeats one (dedupe) and
// returns its key.
func (f *bufFill) blockKey() uint64 {
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
func (f *bufFill) fillChunks(b []byte, key uint64) {
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
	key = splitmix(key)
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
