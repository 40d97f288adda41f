package histlog

import (
	"bytes"
	"io"
)

// lastRowTime finds the time of the last non-blank row of a seekable log
// by reading backwards from its end, so the time span of a log is known
// without reading it all. ok is false when the last row does not start
// with a time (the caller then reads the log through, which reports the
// malformed row with its line number).
func lastRowTime(rs io.ReadSeeker) (t uint64, ok bool, err error) {
	size, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, false, err
	}
	var buf []byte
	for n := int64(4 << 10); ; n *= 2 {
		n = min(n, size)
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := rs.Seek(size-n, io.SeekStart); err != nil {
			return 0, false, err
		}
		if _, err := io.ReadFull(rs, buf); err != nil {
			return 0, false, err
		}
		body := bytes.TrimRight(buf, " \t\r\n")
		if len(body) == 0 {
			if n == size {
				return 0, false, nil // blank file
			}
			continue
		}
		i := bytes.LastIndexByte(body, '\n')
		if i < 0 && n < size && n < MaxLineBytes {
			continue // the last row starts before the chunk
		}
		line := bytes.TrimLeft(body[i+1:], " \t")
		var v uint64
		digits := 0
		for _, c := range line {
			if c < '0' || c > '9' || digits == 19 {
				break
			}
			v = v*10 + uint64(c-'0')
			digits++
		}
		rest := bytes.TrimLeft(line[digits:], " \t")
		if digits == 0 || len(rest) == 0 || rest[0] != ',' {
			return 0, false, nil
		}
		return v, true, nil
	}
}
