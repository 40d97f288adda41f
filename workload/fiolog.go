package workload

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// logKind is one of fio's log files.
type logKind int

const (
	logSlat logKind = iota
	logClat
	logLat
	logBW
	logIOPS
	numLogKinds
)

var logSuffixes = [numLogKinds]string{"slat", "clat", "lat", "bw", "iops"}

// LogFileName is the name fio gives a log: prefix_kind.N.log, or
// prefix_kind.log when shared (per_job_logs=0). kind is slat, clat, lat,
// bw or iops; jobNum is 1-based.
func LogFileName(prefix, kind string, jobNum int, shared bool) string {
	if shared {
		return prefix + "_" + kind + ".log"
	}
	return prefix + "_" + kind + "." + strconv.Itoa(jobNum) + ".log"
}

// Log buffer sizes: lines collect in a buffer per file, written out when
// fewer than logLineMax bytes are left, so that a line per I/O costs no
// allocation and one write(2) per some ten thousand I/Os.
const (
	logBufSize = 256 << 10
	logLineMax = 6 * 21 // six numbers of at most 20 digits and their ", "
)

// logFile is one log being written by one job clone.
type logFile struct {
	f       *os.File
	buf     []byte
	hexPrio bool // log_prio: the whole ioprio value, 0x%04x
}

func (l *logFile) flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.f.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// line appends one line; it writes the buffer out when it is nearly full.
// prio is the I/O's ioprio value.
func (l *logFile) line(ms, value uint64, d Dir, bs uint64, offset int64, withOffset bool, prio uint64) error {
	b := l.buf
	b = strconv.AppendUint(b, ms, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, value, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, uint64(d), 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, bs, 10)
	if withOffset {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, offset, 10)
	}
	b = append(b, ", "...)
	if l.hexPrio {
		b = append(b, "0x"...)
		for sh := 12; sh >= 0; sh -= 4 {
			b = append(b, "0123456789abcdef"[prio>>sh&0xf])
		}
	} else {
		b = strconv.AppendUint(b, logPrio(uint16(prio)), 10)
	}
	b = append(b, '\n')
	l.buf = b
	if cap(b)-len(b) < logLineMax {
		return l.flush()
	}
	return nil
}

// logPrio is a line's priority column as fio 3.33 writes it without
// log_prio: 1 for a real-time (class 1) I/O, else 0.
func logPrio(p uint16) uint64 {
	if p>>13 == 1 {
		return 1
	}
	return 0
}

// avgAcc sums one direction's latencies over a log_avg_msec interval.
type avgAcc struct {
	sum, n uint64
}

func (a *avgAcc) add(v uint64) { a.sum += v; a.n++ }

// ioLogs are a job clone's fio logs. Every method runs on the clone's
// goroutine; none allocates.
type ioLogs struct {
	opts  LogOptions
	files [numLogKinds]*logFile // nil when that kind is off
	dirs  [NumDirs]bool         // directions the job issues (bw/iops lines)

	// Averaging (AvgMsec > 0).
	every    int64 // ns
	next     int64 // ns since the measured start: end of the current interval
	prev     int64 // ns: start of the current interval
	lat      [3][NumDirs]avgAcc
	ios      [NumDirs]uint64
	bytes    [NumDirs]uint64
	lastDone int64 // ns: the last I/O added
	err      error
}

// newIOLogs opens job's logs for the clone numbered jobNum (1-based), or
// returns nil when the job writes none.
func newIOLogs(job *Job, jobNum int) (*ioLogs, error) {
	o := job.Logs
	if !o.on() {
		return nil, nil
	}
	l := &ioLogs{opts: o, every: int64(o.AvgMsec) * 1e6}
	l.next = l.every
	l.dirs[DirRead] = job.RW.Reads()
	l.dirs[DirWrite] = job.RW.Writes()
	l.dirs[DirTrim] = job.RW.Trims()
	prefixes := [numLogKinds]string{o.Lat, o.Lat, o.Lat, o.BW, o.IOPS}
	for k, p := range prefixes {
		if p == "" {
			continue
		}
		name := LogFileName(p, logSuffixes[k], jobNum, o.Shared)
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
			return nil, fmt.Errorf("workload: job %s: %s log: %w", job.Name, logSuffixes[k], err)
		}
		l.files[k] = &logFile{f: f, buf: make([]byte, 0, logBufSize), hexPrio: o.Prio}
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
func (l *ioLogs) slat(t int64, d Dir, ns uint64, bs uint64, offset int64, prio uint16) {
	f := l.files[logSlat]
	if f == nil {
		return
	}
	if l.every == 0 {
		l.fail(f.line(uint64(t/1e6), ns, d, bs, offset, l.opts.Offset, uint64(prio)))
		return
	}
	l.roll(t)
	l.lat[logSlat][d].add(ns)
}

// done records one completed I/O at t (ns since the measured start).
func (l *ioLogs) done(t int64, d Dir, clat, lat uint64, bytes uint64, bs uint64, offset int64, prio uint16) {
	if l.every > 0 {
		l.roll(t)
		l.lat[logClat][d].add(clat)
		l.lat[logLat][d].add(lat)
		l.ios[d]++
		l.bytes[d] += bytes
		l.lastDone = t
		return
	}
	ms := uint64(t / 1e6)
	off := l.opts.Offset
	p := uint64(prio)
	if f := l.files[logClat]; f != nil {
		l.fail(f.line(ms, clat, d, bs, offset, off, p))
	}
	if f := l.files[logLat]; f != nil {
		l.fail(f.line(ms, lat, d, bs, offset, off, p))
	}
	if f := l.files[logBW]; f != nil {
		// fio's per-I/O rate: bytes over the I/O's completion latency.
		l.fail(f.line(ms, bytes*1_000_000/max(clat, 1), d, bs, offset, off, p))
	}
	if f := l.files[logIOPS]; f != nil {
		l.fail(f.line(ms, 1, d, bs, offset, off, p))
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
	for k := logSlat; k <= logLat; k++ {
		f := l.files[k]
		for d := range NumDirs {
			a := &l.lat[k][d]
			if f != nil && a.n > 0 {
				l.fail(f.line(ms, a.sum/a.n, d, 0, 0, l.opts.Offset, 0))
			}
			*a = avgAcc{}
		}
	}
	span := end - l.prev
	for d := range NumDirs {
		if whole && span > 0 && (l.dirs[d] || l.ios[d] > 0) {
			if f := l.files[logBW]; f != nil {
				l.fail(f.line(ms, l.bytes[d]*1e9/uint64(span)/1024, d, 0, 0, l.opts.Offset, 0))
			}
			if f := l.files[logIOPS]; f != nil {
				l.fail(f.line(ms, l.ios[d]*1e9/uint64(span), d, 0, 0, l.opts.Offset, 0))
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
			err = errors.Join(err, f.flush(), f.f.Close())
		}
	}
	if err != nil {
		return fmt.Errorf("workload: fio logs: %w", err)
	}
	return nil
}
