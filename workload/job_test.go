package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

// golden compares got with testdata/name, or rewrites it with -update
// (testenv.Update): go test ./workload -update.
// It stops the test (Fatal) when the file cannot be read or written and
// reports a mismatch without stopping.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *testenv.Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./workload -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s\nrun go test ./workload -run %s -update if the change is intended", path, diff, t.Name())
	}
}

// fullJob sets every field away from its default.
func fullJob() Job {
	return Job{
		Name:               "full",
		Description:        "every option",
		Filename:           "/dev/loop7",
		Engine:             "io_uring",
		RW:                 RandRW,
		RWMixRead:          70,
		BlockSizeSplit:     []BlockSizeSplit{{4096, 60}, {65536, 40}},
		IODepth:            32,
		IODepthBatch:       8,
		NumJobs:            2,
		Size:               1 << 30,
		Offset:             1 << 20,
		Direct:             true,
		Runtime:            time.Minute,
		TimeBased:          true,
		RampTime:           5 * time.Second,
		Loops:              3,
		RateIOPS:           [3]int{1000, 500, 500},
		FsyncEvery:         16,
		NoRandomMap:        true,
		RandRepeat:         Bool(false),
		RandSeed:           12345,
		RandomDistribution: Distribution{Kind: DistZipf, Param: 1.2, Center: 0.25, HasCenter: true},
		Verify:             VerifyCRC32C,
		VerifyPattern:      `0xdeadbeef"abc"`,
		Hipri:              true,
		FixedBufs:          true,
		RegisterFiles:      true,
		SQThreadPoll:       true,
		NoWait:             true,
		PercentileList:     []float64{50, 99, 99.9},
		LatPercentiles:     true,
		SlatPercentiles:    true,
		WriteHistLog:       "hist",
		LogHistMsec:        1000,
		SS:                 "iops_slope:0.1%",
		SSDur:              30 * time.Second,
		SSRamp:             10 * time.Second,
	}
}

func TestRWNames(t *testing.T) {
	for rw := Read; rw <= RandTrimWrite; rw++ {
		got, err := ParseRW(rw.String())
		if err != nil || got != rw {
			t.Errorf("ParseRW(%q) = %v, %v", rw.String(), got, err)
		}
	}
	if rw, err := ParseRW("readwrite"); err != nil || rw != ReadWrite {
		t.Errorf("ParseRW(readwrite) = %v, %v", rw, err)
	}
	for _, bad := range []string{"randread:8", "Read", "trimread", ""} {
		if _, err := ParseRW(bad); err == nil {
			t.Errorf("ParseRW(%q): want an error", bad)
		}
	}
	if _, err := ParseRW("randread:8"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ParseRW(randread:8) = %v, want ErrUnsupported", err)
	}
	for rw, trims := range map[RW]bool{Trim: true, RandTrim: true, TrimWrite: true, RandTrimWrite: true, RandRW: false, Write: false} {
		if rw.Trims() != trims || rw.TrimWrites() != (rw == TrimWrite || rw == RandTrimWrite) {
			t.Errorf("%v: Trims %v, TrimWrites %v", rw, rw.Trims(), rw.TrimWrites())
		}
	}
	checks := []struct {
		rw                           RW
		random, mixed, reads, writes bool
	}{
		{Read, false, false, true, false},
		{Write, false, false, false, true},
		{RandRead, true, false, true, false},
		{RandWrite, true, false, false, true},
		{ReadWrite, false, true, true, true},
		{RandRW, true, true, true, true},
		{Trim, false, false, false, false},
		{RandTrim, true, false, false, false},
		{TrimWrite, false, false, false, true},
		{RandTrimWrite, true, false, false, true},
	}
	for _, c := range checks {
		if c.rw.Random() != c.random || c.rw.Mixed() != c.mixed || c.rw.Reads() != c.reads || c.rw.Writes() != c.writes {
			t.Errorf("%v: Random/Mixed/Reads/Writes = %v %v %v %v, want %v %v %v %v", c.rw,
				c.rw.Random(), c.rw.Mixed(), c.rw.Reads(), c.rw.Writes(), c.random, c.mixed, c.reads, c.writes)
		}
	}
}

func TestNormalized(t *testing.T) {
	got := Job{Name: "x"}.Normalized()
	want := Job{
		Name: "x", Engine: "psync", RWMixRead: 50, BlockSize: 4096, IODepth: 1, IODepthBatch: 1,
		IODepthBatchCompleteMin: 1,
		NumJobs:                 1, Loops: 1, RandRepeat: Bool(true), PercentileList: DefaultPercentiles,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Normalized (-want +got):\n%s", diff)
	}
	// Idempotent, and shares nothing with its input.
	j := fullJob()
	n := j.Normalized()
	if diff := cmp.Diff(n, n.Normalized()); diff != "" {
		t.Errorf("Normalized is not idempotent (-once +twice):\n%s", diff)
	}
	n.BlockSizeSplit[0].Size = 1
	n.PercentileList[0] = 1
	*n.RandRepeat = true
	if j.BlockSizeSplit[0].Size != 4096 || j.PercentileList[0] != 50 || *j.RandRepeat {
		t.Error("Normalized shares slices or RandRepeat with its input")
	}
	d := Job{Name: "x", SSDur: time.Second}.Normalized()
	if d.SS != DefaultSS {
		t.Errorf("SS with ss_dur set = %q, want fio's default %q", d.SS, DefaultSS)
	}
	if r := (Job{BlockSizeRange: BlockSizeRange{512, 4096}}).Normalized(); r.BlockSize != 0 {
		t.Errorf("bs defaulted to %d although bsrange is set", r.BlockSize)
	}
}

func TestJobStringGolden(t *testing.T) {
	j := fullJob()
	golden(t, "full.fio", []byte(FormatJob(j)))
	golden(t, "defaults.fio", []byte(FormatJob(Job{Name: "defaults"})))
}

func TestJobJSON(t *testing.T) {
	j := fullJob()
	b, err := json.MarshalIndent(j, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "full.json", append(b, '\n'))

	// The default workload encodes the same whether its defaults are
	// spelled out or not.
	a, err := json.Marshal(Job{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := json.Marshal(Job{Name: "x", Engine: "psync", RWMixRead: 50, BlockSize: 4096, IODepth: 1,
		IODepthBatch: 1, NumJobs: 1, Loops: 1, RandRepeat: Bool(true), PercentileList: DefaultPercentiles})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, c) {
		t.Errorf("equal workloads encode differently:\n%s\n%s", a, c)
	}

	// JSON round trip gives the normalized job back.
	for _, j := range []Job{fullJob(), {Name: "x"}, {Name: "r", RW: RandRead, BlockSizeRange: BlockSizeRange{512, 8192}}} {
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		var back Job
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if diff := cmp.Diff(j.Normalized(), back); diff != "" {
			t.Errorf("JSON round trip of %q (-want +got):\n%s", j.Name, diff)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(b, again) {
			t.Errorf("re-encoding differs:\n%s\n%s", b, again)
		}
	}
	var bad Job
	if err := json.Unmarshal([]byte(`{"rw":"trimread"}`), &bad); err == nil {
		t.Error("unmarshal rw=trimread: want an error")
	}
}

func TestBlockSizeBounds(t *testing.T) {
	for _, tc := range []struct {
		j        Job
		min, max int64
	}{
		{Job{}, 4096, 4096},
		{Job{BlockSize: 8192}, 8192, 8192},
		{Job{BlockSizeRange: BlockSizeRange{512, 65536}}, 512, 65536},
		{Job{BlockSizeSplit: []BlockSizeSplit{{65536, 10}, {4096, 80}, {16384, 10}}}, 4096, 65536},
	} {
		if tc.j.MinBlockSize() != tc.min || tc.j.MaxBlockSize() != tc.max {
			t.Errorf("%+v: min/max = %d/%d, want %d/%d", tc.j, tc.j.MinBlockSize(), tc.j.MaxBlockSize(), tc.min, tc.max)
		}
	}
}
