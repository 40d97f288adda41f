package page

import (
	"testing"
	"time"

	"stortest.dev/baselines"
	"stortest.dev/iostat"
	"stortest.dev/latency"
	"stortest.dev/workload"
)

// hourRun is the recorded 30 s run stretched to an hour at one sample a
// second (its seconds and iostat samples repeated in order), with steady
// state attained and lost: the size of run the page budget is set for.
func hourRun(t testing.TB) *Run {
	t.Helper()
	r := recordedRun(t)
	b := *r.Jobs[0].Baseline
	src := b.Seconds[:len(b.Seconds)-1] // whole seconds only
	b.Seconds = make([]baselines.Second, 0, 3600)
	for i := range 3600 {
		s := src[i%len(src)]
		s.T = time.Duration(i+1) * time.Second
		s.Dur = time.Second
		b.Seconds = append(b.Seconds, s)
	}
	b.Runtime = time.Hour
	r.Jobs[0].Baseline = &b
	io := r.IOStat
	r.IOStat = make([]iostat.Delta, 0, 3600)
	start := io[0].Prev
	for i := range 3600 {
		d := io[i%len(io)]
		d.Prev = start.Add(time.Duration(i) * time.Second)
		d.Curr = d.Prev.Add(time.Second)
		r.IOStat = append(r.IOStat, d)
	}
	return r
}

// pageBudget is issue 16's: a page of a 1 h run at 1 s samples renders
// in under a second into under 2 MB.
const (
	pageBudgetBytes = 2 << 20
	pageBudgetTime  = time.Second
)

func BenchmarkRenderRunHour(b *testing.B) {
	r := hourRun(b)
	var n int
	for b.Loop() {
		n = len(RenderRun(r))
	}
	b.ReportMetric(float64(n), "bytes/page")
}

func BenchmarkRenderDiffHour(b *testing.B) {
	r := hourRun(b)
	base := r.Jobs[0].Baseline
	d := &Diff{Base: base, Current: base}
	var n int
	for b.Loop() {
		n = len(RenderDiff("hour", d))
	}
	b.ReportMetric(float64(n), "bytes/page")
}

// TestRunPageHourSize holds the page of an hour's run to its size budget
// and checks that it is still well-formed with every series; the time
// budget is make bench's (scripts/bench-page.sh).
func TestRunPageHourSize(t *testing.T) {
	r := hourRun(t)
	start := time.Now()
	page := RenderRun(r)
	took := time.Since(start)
	t.Logf("an hour's run: %d bytes in %v", len(page), took)
	if len(page) >= pageBudgetBytes {
		t.Errorf("the page of an hour's run is %d bytes, over the budget of %d", len(page), pageBudgetBytes)
	}
	p := parsePage(t, page)
	p.want(t, "job0-iops", []string{"read"}, []string{"time since the measured start (min)"}, "window", "loss")
	p.want(t, "iostat-util", []string{"vda %util"}, []string{"time since the first sample (min)"})
}

// hourResult is a workload result of an hour at one second a sample,
// each second's clat histogram a 1/1800 share of the recorded run's: what
// stortest.Run hands NewRun after an hour.
func hourResult(t testing.TB) *workload.Result {
	t.Helper()
	b := loadBaseline(t, "randread-30s-a.json.gz")
	whole, err := b.Dirs[0].Clat.Hist.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	jr := workload.NewJobResult(b.Job, 0, whole.Layout())
	jr.Runtime = time.Hour
	jr.Start = b.Created
	sec := latency.New(whole.Layout())
	for _, bin := range whole.Bins() {
		sec.AddBin(bin.Value, (bin.Count+1799)/1800)
	}
	for i := range 3600 {
		s := workload.Second{T: time.Duration(i+1) * time.Second, Dur: time.Second}
		s.IOs[workload.DirRead] = sec.Count()
		s.Bytes[workload.DirRead] = sec.Count() * 4096
		s.Clat[workload.DirRead] = latency.NewSparse(sec)
		jr.Seconds = append(jr.Seconds, s)
		_ = jr.Dirs[workload.DirRead].Clat.Merge(sec)
		jr.Dirs[workload.DirRead].IOs += sec.Count()
		jr.Dirs[workload.DirRead].Bytes += sec.Count() * 4096
	}
	return &workload.Result{Jobs: []*workload.JobResult{jr}}
}

// BenchmarkRunHourFromResult is what stortest.Run does for an hour's
// run: the page made from the workload result (its clones merged, each
// second's percentiles from its histogram), then rendered.
func BenchmarkRunHourFromResult(b *testing.B) {
	res := hourResult(b)
	io := hourRun(b).IOStat
	var n int
	for b.Loop() {
		r, err := NewRun("hour", res, baselines.Fingerprint{})
		if err != nil {
			b.Fatal(err)
		}
		r.IOStat = io
		n = len(RenderRun(r))
	}
	b.ReportMetric(float64(n), "bytes/page")
}
