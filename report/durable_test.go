package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/durable"
	"stortest.dev/internal/tmpfs"
)

// Merging a suite into the JUnit file on a full disk, and with a failing
// one (EIO at any step): the error names the file, the file is as it
// was, no temporary file is left; with the space back the merge works.
func TestMergeFileFullDisk(t *testing.T) {
	dir := tmpfs.ForTest(t, 256<<10)
	path := filepath.Join(dir, "junit.xml")
	first := sampleSuite()
	if err := MergeFile(path, first); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	second := sampleSuite()
	second.Name = "stortest.dev/other"
	check := func(err error, want error) {
		t.Helper()
		if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
			t.Fatalf("got %v, want %v naming %s", err, want, path)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(before, after) {
			t.Fatal("the JUnit file changed")
		}
		if diff := cmp.Diff([]string{tmpfs.FillName, "junit.xml"}, dirEntries(t, dir)); diff != "" &&
			cmp.Diff([]string{"junit.xml"}, dirEntries(t, dir)) != "" {
			t.Fatalf("directory (-want +got):\n%s", diff)
		}
	}
	if _, err := tmpfs.Fill(dir, 0); err != nil {
		t.Fatal(err)
	}
	check(MergeFile(path, second), syscall.ENOSPC)
	if err := tmpfs.Free(dir); err != nil {
		t.Fatal(err)
	}
	for _, op := range []durable.Op{durable.OpWrite, durable.OpSync, durable.OpRename} {
		restore := durable.Inject(func(o durable.Op, p string) error {
			if o == op {
				return syscall.EIO
			}
			return nil
		})
		err := MergeFile(path, second)
		restore()
		check(err, syscall.EIO)
	}
	if err := MergeFile(path, second); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	suites, err := readSuites(bytes.NewReader(data), path)
	if err != nil || len(suites) != 2 {
		t.Fatalf("%d suites, %v", len(suites), err)
	}
}
