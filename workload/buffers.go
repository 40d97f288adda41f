package workload

import ()

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

func (j *Job) DedupeSetPercent() int {
	if j.DedupeWorkingSetPercent == 0 {
		return 5 // fio's default
	}
	return j.DedupeWorkingSetPercent
}
