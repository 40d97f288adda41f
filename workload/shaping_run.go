package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"stortest.dev/clock"
	"stortest.dev/latency"
)

// What OffsetPattern, Measurement, RateFloor, Priority, Think, Ending and
// Zones do while a job runs.

// dropDisabled empties the histograms the job's disable_* options leave
// unreported, once the job is over.
func dropDisabled(r *JobResult) {
	j := &r.Job
	for d := range r.Dirs {
		s := &r.Dirs[d]
		for _, h := range [...]struct {
			off bool
			h   *latency.Histogram
		}{{j.DisableLat, s.Lat}, {j.DisableClat, s.Clat}, {j.DisableSlat, s.Slat}} {
			if h.off && h.h != nil {
				h.h.Reset()
			}
		}
	}
}

// minRate checks a job's rate_min and rate_iops_min as fio does: at
// completions, from 2 s after the start; the first such completion sets
// the baseline, and each one at least a rate_cycle after the last check
// compares what moved since then with the minimum. A job whose I/Os are
// further apart than that (rate=1250 with 4 KiB blocks) is judged at its
// completions only, as fio judges it.
type minRate struct {
	cycle      int64 // ns
	based      bool  // the baseline is set
	at, next   int64 // the last check; the earliest next one
	bytes, ios [3]uint64
}

func newMinRate(j *Job, start int64) *minRate {
	if j.RateMin == [3]int64{} && j.RateIOPSMin == [3]int64{} {
		return nil
	}
	cycle := int64(j.RateCycle)
	if cycle <= 0 {
		cycle = int64(time.Second)
	}
	return &minRate{cycle: cycle, next: start + 2*int64(time.Second)}
}

// check is called with the time of a completion at or after m.next and
// the job's totals: the error of the first direction below its minimum
// since the last check, or nil.
func (m *minRate) check(j *Job, dirs *[NumDirs]DirStats, now int64) error {
	el := now - m.at
	var err error
	for d := range 3 {
		db, di := dirs[d].Bytes-m.bytes[d], dirs[d].IOs-m.ios[d]
		m.bytes[d], m.ios[d] = dirs[d].Bytes, dirs[d].IOs
		if err != nil || !m.based || el <= 0 || !j.RW.Issues(Dir(d)) {
			continue
		}
		if min := j.RateMin[d]; min > 0 {
			if got := int64(float64(db) * 1e9 / float64(el)); got < min {
				err = fmt.Errorf("%w: rate_min=%dB/s not met, got %dB/s", syscall.EIO, min, got)
			}
		}
		if min := j.RateIOPSMin[d]; min > 0 && err == nil {
			if got := int64(float64(di) * 1e9 / float64(el)); got < min {
				err = fmt.Errorf("%w: rate_iops_min=%d not met, got %d IOPS", syscall.EIO, min, got)
			}
		}
	}
	m.based, m.at, m.next = true, now, now+m.cycle
	return err
}

// jobIOPrio is the ioprio value of the job's own I/O: 0 when it keeps
// the thread's.
func jobIOPrio(j *Job) uint16 {
	if j.PrioClass == 0 {
		return 0
	}
	return ioprio(j.PrioClass, j.PrioLevel)
}

// setThreadIOPrio sets the calling thread's I/O priority (the runner locks
// the job to its thread) and returns a function that restores the one it
// had, for the thread goes back to the Go runtime after the job.
func setThreadIOPrio(p uint16) (restore func(), err error) {
	const whoProcess = 1 // IOPRIO_WHO_PROCESS: with 0, the calling thread
	old, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, whoProcess, 0, 0)
	if e != 0 {
		return nil, fmt.Errorf("ioprio_get: %w", e)
	}
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, uintptr(p)); e != 0 {
		return nil, fmt.Errorf("ioprio_set class %d level %d: %w", p>>13, p&0x1fff, e)
	}
	return func() { _, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, old) }, nil
}

// isFull reports whether an I/O's result is ENOSPC or EDQUOT.
func isFull(res int64) bool {
	return res == -int64(unix.ENOSPC) || res == -int64(unix.EDQUOT)
}

// fillSize gives a fill_device job on a file, without a size, the free
// space of its file system (and what the file holds already) past its
// offset, in whole blocks of the largest size.
func fillSize(j Job) (Job, error) {
	if j.Size != 0 || j.Filename == "" {
		return j, nil
	}
	st, err := os.Stat(j.Filename)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return j, nil // a device: the region is the device
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return j, fmt.Errorf("workload: job %s: %w", j.Name, err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(j.Filename), &fs); err != nil {
		return j, fmt.Errorf("workload: job %s: fill_device: %w", j.Name, err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	if st != nil {
		free += st.Size()
	}
	bs := j.MaxBlockSize()
	size := (free - j.Offset) / bs * bs
	if size < bs {
		return j, fmt.Errorf("workload: job %s: fill_device: %s has no room for one block of %d bytes", j.Name, filepath.Dir(j.Filename), bs)
	}
	j.Size = size
	return j, nil
}

// think stalls a job for its thinktime: spinning for the spin part, then
// sleeping.
func think(total, spin time.Duration) {
	end := clock.Now() + int64(total)
	for spinEnd := clock.Now() + int64(spin); clock.Now() < spinEnd; {
	}
	if left := end - clock.Now(); left > 0 {
		time.Sleep(time.Duration(left))
	}
}

// exitGroups are the reporting groups of jobs, for exitall: a group
// starts at each job with new_group or stonewall.
func exitGroups(jobs []Job) []int {
	g := make([]int, len(jobs))
	for i := 1; i < len(jobs); i++ {
		g[i] = g[i-1]
		if jobs[i].NewGroup || jobs[i].Stonewall {
			g[i]++
		}
	}
	return g
}
