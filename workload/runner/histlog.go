package runner

import (
	"errors"
	"fmt"
	"time"

	"stortest.dev/internal/durable"
	"stortest.dev/workload"

	"stortest.dev/latency"
	"stortest.dev/latency/histlog"
)

// histLog writes a job clone's clat histogram log (write_hist_log) as
// fio does: the first completion after each log_hist_msec interval ends
// writes, stamped with its own time, one row per direction of the
// completions since the row before (the difference of the job's
// cumulative clat histograms then and now), so any interval works, 1 ms
// as well as 1 s. Unlike fio, the final partial interval is written too.
// Rows use fio's 29-group layout, so fio's own tools read the logs:
// latencies past fio's 17 s ceiling fold into its last bucket, as fio
// records them (the job's own histograms keep their values).
//
// The log is written whole or not at all (durable.Create): beside its
// name until the job ends, then synced and renamed into place; a full or
// failing disk leaves no partial log, and the job's error names it.
type histLog struct {
	f     *durable.File
	w     *histlog.Writer
	every time.Duration
	next  time.Duration // a completion at or after this writes rows: log_hist_msec after the last
	last  time.Duration // the time of the last row taken
	// prev is the job's cumulative clat at the last row, delta the
	// difference since, both in the job's layout; acc is delta in fio's.
	prev, delta [workload.NumDirs]*latency.Histogram
	acc         [workload.NumDirs]*latency.Histogram
	bs          uint32
}

func newHistLog(job *workload.Job, prefix string, jobNum int, layout latency.Layout) (*histLog, error) {
	every := time.Duration(job.LogHistMsec) * time.Millisecond
	if every <= 0 {
		every = time.Second
	}
	name := histlog.FileName(prefix, jobNum)
	f, err := durable.Create(name, 0o644)
	if err != nil {
		return nil, fmt.Errorf("workload: job %s: write_hist_log: %w", job.Name, err)
	}
	w, err := histlog.NewWriter(f, 0)
	if err != nil {
		f.Abort()
		return nil, err
	}
	h := &histLog{f: f, w: w, every: every, next: every, bs: uint32(job.MaxBlockSize())}
	for d := range workload.NumDirs {
		h.acc[d] = latency.NewFio()
		h.prev[d] = latency.New(layout)
		h.delta[d] = latency.New(layout)
	}
	return h, nil
}

// due reports whether a completion at t (since the measured start) ends
// an interval: the runner then calls row.
func (h *histLog) due(t time.Duration) bool { return t >= h.next }

// row writes the rows of the interval a completion at t ends, from the
// job's cumulative clat histograms.
func (h *histLog) row(t time.Duration, clat *[workload.NumDirs]*latency.Histogram) error {
	if err := h.take(t, clat); err != nil {
		return err
	}
	h.next = t + h.every // from this row, as fio counts: rows drift with completions
	return h.write(uint64(t.Milliseconds()))
}

// take adds the completions since the last row to acc.
func (h *histLog) take(t time.Duration, clat *[workload.NumDirs]*latency.Histogram) error {
	for d := range workload.NumDirs {
		if clat[d] == nil {
			continue
		}
		if err := h.delta[d].Sub(clat[d], h.prev[d]); err != nil {
			return err
		}
		if err := h.prev[d].CopyFrom(clat[d]); err != nil {
			return err
		}
		if h.delta[d].Count() == 0 {
			continue
		}
		l := h.delta[d].Layout()
		for i, c := range h.delta[d].Counts() {
			if c != 0 {
				h.acc[d].AddBin(l.Value(i), c) // folds past fio's ceiling
			}
		}
	}
	h.last = max(h.last, t)
	return nil
}

// write writes a row per direction with completions since the last row,
// stamped ms.
func (h *histLog) write(ms uint64) error {
	for d := range workload.NumDirs {
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

// close writes the partial interval left, up to the last completion at
// t, flushes and closes the file. Its row is stamped with its end rounded
// up to whole ms: rounded down, a tail shorter than a ms after the last
// row would repeat that row's time (rows at 1000, 2000, 3000, 3000),
// which fio's tools read as an interval of no length.
func (h *histLog) close(t time.Duration, clat *[workload.NumDirs]*latency.Histogram) error {
	err := h.take(t, clat)
	ms := (h.last + time.Millisecond - 1) / time.Millisecond
	err = errors.Join(err, h.write(uint64(ms)))
	if err = errors.Join(err, h.w.Flush()); err != nil {
		h.f.Abort()
		return fmt.Errorf("workload: write_hist_log %s: %w", h.f.Name(), err)
	}
	if err := h.f.Close(); err != nil {
		return fmt.Errorf("workload: write_hist_log: %w", err)
	}
	return nil
}
