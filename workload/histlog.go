package workload

import (
	"errors"
	"fmt"
	"os"
	"time"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

// histLog writes a job clone's clat histogram log (write_hist_log) from
// the runner's per-second histogram deltas: one row per direction and
// log_hist_msec interval, and, unlike fio, the final partial interval too.
// Rows use fio's 29-group layout, so fio's own tools read the logs:
// latencies past fio's 17 s ceiling fold into its last bucket, as fio
// records them (the job's own histograms keep their values).
type histLog struct {
	f     *os.File
	w     *histlog.Writer
	every time.Duration
	next  time.Duration // end of the interval being summed
	last  time.Duration // end of the last second added
	acc   [NumDirs]*latency.Histogram
	bs    uint32
}

func newHistLog(job *Job, prefix string, jobNum int) (*histLog, error) {
	every := time.Duration(job.LogHistMsec) * time.Millisecond
	if every == 0 {
		every = time.Second
	}
	if every%time.Second != 0 {
		return nil, &FieldError{Job: job.Name, Field: "log_hist_msec",
			Reason: fmt.Sprintf("%d is not a multiple of 1000 (the runner samples histograms once a second)", job.LogHistMsec)}
	}
	name := histlog.FileName(prefix, jobNum)
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("workload: job %s: write_hist_log: %w", job.Name, err)
	}
	w, err := histlog.NewWriter(f, 0)
	if err != nil {
		f.Close()
		return nil, err
	}
	h := &histLog{f: f, w: w, every: every, next: every, bs: uint32(job.MaxBlockSize())}
	for d := range NumDirs {
		h.acc[d] = latency.NewFio()
	}
	return h, nil
}

// add takes the second ending at t (since the measured start) and writes
// the rows of every interval it completes.
func (h *histLog) add(t time.Duration, delta *[NumDirs]*latency.Histogram) error {
	for d := range NumDirs {
		if delta[d].Count() == 0 {
			continue
		}
		l := delta[d].Layout()
		for i, c := range delta[d].Counts() {
			if c != 0 {
				h.acc[d].AddBin(l.Value(i), c) // folds past fio's ceiling
			}
		}
	}
	h.last = t
	if t < h.next {
		return nil
	}
	for h.next <= t {
		h.next += h.every
	}
	return h.write(uint64(t.Milliseconds()))
}

// write writes a row per direction with completions since the last row,
// stamped ms.
func (h *histLog) write(ms uint64) error {
	for d := range NumDirs {
		if h.acc[d].Count() == 0 {
			continue
		}
		if err := h.w.WriteInterval(ms, histlog.Direction(d), h.bs, h.acc[d]); err != nil {
			return err
		}
		h.acc[d].Reset()
	}
	return nil
}

// close writes the partial interval left, flushes and closes the file.
// Its row is stamped with its end rounded up to whole ms: rounded down,
// a tail shorter than a ms after the last row's second would repeat that
// row's time (rows at 1000, 2000, 3000, 3000), which fio's tools read as
// an interval of no length.
func (h *histLog) close() error {
	ms := (h.last + time.Millisecond - 1) / time.Millisecond
	err := h.write(uint64(ms))
	err = errors.Join(err, h.w.Flush(), h.f.Close())
	if err != nil {
		return fmt.Errorf("workload: write_hist_log %s: %w", h.f.Name(), err)
	}
	return nil
}
