package fio

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// fio's I/O log (write_iolog, read_iolog): a text file, one action a line,
// after a version line. Version 2 lines are "FILE ACTION" (add, open,
// close) and "FILE ACTION OFFSET LENGTH" (read, write, trim, sync,
// datasync, wait); version 3, which fio 3.31 and later write, puts a
// timestamp (µs since the log was started) before each. The writer and
// the reader below share IOLogActs.

// The version lines fio writes and reads.
const (
	IOLogV2 = "fio version 2 iolog"
	IOLogV3 = "fio version 3 iolog"
)

// IOLogEntry is one line of an I/O log.
type IOLogEntry struct {
	Time   int64 // µs since the log's start (version 3; 0 in version 2)
	File   int   // index in IOLog.Files
	Act    IOLogAct
	Offset int64 // bytes; µs for LogWait
	Len    int64 // bytes
}

// IOLog is a parsed I/O log.
type IOLog struct {
	Version int      // 2 or 3
	Files   []string // in the order they were added
	Entries []IOLogEntry
}

// MaxIOLogLen bounds one I/O's length in a log: the replay allocates
// buffers of the largest.
const MaxIOLogLen = 1 << 30 // 1 GiB

// maxIOLogLine bounds a line of a log (fio reads 4 KiB lines).
const maxIOLogLine = 64 << 10

// ErrBlktrace is returned for a blktrace binary file given as an I/O log.
var ErrBlktrace = errors.New("a blktrace binary file: replaying blktrace traces is not supported by stortest (use a fio version 2 or 3 iolog)")

// isBlktrace reports whether b starts with blktrace's magic
// (0x65617400 with the version in the low byte), either byte order.
func isBlktrace(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	const magic = 0x65617400
	return binary.LittleEndian.Uint32(b)&0xffffff00 == magic || binary.BigEndian.Uint32(b)&0xffffff00 == magic
}

// LoadIOLog reads the I/O log in the named file.
func LoadIOLog(path string) (*IOLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workload: read_iolog: %w", err)
	}
	defer f.Close()
	return ReadIOLog(f, path)
}

// ReadIOLog parses an I/O log of version 2 or 3 from r; name names it in
// errors, which give the line and the field. A version 3 "wait" is
// skipped, as fio does; everything else that fio would complain about
// is an error.
func ReadIOLog(r io.Reader, name string) (*IOLog, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(4); isBlktrace(head) {
		return nil, fmt.Errorf("workload: iolog %s: %w", name, ErrBlktrace)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), maxIOLogLine)
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("workload: iolog %s line %d: %s", name, line, fmt.Sprintf(format, args...))
	}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("workload: iolog %s line 1: %w", name, err)
		}
		return nil, bad(1, "empty file (want %q)", IOLogV2)
	}
	log := &IOLog{}
	head := sc.Text()
	switch {
	case strings.HasPrefix(head, IOLogV2):
		log.Version = 2
	case strings.HasPrefix(head, IOLogV3):
		log.Version = 3
	default:
		return nil, bad(1, "version line %.40q: want %q or %q (version 1 logs are not supported, nor by fio)", head, IOLogV2, IOLogV3)
	}
	files := map[string]int{}
	for n := 2; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		var e IOLogEntry
		if log.Version == 3 {
			t, err := strconv.ParseUint(fields[0], 10, 63)
			if err != nil {
				return nil, bad(n, "timestamp %.40q: not a number of µs", fields[0])
			}
			e.Time, fields = int64(t), fields[1:]
		}
		if len(fields) != 2 && len(fields) != 4 {
			return nil, bad(n, "%d fields: want FILE ACTION or FILE ACTION OFFSET LENGTH", len(fields)+log.Version-2)
		}
		act, ok := iologAct(fields[1])
		if !ok {
			return nil, bad(n, "action %.40q: want one of %s", fields[1], strings.Join(IOLogActs[:], ", "))
		}
		if act.IsFileAct() != (len(fields) == 2) {
			if act.IsFileAct() {
				return nil, bad(n, "action %s takes no offset and length", act)
			}
			return nil, bad(n, "action %s needs an offset and a length", act)
		}
		if act == LogWait && log.Version == 3 {
			continue // fio ignores wait in version 3: timestamps do it
		}
		e.Act = act
		idx, known := files[fields[0]]
		switch {
		case act == LogAdd && known:
			return nil, bad(n, "file %.60q added twice", fields[0])
		case act == LogAdd:
			idx = len(log.Files)
			files[fields[0]] = idx
			log.Files = append(log.Files, fields[0])
		case !known:
			return nil, bad(n, "file %.60q was not added", fields[0])
		}
		e.File = idx
		if len(fields) == 4 {
			off, err := strconv.ParseUint(fields[2], 10, 63)
			if err != nil {
				return nil, bad(n, "offset %.40q: not a number of bytes", fields[2])
			}
			l, err := strconv.ParseUint(fields[3], 10, 63)
			if err != nil {
				return nil, bad(n, "length %.40q: not a number of bytes", fields[3])
			}
			if l > MaxIOLogLen {
				return nil, bad(n, "length %d: more than %d", l, MaxIOLogLen)
			}
			if l == 0 && (act == LogRead || act == LogWrite || act == LogTrim) {
				return nil, bad(n, "length 0 for a %s", act)
			}
			if off+l > 1<<63-1 {
				return nil, bad(n, "offset %d + length %d overflows", off, l)
			}
			e.Offset, e.Len = int64(off), int64(l)
		}
		log.Entries = append(log.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("workload: iolog %s: %w", name, err)
	}
	return log, nil
}

func iologAct(s string) (IOLogAct, bool) {
	for a, n := range IOLogActs {
		if n == s {
			return IOLogAct(a), true
		}
	}
	return 0, false
}

// IOLogWriter writes a version 3 I/O log as fio 3.33 does (write_iolog):
// the version line, "add" for the job's file, then one line per action,
// each stamped with the µs since the writer started. Lines are formatted
// into one reused buffer and written through a buffered writer, so
// logging an I/O allocates nothing.
type IOLogWriter struct {
	f     *os.File
	w     *bufio.Writer
	buf   []byte
	files []string // the files' names in the log: one, or a job's several
	cur   int32    // the file of the next line (engines.Unit.File)
	t0    int64    // ns (clock.Now) the log started
	off   int64    // offset of the last I/O logged: fio prints it in sync lines
	err   error    // the first write error
}

// NewIOLogWriter opens path for appending, as fio does, and writes the
// version line and each file's "add" at time now (ns).
func NewIOLogWriter(path string, files []string, now int64) (*IOLogWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("workload: write_iolog: %w", err)
	}
	l := &IOLogWriter{f: f, w: bufio.NewWriterSize(f, 8<<10), buf: make([]byte, 0, 128), files: files, t0: now}
	l.w.WriteString(IOLogV3 + "\n")
	l.FileAct(now, LogAdd)
	return l, nil
}

// SetFile makes file (an index in the writer's files, as
// engines.Unit.File) the file of the next line.
func (l *IOLogWriter) SetFile(file int32) { l.cur = file }

// line starts a line at time now (ns): timestamp, file, action.
func (l *IOLogWriter) line(now int64, act IOLogAct) {
	b := strconv.AppendInt(l.buf[:0], max(now-l.t0, 0)/1000, 10)
	b = append(b, ' ')
	b = append(b, l.files[l.cur]...)
	b = append(b, ' ')
	l.buf = append(b, IOLogActs[act]...)
}

func (l *IOLogWriter) end() {
	l.buf = append(l.buf, '\n')
	if _, err := l.w.Write(l.buf); err != nil && l.err == nil {
		l.err = err
	}
}

// FileAct logs add, open or close, of each file.
func (l *IOLogWriter) FileAct(now int64, act IOLogAct) {
	cur := l.cur
	for i := range l.files {
		l.cur = int32(i)
		l.line(now, act)
		l.end()
	}
	l.cur = cur
}

// IO logs an I/O of n bytes at off; a sync logs the last I/O's offset and
// a length of 0, as fio's does.
func (l *IOLogWriter) IO(now int64, act IOLogAct, off, n int64) {
	if act == LogSync || act == LogDatasync {
		off, n = l.off, 0
	} else {
		l.off = off
	}
	l.line(now, act)
	l.buf = append(l.buf, ' ')
	l.buf = strconv.AppendInt(l.buf, off, 10)
	l.buf = append(l.buf, ' ')
	l.buf = strconv.AppendInt(l.buf, n, 10)
	l.end()
}

// Close logs the file's close at now, flushes and closes the log.
func (l *IOLogWriter) Close(now int64) error {
	l.FileAct(now, LogClose)
	err := cmp.Or(l.err, l.w.Flush())
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("workload: write_iolog %s: %w", l.f.Name(), err)
	}
	return nil
}

// IOLogAct is one action of an I/O log line.
type IOLogAct uint8

const (
	LogAdd      IOLogAct = iota // add the file to the trace
	LogOpen                     // open the file
	LogClose                    // close the file
	LogRead                     // read LENGTH bytes at OFFSET
	LogWrite                    // write LENGTH bytes at OFFSET
	LogTrim                     // trim LENGTH bytes at OFFSET
	LogSync                     // fsync the file
	LogDatasync                 // fdatasync the file
	LogWait                     // wait OFFSET µs (version 2 only)
	NumIOLogActs
)

// IOLogActs are the actions' names in the log.
var IOLogActs = [NumIOLogActs]string{"add", "open", "close", "read", "write", "trim", "sync", "datasync", "wait"}

func (a IOLogAct) String() string {
	if a < NumIOLogActs {
		return IOLogActs[a]
	}
	return "IOLogAct(" + strconv.Itoa(int(a)) + ")"
}

// IsFileAct reports whether the action takes no offset and length.
func (a IOLogAct) IsFileAct() bool { return a <= LogClose }
