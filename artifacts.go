package stortest

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"stortest.dev/internal/durable"
	"stortest.dev/iostat"

	"stortest.dev/latency/histlog"
	"stortest.dev/target"
	"stortest.dev/workload/fioout"
)

// artifactDir returns the directory of t's artifacts, made on first use:
//   - <-stortest.out>/<test name>, when -stortest.out or STORTEST_OUT is set;
//   - t.ArtifactDir(), under -test.outputdir, when -test.artifacts is set;
//   - testdata/out/<test name> in the package, when a JUnit report is
//     written (its [[ATTACHMENT|...]] lines must point at files that stay);
//   - with STORTEST_NOCLEANUP=1, <temp>/stortest-artifacts-<random>/<test
//     name>, kept after the test (the log says where) and never taken
//     for an orphan;
//   - otherwise <temp>/stortest-artifacts-<owner>-<random>/<test name>
//     (target.NewArtifactDir), removed after the test: a plain "go
//     test" leaves nothing. Its name says which process made it, so when
//     the test binary is killed before its cleanup runs (SIGKILL, a
//     timeout), the next stortest process removes it
//     (target.CleanOrphans). <temp> is $GOTMPDIR or os.TempDir(), as
//     for t.TempDir.
//
// Subtests' names become one directory each, "/" written as "__" as the
// testing package does.
func (st *testState) artifactDir(t testing.TB) (string, error) {
	collected.mu.Lock()
	dir := st.dir
	collected.mu.Unlock()
	if dir != "" {
		return dir, nil
	}
	temp := false
	switch out := OutSetting(); {
	case out != "":
		dir = filepath.Join(out, testDirName(t.Name()))
	case artifactsFlag():
		dir = t.ArtifactDir()
	case JUnitSetting() != "":
		dir = filepath.Join("testdata", "out", testDirName(t.Name()))
	case envIs1(EnvNoCleanup):
		parent, err := os.MkdirTemp(cmp.Or(os.Getenv("GOTMPDIR"), os.TempDir()), "stortest-artifacts-*")
		if err != nil {
			return "", fmt.Errorf("stortest: artifacts: %w", err)
		}
		dir = filepath.Join(parent, testDirName(t.Name()))
		t.Cleanup(func() { t.Logf("stortest: %s=1: keeping the artifacts in %s", EnvNoCleanup, dir) })
	default:
		target.CleanOrphansOnce(os.Stderr)
		parent, err := target.NewArtifactDir()
		if err != nil {
			return "", fmt.Errorf("stortest: %w", err)
		}
		t.Cleanup(func() {
			if err := os.RemoveAll(parent); err != nil {
				t.Errorf("stortest: artifacts: %v", err)
			}
		})
		dir, temp = filepath.Join(parent, testDirName(t.Name())), true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("stortest: artifacts: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("stortest: artifacts: %w", err)
	}
	collected.mu.Lock()
	st.dir, st.tempDir = dir, temp
	collected.mu.Unlock()
	return dir, nil
}

// artifactsFlag reports whether go test's -artifacts flag is set.
func artifactsFlag() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}

func testDirName(name string) string { return safeName(strings.ReplaceAll(name, "/", "__")) }

// safeName keeps a name's letters, digits and ".-_+=,@" and writes every
// other byte as "_", so job and test names make file names that need no
// quoting and cannot climb out of the directory.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte(".-_+=,@", c) >= 0:
		default:
			b[i] = '_'
		}
	}
	s = string(b)
	if s == "" || strings.Trim(s, ".") == "" {
		return "_" + s
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// Artifact file names: <base> is the job's name (made safe), with ".2",
// ".3"... for further runs of the same job in one test.
const (
	extFioJSON    = ".fio.json"    // fio's json+ output
	extSummary    = ".summary.txt" // fio-style summary and the run's iostat table
	extIOStatJSON = ".iostat.json" // per-interval samples, sysstat's JSON
	extIOStatText = ".iostat.txt"  // per-interval samples, sysstat's iostat -x text
	// Histogram logs are named as fio names them: <base>_clat_hist.<clone+1>.log.
)

// writeArtifacts writes a run's files into dir and returns their paths.
// Every file is attempted; the errors are joined.
func writeArtifacts(dir, base string, r *Result, host iostat.Host, start time.Time) ([]string, error) {
	var paths []string
	var errs []error
	write := func(ext string, fill func(w io.Writer) error) {
		path := filepath.Join(dir, base+ext)
		if err := writeFile(path, fill); err != nil {
			errs = append(errs, err)
			return
		}
		paths = append(paths, path)
	}
	write(extFioJSON, func(w io.Writer) error {
		return fioout.WriteFioJSON(w, r.Result, fioout.FormatJSONPlus, start)
	})
	write(extSummary, func(w io.Writer) error {
		if err := fioout.WriteSummary(w, r.Result); err != nil {
			return err
		}
		if len(r.IOStatSamples) == 0 {
			return nil
		}
		io.WriteString(w, "\niostat over the run:\n")
		return iostat.NewTextWriter(w, host, iostatOptions).Write(r.IOStat, r.IOStat.Curr)
	})
	if len(r.IOStatSamples) > 0 {
		write(extIOStatJSON, func(w io.Writer) error {
			jw := iostat.NewJSONWriter(w, host, iostatOptions)
			for _, d := range r.IOStatSamples {
				if err := jw.Write(d, d.Curr); err != nil {
					return err
				}
			}
			return jw.Close()
		})
		write(extIOStatText, func(w io.Writer) error {
			tw := iostat.NewTextWriter(w, host, iostatOptions)
			for _, d := range r.IOStatSamples {
				if err := tw.Write(d, d.Curr); err != nil {
					return err
				}
			}
			return nil
		})
	}
	// The runner wrote the histogram logs (Options.HistLogPrefix).
	for _, j := range r.Jobs {
		if path := histlog.FileName(filepath.Join(dir, base), j.Clone+1); fileExists(path) {
			paths = append(paths, path)
		}
	}
	return paths, errors.Join(errs...)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// iostatOptions are those of "iostat -d -x -t" naming the devices, so
// every device of the target is listed even when idle.
var iostatOptions = iostat.ReportOptions{Extended: true, Timestamp: true, AllDevices: true, ISO: true}

// writeFile writes an artifact whole or not at all (durable.WriteFile):
// on a full or failing disk nothing is left at path, and the error names
// it.
func writeFile(path string, fill func(w io.Writer) error) error {
	if err := durable.WriteFile(path, 0o644, fill); err != nil {
		return fmt.Errorf("stortest: artifact: %w", err)
	}
	return nil
}
