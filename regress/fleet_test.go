package regress_test

import (
	"errors"
	"testing"

	"stortest.dev/baselines"
	"stortest.dev/latency"
	"stortest.dev/regress"
)

// Four hosts, one at a quarter of the others' IOPS with its tail 3x
// longer: that host, and only that one, regresses against the rest; the
// fleet's IOPS is the sum of the hosts' and its p99 that of the merged
// histograms.
func TestCompareFleet(t *testing.T) {
	runs := []regress.HostRun{
		{Host: "node1", Baseline: run(2000, 100e3, 1, "1.2")},
		{Host: "node2", Baseline: run(2050, 102e3, 1, "1.2")},
		{Host: "node3", Baseline: run(500, 100e3, 3, "1.2")},
		{Host: "node4", Baseline: run(1980, 99e3, 1, "1.2")},
	}
	fr, err := regress.CompareFleet(runs, regress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	slow := fr.Slow()
	if len(slow) != 1 || slow[0].Name != "node3" {
		for _, r := range fr.Hosts {
			t.Log(r.Summary())
		}
		t.Fatalf("slow hosts %d, want node3 alone", len(slow))
	}
	if f, _ := slow[0].Finding("read.iops"); f.Verdict != regress.Regression {
		t.Errorf("node3 read.iops: %s", f.Reason)
	}
	if len(fr.Dirs) != 1 || fr.Dirs[0].Hosts != 4 {
		t.Fatalf("fleet dirs %+v", fr.Dirs)
	}
	var iops float64
	merged := latency.New(latency.MustLayout(latency.LongGroups))
	for _, h := range runs {
		d := h.Baseline.Dir("read")
		iops += d.IOPS
		hist, err := d.Clat.Hist.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(hist); err != nil {
			t.Fatal(err)
		}
	}
	if fd := fr.Dirs[0]; fd.IOPS != iops || fd.ClatP99 != merged.Percentile(99) {
		t.Errorf("fleet IOPS %v p99 %v, want %v and %v", fd.IOPS, fd.ClatP99, iops, merged.Percentile(99))
	}
}

func TestCompareFleetRefuses(t *testing.T) {
	one := []regress.HostRun{{Host: "node1", Baseline: run(2000, 100e3, 1, "1.2")}}
	if _, err := regress.CompareFleet(one, regress.Config{}); !errors.Is(err, regress.ErrFleet) {
		t.Errorf("one host: %v", err)
	}
	other := run(2000, 100e3, 1, "1.2")
	other.Job.IODepth = 64
	two := append(one, regress.HostRun{Host: "node2", Baseline: other}, regress.HostRun{Host: "node3", Baseline: run(2000, 100e3, 1, "1.2")})
	if _, err := regress.CompareFleet(two, regress.Config{}); !errors.Is(err, regress.ErrFleet) || !errors.Is(err, baselines.ErrOtherJob) {
		t.Errorf("another workload: %v", err)
	}
}
