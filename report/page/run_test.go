package page

import (
	"os"
	"strings"
	"testing"
	"time"

	"stortest.dev/baselines"
)

// dumpPage writes a page to $PAGE_DUMP_DIR/<name>.html, to look at.
func dumpPage(t *testing.T, name, page string) {
	if dir := os.Getenv("PAGE_DUMP_DIR"); dir != "" {
		if err := os.WriteFile(dir+"/"+name+".html", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunPageRecorded(t *testing.T) {
	r := recordedRun(t)
	if s := r.Jobs[0].Steady[0]; !s.Attained || len(s.Losses) == 0 {
		t.Fatalf("the replayed criterion should attain and lose steady state on this recording: %+v", s)
	}
	page := RenderRun(r)
	dumpPage(t, "run", page)
	p := parsePage(t, page)
	if !strings.Contains(p.title, "randread-4k-qd32") {
		t.Errorf("title %q", p.title)
	}
	time := "time since the measured start (s)"
	iops := p.want(t, "job0-iops", []string{"read"}, []string{time, "throughput (IOPS)"}, "ramp", "window", "loss")
	if iops.marks != 1 {
		t.Errorf("IOPS chart has %d attainment marks, want 1", iops.marks)
	}
	p.want(t, "job0-bw", []string{"read"}, []string{time, "bandwidth (MiB/s)"}, "ramp", "window", "loss")
	clat := p.want(t, "job0-clat", []string{"read p50", "read p99", "read p99.9"}, []string{time, "clat (log scale)"})
	for _, tick := range []string{"1ms", "10ms"} {
		if !strings.Contains(strings.Join(clat.tickLabels, " "), tick) {
			t.Errorf("clat chart: no tick %q among %q", tick, clat.tickLabels)
		}
	}
	p.want(t, "job0-hist", []string{"read"}, []string{"latency (log scale)", "share of I/Os per bin (%"})
	ex := p.want(t, "job0-exceed", []string{"read"}, []string{"latency (log scale)", "P(clat > x) (log scale)"})
	for _, tick := range []string{"p50", "p99", "p99.9", "p99.99"} {
		if !strings.Contains(p.text, tick) {
			t.Errorf("exceedance chart: no %s line", tick)
		}
	}
	_ = ex
	dev := "time since the first sample (s)"
	p.want(t, "iostat-rw", []string{"vda r/s", "vda w/s"}, []string{dev, "rate (requests/s)"})
	p.want(t, "iostat-await", []string{"vda r_await", "vda w_await"}, []string{dev, "await (ms)"})
	p.want(t, "iostat-aqu", []string{"vda aqu-sz"}, []string{dev, "aqu-sz"})
	p.want(t, "iostat-util", []string{"vda %util"}, []string{dev, "%util (%)"})
	p.want(t, "iostat-cpu", []string{"%user", "%system", "%iowait", "%idle"}, []string{dev, "CPU (%)"})
	for _, s := range []string{"iops floor", "≥ 80k", "fail", "clat p99.9", "pass", "io_uring", "rw=randread", "iodepth=32", "steady state (iops:10%", "attained at", "CPU-bound"} {
		if !strings.Contains(p.text, s) {
			t.Errorf("page does not say %q", s)
		}
	}
	tidyCheck(t, page)
}

// TestRunPageEdges renders runs with little in them: no seconds (an
// imported fio result), a direction idle for a while, one second.
func TestRunPageEdges(t *testing.T) {
	b := loadBaseline(t, "randread-30s-a.json.gz")
	noSecs := *b
	noSecs.Seconds = nil
	one := *b
	one.Seconds = b.Seconds[:1]
	gaps := *b
	gaps.Seconds = append([]baselines.Second(nil), b.Seconds...)
	for i := 5; i < 10; i++ {
		gaps.Seconds[i].Dirs = [3]*baselines.SecondDir{}
	}
	for _, tc := range []struct {
		name string
		b    *baselines.Baseline
	}{{"no-seconds", &noSecs}, {"one-second", &one}, {"idle-seconds", &gaps}} {
		t.Run(tc.name, func(t *testing.T) {
			page := RenderRun(&Run{Title: tc.name, Jobs: []RunJob{{Baseline: tc.b, Ramp: time.Second}}})
			p := parsePage(t, page)
			if _, ok := p.figures["job0-exceed"]; !ok {
				t.Errorf("no exceedance plot: %v", p.order)
			}
			if _, ok := p.figures["job0-iops"]; ok != (len(tc.b.Seconds) > 0) {
				t.Errorf("IOPS chart present %v with %d seconds", ok, len(tc.b.Seconds))
			}
			tidyCheck(t, page)
		})
	}
}

// TestRunPageShortRunSlices: a run of a few seconds draws its throughput
// per slice (100 ms), so that it has a shape.
func TestRunPageShortRunSlices(t *testing.T) {
	b := loadBaseline(t, "randread-30s-a.json.gz")
	short := *b
	short.Seconds = b.Seconds[:3]
	short.Runtime = 3 * time.Second
	var slices []baselines.Slice
	for _, s := range b.Slices {
		if s.T <= short.Runtime {
			slices = append(slices, s)
		}
	}
	short.Slices = slices
	if len(slices) < 25 {
		t.Fatalf("the recording has %d slices in its first 3 s", len(slices))
	}
	page := RenderRun(&Run{Title: "short", Jobs: []RunJob{{Baseline: &short}}})
	p := parsePage(t, page)
	f := p.want(t, "job0-iops", []string{"read"}, []string{"throughput (IOPS)"})
	if !strings.Contains(f.caption, "per 100ms") {
		t.Errorf("caption %q: want per 100ms", f.caption)
	}
	i := strings.Index(page, `id="job0-iops"`)
	d := page[i:]
	d = d[strings.Index(d, ` d="`)+4:]
	d = d[:strings.IndexByte(d, '"')]
	if n := strings.Count(d, "H"); n < 25 {
		t.Errorf("the IOPS line has %d steps, want one per slice", n)
	}
	tidyCheck(t, page)
}
