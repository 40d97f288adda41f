package validate

import (
	"fmt"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// validateBuffers checks Buffers' fields of the normalized job: the
// option and why, or "".
func validateBuffers(j *workload.Job) (string, string) {
	if _, err := fio.ParseBufferPattern(j.BufferPattern); err != nil {
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
	if j.Verify != workload.VerifyNone {
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
		if j.DedupePercentage+j.DedupeSetPercent() > 100 {
			return "dedupe_working_set_percentage", fmt.Sprintf("%d%% working set and %d%% duplicates exceed 100%% (as in fio)",
				j.DedupeSetPercent(), j.DedupePercentage)
		}
	}
	return "", ""
}
