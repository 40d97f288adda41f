package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"stortest.dev/internal/owner"
	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
)

// A directory given as filename fails the job with EISDIR before any
// I/O, naming the file, whatever the direction and whether a size is
// given, as fio 3.33 fails it ("error=Is a directory", err=21); it used
// to be read as a 4096-byte file ("past the end of the file").
func TestRunDirectoryAsFilename(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "somedir")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	fio, fioErr := testenv.FioPath()
	for _, rw := range []workload.RW{workload.Read, workload.Write, workload.RandRead, workload.RandWrite, workload.ReadWrite} {
		for _, size := range []int64{0, 1 << 20} {
			job := workload.Job{Name: "j", RW: rw, BlockSize: 4096, Size: size, Filename: target, Engine: "psync"}
			_, err := Run(t.Context(), job, workload.Options{})
			if !errors.Is(err, syscall.EISDIR) || !strings.Contains(err.Error(), target+": is a directory") {
				t.Errorf("%s, size %d: %v, want EISDIR naming %s", rw, size, err, target)
			}
			if left, _ := os.ReadDir(target); len(left) > 0 {
				t.Errorf("%s, size %d: %d files made in the directory", rw, size, len(left))
			}
			if fioErr != nil {
				continue
			}
			args := []string{"--name=j", "--rw=" + rw.String(), "--bs=4k", "--ioengine=psync", "--filename=" + target, "--output-format=terse"}
			if size > 0 {
				args = append(args, "--size=1m")
			}
			cmd := exec.Command(fio, args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "error=Is a directory") || !strings.Contains(string(out), "err=21") {
				t.Errorf("fio %s, size %d: %v, %s; want it failed with EISDIR", rw, size, err, out)
			}
		}
	}
}

// NewScratch names its file after this process; a kept one after nobody.
func TestScratchOwner(t *testing.T) {
	for _, keep := range []bool{false, true} {
		s, err := NewScratch(ScratchOptions{Dir: t.TempDir(), Size: 1 << 20, Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(s.File)
		tag, ok := owner.Parse(base)
		switch {
		case !strings.HasPrefix(base, "stortest-scratch-") || !strings.HasSuffix(base, ".img"):
			t.Errorf("Keep %v: name %s", keep, base)
		case keep && ok:
			t.Errorf("kept file %s carries tag %s", base, tag)
		case !keep && (!ok || tag != owner.Tag()):
			t.Errorf("file %s: tag %q, %v; want this process's %s", base, tag, ok, owner.Tag())
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}
