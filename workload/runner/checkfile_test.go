package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
)

// allow_mounted_write is fio's option with fio's values; it prints back
// and reads back.
func TestAllowMountedWriteOption(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want bool
	}{{"--allow_mounted_write=1", true}, {"--allow_mounted_write", true}, {"--allow_mounted_write=0", false}} {
		jobs, err := parseArgs([]string{"--name=w", "--rw=write", "--filename=/dev/null", tc.arg})
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if jobs[0].AllowMountedWrite != tc.want {
			t.Errorf("%s: AllowMountedWrite = %v", tc.arg, jobs[0].AllowMountedWrite)
		}
		again, err := parseFile(strings.NewReader(fiojob.Format(jobs[0])), "printed")
		if err != nil || again[0].AllowMountedWrite != tc.want {
			t.Errorf("%s: printed %q, read back %v, %v", tc.arg, fiojob.Format(jobs[0]), again, err)
		}
	}
	if _, err := parseArgs([]string{"--name=w", "--allow_mounted_write=maybe"}); err == nil || !strings.Contains(err.Error(), "allow_mounted_write") {
		t.Errorf("a bad value: %v", err)
	}
}

// CheckFile sees the file of every clone of every job, read_iolog's and
// the default name included, before anything is laid out: a refusal of
// the last clone leaves the first job's missing file uncreated.
func TestCheckFileBeforeLayout(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	logged := filepath.Join(dir, "logged")
	iolog := filepath.Join(dir, "replay.log")
	if err := os.WriteFile(iolog, []byte("fio version 2 iolog\n"+logged+" add\n"+logged+" open\n"+logged+" write 0 4096\n"+logged+" close\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, err := parseFile(strings.NewReader(`[a]
rw=write
filename=`+first+`
size=1m
numjobs=2
[b]
read_iolog=`+iolog+`
[n]
ioengine=null
rw=write
size=1m
[c]
rw=read
directory=`+dir+`
size=1m
`), "jobs.fio")
	if err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	type seen struct {
		job, file string
		rw        workload.RW
	}
	var got []seen
	_, err = RunJobs(context.Background(), jobs, workload.Options{CheckFile: func(j *workload.Job, file string) error {
		got = append(got, seen{j.Name, file, j.RW})
		if j.Name == "c" {
			return refuse
		}
		return nil
	}})
	if !errors.Is(err, refuse) {
		t.Fatalf("RunJobs: %v, want the refusal", err)
	}
	want := []seen{{"a", first, workload.Write}, {"a", first, workload.Write}, {"b", logged, workload.Write}, {"c", filepath.Join(dir, "c.0.0"), workload.Read}}
	if !slices.Equal(got, want) {
		t.Errorf("CheckFile saw %v, want %v", got, want)
	}
	for _, p := range []string{first, logged, filepath.Join(dir, "c.0.0")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: laid out before every file was checked (%v)", p, err)
		}
	}
}
