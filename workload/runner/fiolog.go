package runner

import (
	"errors"
	"fmt"
	"os"
	"stortest.dev/fio"

	"stortest.dev/workload"
)

// avgAcc sums one direction's latencies over a log_avg_msec interval.
type avgAcc struct {
	sum, n uint64
}

func (a *avgAcc) add(v uint64) { a.sum += v; a.n++ }

// ioLogs are a job clone's fio logs. Every method runs on the clone's
// goroutine; none allocates.
type ioLogs struct {
	opts  workload.LogOptions
	files [fio.NumLogKinds]*fio.LogWriter // nil when that kind is off
	dirs  [workload.NumDirs]bool          // directions the job issues (bw/iops lines)

	// Averaging (AvgMsec > 0).
	every    int64 // ns
	next     int64 // ns since the measured start: end of the current interval
	prev     int64 // ns: start of the current interval
	lat      [3][workload.NumDirs]avgAcc
	ios      [workload.NumDirs]uint64
	bytes    [workload.NumDirs]uint64
	lastDone int64 // ns: the last I/O added
	err      error
}

// newIOLogs opens job's logs for the clone numbered jobNum (1-based), or
// returns nil when the job writes none.
func newIOLogs(job *workload.Job, jobNum int) (*ioLogs, error) {
	o := job.Logs
	if !o.On() {
		return nil, nil
	}
	l := &ioLogs{opts: o, every: int64(o.AvgMsec) * 1e6}
	l.next = l.every
	l.dirs[workload.DirRead] = job.RW.Reads()
	l.dirs[workload.DirWrite] = job.RW.Writes()
	l.dirs[workload.DirTrim] = job.RW.Trims()
	prefixes := [fio.NumLogKinds]string{o.Lat, o.Lat, o.Lat, o.BW, o.IOPS}
	for k, p := range prefixes {
		k := fio.LogKind(k)
		if p == "" {
			continue
		}
		name := fio.LogFileName(p, k.String(), jobNum, o.Shared)
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if o.Shared {
			// Jobs share the file: each appends whole buffers of whole
			// lines. The first job of the run truncates it.
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
			if jobNum == 1 {
				flags |= os.O_TRUNC
			}
		}
		f, err := os.OpenFile(name, flags, 0o644)
		if err != nil {
			l.close(0)
			return nil, fmt.Errorf("workload: job %s: %s log: %w", job.Name, k.String(), err)
		}
		l.files[k] = fio.NewLogWriter(f, o.Prio)
	}
	return l, nil
}

func (l *ioLogs) fail(err error) {
	if err != nil && l.err == nil {
		l.err = err
	}
}

// slat records one submission latency; t is the commit time (ns since the
// measured start).
func (l *ioLogs) slat(t int64, d workload.Dir, ns uint64, bs uint64, offset int64, prio uint16) {
	f := l.files[fio.LogSlat]
	if f == nil {
		return
	}
	if l.every == 0 {
		l.fail(f.Line(uint64(t/1e6), ns, int(d), bs, offset, l.opts.Offset, uint64(prio)))
		return
	}
	l.roll(t)
	l.lat[fio.LogSlat][d].add(ns)
}

// done records one completed I/O at t (ns since the measured start).
func (l *ioLogs) done(t int64, d workload.Dir, clat, lat uint64, bytes uint64, bs uint64, offset int64, prio uint16) {
	if l.every > 0 {
		l.roll(t)
		l.lat[fio.LogClat][d].add(clat)
		l.lat[fio.LogLat][d].add(lat)
		l.ios[d]++
		l.bytes[d] += bytes
		l.lastDone = t
		return
	}
	ms := uint64(t / 1e6)
	off := l.opts.Offset
	p := uint64(prio)
	if f := l.files[fio.LogClat]; f != nil {
		l.fail(f.Line(ms, clat, int(d), bs, offset, off, p))
	}
	if f := l.files[fio.LogLat]; f != nil {
		l.fail(f.Line(ms, lat, int(d), bs, offset, off, p))
	}
	if f := l.files[fio.LogBW]; f != nil {
		// fio's per-I/O rate: bytes over the I/O's completion latency.
		l.fail(f.Line(ms, bytes*1_000_000/max(clat, 1), int(d), bs, offset, off, p))
	}
	if f := l.files[fio.LogIOPS]; f != nil {
		l.fail(f.Line(ms, 1, int(d), bs, offset, off, p))
	}
	l.lastDone = t
}

// roll writes the lines of every averaging interval that ended by t.
func (l *ioLogs) roll(t int64) {
	for t >= l.next {
		l.writeAvg(l.next, true)
		l.prev = l.next
		l.next += l.every
	}
}

// writeAvg writes the averaged lines of the interval ending at end; rates
// only for a whole interval.
func (l *ioLogs) writeAvg(end int64, whole bool) {
	ms := uint64(end / 1e6)
	for k := fio.LogSlat; k <= fio.LogLat; k++ {
		f := l.files[k]
		for d := range workload.NumDirs {
			a := &l.lat[k][d]
			if f != nil && a.n > 0 {
				l.fail(f.Line(ms, a.sum/a.n, int(d), 0, 0, l.opts.Offset, 0))
			}
			*a = avgAcc{}
		}
	}
	span := end - l.prev
	for d := range workload.NumDirs {
		if whole && span > 0 && (l.dirs[d] || l.ios[d] > 0) {
			if f := l.files[fio.LogBW]; f != nil {
				l.fail(f.Line(ms, l.bytes[d]*1e9/uint64(span)/1024, int(d), 0, 0, l.opts.Offset, 0))
			}
			if f := l.files[fio.LogIOPS]; f != nil {
				l.fail(f.Line(ms, l.ios[d]*1e9/uint64(span), int(d), 0, 0, l.opts.Offset, 0))
			}
		}
		l.ios[d], l.bytes[d] = 0, 0
	}
}

// close writes the last partial interval's latency lines (end: ns since
// the measured start), flushes and closes the files.
func (l *ioLogs) close(end int64) error {
	if l.every > 0 && end > l.prev {
		l.writeAvg(end, false)
	}
	err := l.err
	for _, f := range l.files {
		if f != nil {
			err = errors.Join(err, f.Close())
		}
	}
	if err != nil {
		return fmt.Errorf("workload: fio logs: %w", err)
	}
	return nil
}
