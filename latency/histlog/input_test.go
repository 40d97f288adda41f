package histlog

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLabelFromPath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"h_clat_hist.2.log", "h.2"},
		{"node3/h_clat_hist.2.log", "node3/h.2"},
		{"/data/run1/node3/randrw_clat_hist.12.log.gz", "node3/randrw.12"},
		{"./lat.log", "lat"},
		{"dir/x.txt", "dir/x.txt"},
	}
	for _, tc := range tests {
		if got := LabelFromPath(tc.path); got != tc.want {
			t.Errorf("LabelFromPath(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestParseInput(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a=b.log")
	if err := os.WriteFile(odd, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg  string
		want Input
	}{
		{"host7=/tmp/x/h_clat_hist.1.log", Input{Label: "host7", Path: "/tmp/x/h_clat_hist.1.log"}},
		{"n1/h_clat_hist.1.log", Input{Label: "n1/h.1", Path: "n1/h_clat_hist.1.log"}},
		{odd, Input{Label: filepath.Base(dir) + "/a=b", Path: odd}}, // an existing file is a path
	}
	for _, tc := range tests {
		got := ParseInput(tc.arg)
		if got.Label != tc.want.Label || got.Path != tc.want.Path {
			t.Errorf("ParseInput(%q) = %+v, want %+v", tc.arg, got, tc.want)
		}
	}
	labels := UniqueLabels([]Input{{Label: "a"}, {Path: "x/h_clat_hist.1.log"}, {Label: "a"}, {Label: "x/h.1"}})
	if diff := cmp.Diff([]string{"a", "x/h.1", "a#2", "x/h.1#2"}, labels); diff != "" {
		t.Errorf("UniqueLabels (-want +got):\n%s", diff)
	}
}

func TestGzipInputs(t *testing.T) {
	plain := "testdata/fio/h_clat_hist.2.log"
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(t.TempDir(), "h_clat_hist.2.log.gz")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [2]bytes.Buffer
	for i, p := range []string{plain, gz} {
		if _, err := Merge(context.Background(), []Input{{Label: "x", Path: p}}, Config{}, NewCSVSink(&outs[i], Microsecond)); err != nil {
			t.Fatal(err)
		}
	}
	if outs[0].String() != outs[1].String() {
		t.Errorf("gzipped log merges differently:\n%s", cmp.Diff(outs[0].String(), outs[1].String()))
	}
	var fio [2]bytes.Buffer
	for i, p := range []string{plain, gz} {
		if err := FioPctiles(context.Background(), &fio[i], []Input{{Path: p}}, FioOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if fio[0].String() != fio[1].String() {
		t.Errorf("gzipped log differs in fio mode:\n%s", cmp.Diff(fio[0].String(), fio[1].String()))
	}
}
