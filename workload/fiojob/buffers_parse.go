package fiojob

import (
	"fmt"
	"strings"

	"stortest.dev/workload"
)

// buffersString prints Buffers' options in job-file syntax, for
// Format.
func buffersString(j *workload.Job) string {
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
