package runner

import (
	"testing"
	"time"

	"stortest.dev/engines"
	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// The lean path of ioSource.next issues exactly what the full path does:
// the same I/Os in the same order, and the same end. Jobs that use
// anything it leaves out take the full path.
func TestSourceLeanPath(t *testing.T) {
	no := true
	base := func(rw workload.RW, mod func(*workload.Job)) workload.Job {
		j := workload.Job{RW: rw, BlockSize: 4096, Size: 1 << 20}
		if mod != nil {
			mod(&j)
		}
		return j
	}
	for _, c := range []struct {
		name string
		job  workload.Job
		lean bool
	}{
		{"randread map", base(workload.RandRead, nil), true},
		{"randread norandommap", base(workload.RandRead, func(j *workload.Job) { j.NoRandomMap = true }), true},
		{"randwrite loops", base(workload.RandWrite, func(j *workload.Job) { j.BlockSize, j.Loops = 8192, 3 }), true},
		{"read io_size", base(workload.Read, func(j *workload.Job) { j.IOSize = 3 << 19 }), true},
		{"read:8k", base(workload.Read, func(j *workload.Job) { j.RWModifier = 8192 }), true},
		{"randtrim", base(workload.RandTrim, nil), true},
		{"zipf", base(workload.RandRead, func(j *workload.Job) {
			j.RandomDistribution = workload.Distribution{Kind: workload.DistZipf, Param: 1.2}
		}), true},
		{"number_ios", base(workload.RandRead, func(j *workload.Job) { j.NumberIOs = 77 }), true},
		{"randrepeat=0", base(workload.RandRead, func(j *workload.Job) { j.RandRepeat = &no }), true},
		{"time based", base(workload.RandRead, func(j *workload.Job) { j.TimeBased, j.Runtime = true, time.Second }), true},
		{"randrw", base(workload.RandRW, nil), false},
		{"bsrange", base(workload.RandRead, func(j *workload.Job) {
			j.BlockSize, j.BlockSizeRange = 0, workload.BlockSizeRange{Min: 4096, Max: 16384}
		}), false},
		{"rate", base(workload.RandRead, func(j *workload.Job) { j.RateIOPS = [3]int{1e9} }), false},
		{"verify", base(workload.RandWrite, func(j *workload.Job) { j.Verify = workload.VerifyCRC32C }), false},
		{"randread:4", base(workload.RandRead, func(j *workload.Job) { j.RWModifier = 4 }), false},
		{"trimwrite", base(workload.TrimWrite, nil), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := c.job
			j.Name, j.Engine = "lean", "null"
			j = j.Normalized()
			if err := validate.Job(&j); err != nil {
				t.Fatal(err)
			}
			lean, err := newIOSource(j, 0, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			full, err := newIOSource(j, 0, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			lean.entropy, full.entropy = 1, 1 // randrepeat=0 draws it at random
			lean.settle()
			if lean.lean != c.lean {
				t.Fatalf("lean path %v, want %v", lean.lean, c.lean)
			}
			buf := make([]byte, j.MaxBlockSize())
			a, b := engines.Unit{Buf: buf}, engines.Unit{Buf: buf}
			for i := range 1000 {
				sa, _ := lean.next(&a, int64(i)*1e9, true)
				sb, _ := full.next(&b, int64(i)*1e9, true)
				if sa != sb || a.Op != b.Op || a.Offset != b.Offset || len(a.Buf) != len(b.Buf) {
					t.Fatalf("I/O %d: lean %v %v@%d+%d, full %v %v@%d+%d", i, sa, a.Op, a.Offset, len(a.Buf), sb, b.Op, b.Offset, len(b.Buf))
				}
				if sa == srcDone {
					if j.TimeBased {
						t.Fatalf("a time-based job ended after %d I/Os", i)
					}
					return
				}
				a.Buf, b.Buf = buf, buf
			}
			if !j.TimeBased {
				t.Fatal("no end after 1000 I/Os")
			}
		})
	}
}
