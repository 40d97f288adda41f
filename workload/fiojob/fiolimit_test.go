package fiojob

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// sectionsFile is a job file of n job sections (numjobs each when not 1)
// after a [global] section and, between the jobs, globals more [global]
// sections, which fio does not count as jobs.
func sectionsFile(n, numjobs, globals int) string {
	var b strings.Builder
	b.WriteString("[global]\nthread\nioengine=null\nrw=read\nbs=4k\nsize=4k\n")
	for i := range n {
		if i < globals {
			fmt.Fprintf(&b, "[global-%d]\nbs=4k\n", i)
		}
		fmt.Fprintf(&b, "[j%d]\n", i)
		if numjobs != 1 {
			fmt.Fprintf(&b, "numjobs=%d\n", numjobs)
		}
	}
	return b.String()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// More jobs than fio 3.33's limit of 4088, each numjobs clone counting
// and [global] sections not, are refused at parse time, at the job that
// passes it, naming the limit: the rest of the file is not read, so
// 200,000 sections are refused at once rather than opening a file for
// each. fio 3.33 draws the line at the same place.
func TestParseFioJobLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		ok      bool
		line    int
		option  string
		clones  int
		fioRuns bool // a case fio runs (slow: thousands of threads); refusals take seconds
		noFio   bool // not run by fio: like another case
	}{
		{name: "4088 sections", text: sectionsFile(4088, 1, 20), ok: true, fioRuns: true},
		{name: "4089 sections", text: sectionsFile(4089, 1, 0), line: 7 + 4088, clones: 4089},
		{name: "numjobs 4088", text: sectionsFile(1, 4088, 0), ok: true},
		{name: "numjobs 4089", text: sectionsFile(1, 4089, 0), line: 8, option: "numjobs", clones: 4089, noFio: true},
		{name: "2044+2044 clones", text: sectionsFile(2, 2044, 0), ok: true},
		{name: "2044+2045 clones", text: sectionsFile(1, 2044, 0) + "[b]\nnumjobs=2045\n", line: 10, option: "numjobs", clones: 4089},
		{name: "numjobs 100000", text: sectionsFile(1, 100000, 0), line: 8, option: "numjobs", clones: 100000, noFio: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := parseFile(strings.NewReader(tc.text), "many.fio")
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, j := range jobs {
					n += j.NumJobs
				}
				if n != workload.MaxJobs {
					t.Errorf("%d jobs, want %d", n, workload.MaxJobs)
				}
			} else {
				var pe *ParseError
				if !errors.As(err, &pe) || !errors.Is(err, workload.ErrTooManyJobs) || pe.Line != tc.line || pe.Option != tc.option {
					t.Fatalf("%v, want ErrTooManyJobs at many.fio:%d, option %q", err, tc.line, tc.option)
				}
				for _, w := range []string{fmt.Sprint(tc.clones, " jobs"), "limit of 4088", "maximum number of jobs reached"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%v: want %q in it", err, w)
					}
				}
			}
			fio, fioErr := testenv.FioPath()
			if fioErr != nil || (tc.fioRuns && testing.Short()) || (tc.ok && !tc.fioRuns) || tc.noFio {
				return
			}
			ok, out := fioOn(t, fio, tc.text, "--minimal")
			if ok != tc.ok || (!ok && !strings.Contains(out, "error: maximum number of jobs reached.")) {
				t.Errorf("fio runs it: %v, want %v (%.300s)", ok, tc.ok, out)
			}
		})
	}
	// 200,000 sections: refused after the 4089th, the rest not read.
	text := sectionsFile(200000, 1, 0)
	r := &countingReader{r: strings.NewReader(text)}
	start := time.Now()
	_, err := parseFile(r, "huge.fio")
	t.Logf("200000 sections (%d bytes): refused in %v after reading %d bytes", len(text), time.Since(start), r.n)
	if !errors.Is(err, workload.ErrTooManyJobs) {
		t.Fatalf("%v, want ErrTooManyJobs", err)
	}
	if r.n > len(text)/10 {
		t.Errorf("read %d of %d bytes: the parse went on past the limit", r.n, len(text))
	}
}

// RunJobs refuses more jobs than MaxJobs, clones counting, before it
// opens any file.
func TestRunJobsLimit(t *testing.T) {
	dir := t.TempDir()
	jobs := []workload.Job{
		{Name: "a", RW: workload.Read, BlockSize: 4096, Size: 4096, Engine: "null", NumJobs: 2000},
		{Name: "b", RW: workload.Read, BlockSize: 4096, Size: 4096, Engine: "psync", Filename: dir + "/b", NumJobs: 2089},
	}
	_, err := runner.RunJobs(t.Context(), jobs, workload.Options{})
	if !errors.Is(err, workload.ErrTooManyJobs) || !strings.Contains(err.Error(), "job b") {
		t.Fatalf("%v, want ErrTooManyJobs at job b", err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("files made: %v", left)
	}
}
