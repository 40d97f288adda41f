package workload

// zones walks a strided job's zones: the offset streams are moved to each
// zone in turn.
type zones struct {
	start, end int64 // the zones' extent: the job's offset to the end of the file
	rng, step  int64 // a zone's bytes; from one zone's start to the next's
	size       int64 // bytes moved in a zone before the next
	at, moved  int64 // the current zone's start; bytes moved in it
}

func newZones(j *Job, start, end int64) *zones {
	rng := j.ZoneRange
	if rng == 0 {
		rng = j.ZoneSize
	}
	rng = min(rng, end-start)
	return &zones{start: start, end: end, rng: rng, step: rng + j.ZoneSkip, size: j.ZoneSize, at: start}
}

// next accounts n bytes and reports whether the job moves to the next
// zone, which Rebase then applies.
func (z *zones) next(n int64) bool {
	z.moved += n
	if z.moved < z.size {
		return false
	}
	z.moved = 0
	z.at += z.step
	if z.at+z.rng > z.end {
		z.at = z.start
	}
	return true
}
