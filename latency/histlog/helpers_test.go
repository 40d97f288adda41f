package histlog

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// logRow formats one log row the way fio writes it.
func logRow(t uint64, d Direction, counts ...uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d, %d, 4096", t, d)
	for _, c := range counts {
		fmt.Fprintf(&b, ", %d", c)
	}
	b.WriteByte('\n')
	return b.String()
}

// coarse returns 29 counts (fio 3 at coarseness 6: 64 buckets per
// column) with the given counts put in the given columns.
func coarse(kv ...uint64) []uint64 {
	c := make([]uint64, 29)
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

// memInput is an input whose contents are in memory; it is seekable
// (bytes.Reader), like a file.
func memInput(label, text string) Input {
	return Input{Label: label, Path: label + ".log", Open: func() (io.ReadCloser, error) {
		return readSeekNopCloser{bytes.NewReader([]byte(text))}, nil
	}}
}

// streamInput is an input that cannot seek (like a pipe or a .gz file).
func streamInput(label, text string) Input {
	return Input{Label: label, Path: label + ".log", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(text)), nil
	}}
}

type readSeekNopCloser struct{ *bytes.Reader }

func (readSeekNopCloser) Close() error { return nil }
