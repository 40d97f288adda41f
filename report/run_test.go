package report

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/iostat"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// syntheticResult is a run of two clones of a randrw job: clone 0 did
// 1000 reads of 100 µs and 1000 of 300 µs plus 500 writes, clone 1 the
// same reads, over 2 s each.
func syntheticResult() *workload.Result {
	job := workload.Job{Name: "mix", RW: workload.RandRW, BlockSize: 4096}.Normalized()
	res := &workload.Result{}
	for clone := range 2 {
		jr := workload.NewJobResult(job, clone, latency.FioLayout)
		jr.Target, jr.Runtime = "/dev/null", 2*time.Second
		r := &jr.Dirs[workload.DirRead]
		for i := range 2000 {
			v := uint64(100_000)
			if i >= 1000 {
				v = 300_000
			}
			r.Clat.Add(v)
			r.Lat.Add(v + 1000)
		}
		r.IOs, r.Bytes = 2000, 2000*4096
		if clone == 0 {
			w := &jr.Dirs[workload.DirWrite]
			for range 500 {
				w.Clat.Add(50_000)
				w.Lat.Add(51_000)
			}
			w.IOs, w.Bytes = 500, 500*4096
		}
		res.Jobs = append(res.Jobs, jr)
	}
	return res
}

func TestMetrics(t *testing.T) {
	got := Metrics(syntheticResult())
	var names []string
	vals := map[string]float64{}
	for _, p := range got {
		names = append(names, p.Name)
		v, err := strconv.ParseFloat(p.Value, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", p.Name, p.Value, err)
		}
		vals[p.Name] = v
	}
	wantNames := []string{
		"read.iops", "read.bw_bytes", "read.clat_p50_ns", "read.clat_p99_ns", "read.clat_p99.9_ns",
		"write.iops", "write.bw_bytes", "write.clat_p50_ns", "write.clat_p99_ns", "write.clat_p99.9_ns",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	exact := map[string]float64{
		"read.iops": 2000, "read.bw_bytes": 2000 * 4096, // 2 clones x 1000/s
		"write.iops": 250, "write.bw_bytes": 250 * 4096,
	}
	for k, want := range exact {
		if vals[k] != want {
			t.Errorf("%s = %v, want %v", k, vals[k], want)
		}
	}
	// fio's buckets are at most 1/64 wide: the percentiles land within
	// that of the recorded values. Half the reads took 100 µs, so p50 is
	// 100 µs; p99 and p99.9 are in the 300 µs half.
	near := map[string]float64{
		"read.clat_p50_ns": 100_000, "read.clat_p99_ns": 300_000, "read.clat_p99.9_ns": 300_000,
		"write.clat_p50_ns": 50_000, "write.clat_p99.9_ns": 50_000,
	}
	for k, want := range near {
		if math.Abs(vals[k]-want) > want/64 {
			t.Errorf("%s = %v, want within 1/64 of %v", k, vals[k], want)
		}
	}
	if Metrics(nil) != nil || len(Metrics(&workload.Result{})) != 0 {
		t.Errorf("Metrics of no run is not empty")
	}
}

func TestNewCase(t *testing.T) {
	res := syntheticResult()
	delta := iostat.Delta{
		Interval: 200, // hundredths of a second
		Disks: []iostat.DiskDelta{{
			Name: "loop7", Interval: 200,
			Curr: iostat.IOStats{ReadIOs: 4000, ReadSectors: 32000, Fields: iostat.FieldsFlush},
			Diff: iostat.IOStats{ReadIOs: 4000, ReadSectors: 32000, Fields: iostat.FieldsFlush},
		}},
	}
	fail := Failure{Message: "mix: clat p99.9 read 300µs > limit 200µs", Type: "limit"}
	c, err := NewCase(Run{
		Test: "TestMix", Result: res, IOStat: &delta,
		Host:        iostat.Host{Sysname: "Linux", Release: "6.18", Nodename: "h", Machine: "x86_64", CPUs: 2},
		Elapsed:     2500 * time.Millisecond,
		Fingerprint: []Property{{"fingerprint.kernel", "6.18"}},
		Artifacts:   []string{"/out/TestMix/mix.fio.json"},
		Failures:    []Failure{fail},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Classname != "TestMix" || c.Name != "mix" || c.Time != 2500*time.Millisecond {
		t.Errorf("case %q %q %v", c.Classname, c.Name, c.Time)
	}
	if last := c.Properties[len(c.Properties)-1]; last.Name != "fingerprint.kernel" {
		t.Errorf("fingerprint not after the metrics: %v", c.Properties)
	}
	if c.Properties[0].Name != "read.iops" {
		t.Errorf("metrics not first: %v", c.Properties)
	}
	for _, want := range []string{
		"mix: (clone=0, engine=psync, target=/dev/null)", // the summary, both clones
		"mix: (clone=1,",
		"read: IOPS=1.0k",
		"Device            r/s", // the iostat -x table
		"loop7         2000.00   8000.00",
	} {
		if !strings.Contains(c.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, c.Output)
		}
	}
	if diff := cmp.Diff([]Failure{fail}, c.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	s := Suite{Name: "p", Cases: []Case{c}}
	if err := s.Validate(); err != nil {
		t.Errorf("the case does not validate: %v", err)
	}

	if _, err := NewCase(Run{Test: "T", Job: "j"}); !errors.Is(err, ErrNoResult) {
		t.Errorf("NewCase without a result or a reason = %v, want ErrNoResult", err)
	}
	why := Failure{Message: "j: cannot run: no such file", Type: "run"}
	notRun, err := NewCase(Run{Test: "T", Job: "j", Errors: []Failure{why}})
	if err != nil {
		t.Fatal(err)
	}
	if notRun.Name != "j" || notRun.Output != "" || len(notRun.Properties) != 0 || len(notRun.Errors) != 1 {
		t.Errorf("a run that could not start: %+v", notRun)
	}
	noIO, err := NewCase(Run{Test: "T", Result: res})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(noIO.Output, "Device") {
		t.Errorf("an iostat table without IOStat:\n%s", noIO.Output)
	}
}

func TestJobName(t *testing.T) {
	res := &workload.Result{Jobs: []*workload.JobResult{{Name: "a"}, {Name: "a", Clone: 1}, {Name: "b"}, {Name: "a"}}}
	if got := JobName(res); got != "a+b" {
		t.Errorf("JobName = %q, want a+b", got)
	}
}
