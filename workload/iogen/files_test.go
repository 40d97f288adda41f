package iogen

import (
	"testing"

	"stortest.dev/workload"
)

// A pattern of several files walks each file's region once per loop,
// serving them in turn, and counts the loop once every file has run
// out; drawing allocates nothing.
func TestFilesPatternLoopsAndAllocs(t *testing.T) {
	j := workload.Job{Name: "f", RW: workload.Write, BlockSize: 4096, Size: 3 * 16 << 10, Loops: 2}
	j.NrFiles = 3
	p, err := NewPattern(&j, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Files() != 3 {
		t.Fatalf("Files() = %d, want 3", p.Files())
	}
	next := map[int32]int64{}
	for i := range 12 {
		if p.Passes() != 0 {
			t.Fatalf("I/O %d: passes %d before the loop is over", i, p.Passes())
		}
		io := p.Next()
		f := p.File()
		if f != int32(i%3) {
			t.Fatalf("I/O %d on file %d, want %d (round robin)", i, f, i%3)
		}
		if io.Offset != next[f] || io.Len != 4096 {
			t.Fatalf("I/O %d: file %d offset %d len %d, want offset %d", i, f, io.Offset, io.Len, next[f])
		}
		next[f] += 4096
	}
	if p.Passes() != 1 {
		t.Fatalf("passes %d after every file's region, want 1", p.Passes())
	}
	if io := p.Next(); io.Offset != 0 || p.File() != 0 {
		t.Fatalf("second loop starts at file %d offset %d, want file 0 offset 0", p.File(), io.Offset)
	}
	r := workload.Job{Name: "r", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 20}
	r.NrFiles, r.FileService = 7, workload.FileService{Kind: workload.ServiceZipf}
	q, err := NewPattern(&r, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { q.Next() }); n != 0 {
		t.Fatalf("%v allocations per I/O of a job of several files", n)
	}
}

// fio's file service draws: random is nrfiles times the draw over 2^32;
// with done files skipped, every pick is a file not done.
func TestFileChooserSkipsDone(t *testing.T) {
	for _, k := range []workload.FileServiceKind{workload.ServiceRoundRobin, workload.ServiceRandom, workload.ServiceSequential} {
		c := newFileChooser(workload.FileService{Kind: k}, 5, 7)
		done := []bool{true, false, true, false, true}
		open := make([]bool, 5)
		nopen := 0
		for range 100 {
			f := c.pick(done, open, &nopen, 5)
			if done[f] {
				t.Fatalf("%v picked done file %d", k, f)
			}
		}
	}
}
