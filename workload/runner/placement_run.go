package runner

import (
	"os"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// sizeOfPercent returns the job's size as fio 3.33 takes size=N% on a
// file or device of size bytes: N% of it, at most what lies past
// Offset, rounded down to the smallest block size.
func sizeOfPercent(j *workload.Job, size int64) int64 {
	n := size / 100 * int64(j.SizePercent)
	n += size % 100 * int64(j.SizePercent) / 100
	n = min(n, size-j.Offset)
	if bs := j.MinBlockSize(); bs > 0 {
		n -= n % bs
	}
	return max(n, 0)
}

// withOffsetOfPercent returns the job with OffsetPercent resolved to
// Offset on its file or device as it is before anything is laid out (a
// file made for the job starts at 0, as in fio).
func withOffsetOfPercent(j workload.Job) workload.Job {
	var size int64
	if f, err := os.Open(j.Filename); err == nil {
		if n, err := engines.Size(f); err == nil {
			size = n
		}
		f.Close()
	}
	j.Offset, j.OffsetPercent = offsetOfPercent(&j, size), 0
	return j
}

// offsetOfPercent returns the offset as fio 3.33 places offset=N% on a
// file or device of size bytes: N% of it, rounded up to offset_align,
// else to the smallest block size.
func offsetOfPercent(j *workload.Job, size int64) int64 {
	off := size/100*int64(j.OffsetPercent) + size%100*int64(j.OffsetPercent)/100
	align := j.OffsetAlign
	if align <= 0 {
		align = j.MinBlockSize()
	}
	if align > 0 && off%align != 0 {
		off += align - off%align
	}
	return off
}
