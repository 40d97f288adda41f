package workload

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"stortest.dev/latency"
)

// Append folds next, a continuation of the same job clone run right
// after r (the same job with a new runtime and no ramp, as an extended
// comparison runs it), into r: counts add, histograms merge, next's
// seconds follow r's on one time line, runtime and CPU add. r's start,
// steady-state outcome and verify results stay: the continuation only
// measures longer. Not safe while either job runs.
func (r *JobResult) Append(next *JobResult) error {
	if next == nil {
		return nil
	}
	if next.Name != r.Name || next.Clone != r.Clone {
		return fmt.Errorf("workload: append %s.%d to %s.%d: not the same job clone", next.Name, next.Clone, r.Name, r.Clone)
	}
	for d := range NumDirs {
		if err := r.Dirs[d].Add(&next.Dirs[d]); err != nil {
			return fmt.Errorf("workload: append %s.%d: %w", r.Name, r.Clone, err)
		}
	}
	if err := r.Sync.Add(&next.Sync); err != nil {
		return fmt.Errorf("workload: append %s.%d: %w", r.Name, r.Clone, err)
	}
	off := r.Runtime
	for _, s := range next.Seconds {
		s.T += off
		r.Seconds = append(r.Seconds, s)
	}
	appendSlices(r, next, off)
	r.Runtime += next.Runtime
	if len(next.ErrnoCounts) > 0 && r.ErrnoCounts == nil {
		r.ErrnoCounts = map[int]uint64{}
	}
	for e, n := range maps.All(next.ErrnoCounts) {
		r.ErrnoCounts[e] += n
	}
	for _, e := range next.FirstErrors {
		if len(r.FirstErrors) < MaxRecordedErrors {
			r.FirstErrors = append(r.FirstErrors, e)
		}
	}
	r.FixedBufs = r.FixedBufs && next.FixedBufs
	r.UsrCPU += next.UsrCPU
	r.SysCPU += next.SysCPU
	r.Ctx += next.Ctx
	r.MajFlt += next.MajFlt
	r.MinFlt += next.MinFlt
	for i := range r.Depths.Level {
		r.Depths.Level[i] += next.Depths.Level[i]
		r.Depths.Submit[i] += next.Depths.Submit[i]
		r.Depths.Complete[i] += next.Depths.Complete[i]
	}
	r.Outstanding = append(r.Outstanding, next.Outstanding...)
	r.Canceled = r.Canceled || next.Canceled
	r.Err = errors.Join(r.Err, next.Err)
	return nil
}

// Add adds o's counts and merges its histograms into s: two runs of a
// direction appended, or, in fio's unified_rw_reporting=mixed, every
// direction summed into one.
func (s *DirStats) Add(o *DirStats) error {
	s.IOs += o.IOs
	s.Bytes += o.Bytes
	s.DryIOs += o.DryIOs
	s.DryBytes += o.DryBytes
	s.ShortIOs += o.ShortIOs
	s.DropIOs += o.DropIOs
	s.Errors += o.Errors
	for _, h := range []struct{ dst, src **latency.Histogram }{{&s.Slat, &o.Slat}, {&s.Clat, &o.Clat}, {&s.Lat, &o.Lat}} {
		switch {
		case *h.src == nil:
		case *h.dst == nil:
			*h.dst = (*h.src).Clone()
		default:
			if err := (*h.dst).Merge(*h.src); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendSlices carries next's sub-second slices over, offset by off. r's
// last slice may end after off (its final partial slice ends at the last
// completion, after the deadline): a slice of next that would not end
// after it is folded into it, so slices keep strictly advancing.
func appendSlices(r, next *JobResult, off time.Duration) {
	for _, s := range next.Slices {
		s.T += off
		if n := len(r.Slices); n > 0 && s.T <= r.Slices[n-1].T {
			p := &r.Slices[n-1]
			for d := range NumDirs {
				p.IOs[d] += s.IOs[d]
				p.Bytes[d] += s.Bytes[d]
			}
			continue
		}
		if n := len(r.Slices); n > 0 {
			s.Dur = min(s.Dur, s.T-r.Slices[n-1].T)
		}
		r.Slices = append(r.Slices, s)
	}
}
