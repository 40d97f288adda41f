package fio

import (
	"errors"
	"os"
	"strconv"
)

// LogKind is one of fio's per-I/O logs.
type LogKind int

const (
	LogSlat LogKind = iota
	LogClat
	LogLat
	LogBW
	LogIOPS
	NumLogKinds
)

var logSuffixes = [NumLogKinds]string{"slat", "clat", "lat", "bw", "iops"}

// String is the kind's name in its file's name (LogFileName).
func (k LogKind) String() string { return logSuffixes[k] }

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

// LogWriter writes one of fio's per-I/O logs (write_lat_log,
// write_bw_log, write_iops_log: "msec, value, direction, bs[, offset],
// prio" lines) as fio 3.33 does, through a buffer, so that a line
// allocates nothing.
type LogWriter struct {
	f       *os.File
	buf     []byte
	hexPrio bool // log_prio: the whole ioprio value, 0x%04x
}

// NewLogWriter writes lines to f; hexPrio (log_prio) prints an I/O's
// whole ioprio value, else only whether it is real-time, as fio does.
func NewLogWriter(f *os.File, hexPrio bool) *LogWriter {
	return &LogWriter{f: f, buf: make([]byte, 0, logBufSize), hexPrio: hexPrio}
}

func (l *LogWriter) flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.f.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// Line appends one line; it writes the buffer out when it is nearly full.
// d is the direction (0 read, 1 write, 2 trim); prio is the I/O's ioprio
// value.
func (l *LogWriter) Line(ms, value uint64, d int, bs uint64, offset int64, withOffset bool, prio uint64) error {
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

// Close writes out the lines left and closes the file.
func (l *LogWriter) Close() error {
	return errors.Join(l.flush(), l.f.Close())
}

// logPrio is a line's priority column as fio 3.33 writes it without
// log_prio: 1 for a real-time (class 1) I/O, else 0.
func logPrio(p uint16) uint64 {
	if p>>13 == 1 {
		return 1
	}
	return 0
}
