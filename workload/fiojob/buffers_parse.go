package fiojob

import (
	"strconv"

	"stortest.dev/workload"
)

// buffersString prints Buffers' options in job-file syntax, for
// Format.
func buffersString(j *workload.Job) string {
	var b jobText
	b.str("buffer_pattern", j.BufferPattern)
	b.flag("zero_buffers", j.ZeroBuffers)
	b.flag("refill_buffers", j.RefillBuffers)
	b.unflag("scramble_buffers", j.NoScramble)
	b.num("buffer_compress_percentage", int64(j.BufferCompress), 0)
	if j.CompressChunk != 0 {
		b.kv("buffer_compress_chunk", strconv.FormatInt(max(j.CompressChunk, 0), 10))
	}
	b.num("dedupe_percentage", int64(j.DedupePercentage), 0)
	if j.DedupeWorkingSet {
		b.kv("dedupe_mode", "working_set")
	}
	b.num("dedupe_working_set_percentage", int64(j.DedupeWorkingSetPercent), 0)
	b.flag("dedupe_global", j.DedupeGlobal)
	return b.String()
}
