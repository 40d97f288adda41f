package histlog

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Input is one histogram log to merge.
type Input struct {
	// Label names the input in outputs (a host, a job): see ParseInput.
	Label string
	// Path is the file; files ending in ".gz" are decompressed.
	Path string
	// Open, when set, opens the log instead of Path (Path still names it
	// in errors). Inputs are opened twice: once to read their first and
	// last rows, once to merge. A reader that is also an io.ReadSeeker
	// has its last row found by seeking; others are read through.
	Open func() (io.ReadCloser, error)
}

// ParseInput parses a command-line argument: "label=path" or a path,
// labelled by LabelFromPath.
func ParseInput(arg string) Input {
	if i := strings.IndexByte(arg, '='); i > 0 {
		if _, err := os.Stat(arg); err != nil { // a file may contain '='
			return Input{Label: arg[:i], Path: arg[i+1:]}
		}
	}
	return Input{Label: LabelFromPath(arg), Path: arg}
}

// LabelFromPath derives a label from a log's path: fio's
// "<prefix>_clat_hist.<job>.log" gives "<prefix>.<job>", any other name
// loses its ".log" (and ".gz"), and the parent directory, when there is
// one, is put first as the host: "node3/h_clat_hist.2.log" is "node3/h.2".
func LabelFromPath(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	base = strings.TrimSuffix(base, ".log")
	if i := strings.LastIndex(base, "_clat_hist."); i >= 0 {
		base = base[:i] + "." + base[i+len("_clat_hist."):]
	}
	if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
		return dir + "/" + base
	}
	return base
}

// UniqueLabels returns the inputs' labels, with "#2", "#3"... appended to
// repeats so every column of a per-input output has its own name.
func UniqueLabels(inputs []Input) []string {
	out := make([]string, len(inputs))
	seen := map[string]int{}
	for i, in := range inputs {
		l := in.Label
		if l == "" {
			l = LabelFromPath(in.Path)
		}
		seen[l]++
		if n := seen[l]; n > 1 {
			l = fmt.Sprintf("%s#%d", l, n)
		}
		out[i] = l
	}
	return out
}

func (in Input) open() (io.ReadCloser, error) {
	if in.Open != nil {
		rc, err := in.Open()
		if err != nil {
			return nil, fmt.Errorf("histlog: open %s: %w", in.Path, err)
		}
		return rc, nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, fmt.Errorf("histlog: %w", err)
	}
	if !strings.HasSuffix(in.Path, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("histlog: %s: %w", in.Path, err)
	}
	return &gzipFile{Reader: zr, f: f}, nil
}

type gzipFile struct {
	*gzip.Reader
	f *os.File
}

func (g *gzipFile) Close() error {
	err := g.Reader.Close()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	return err
}
