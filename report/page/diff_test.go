package page

import (
	"strings"
	"testing"

	"stortest.dev/regress"
)

// TestDiffPageRecorded compares two recorded runs with a third: an
// unchanged one (another run of the same job), and one on a shared disk
// at less than half the IOPS, so noisy that the gate calls it
// inconclusive, which the page must show as plainly as a verdict.
func TestDiffPageRecorded(t *testing.T) {
	base := loadBaseline(t, "randread-30s-a.json.gz")
	same := loadBaseline(t, "randread-30s-b.json.gz")
	slow := loadBaseline(t, "randread-30s-shared.json.gz")
	cfg := regress.Config{}
	d1 := &Diff{Base: base, Current: same, Report: regress.Compare(base, same, cfg), Name: "unchanged"}
	d2 := &Diff{Base: base, Current: slow, Report: regress.Compare(base, slow, cfg), Name: "shared disk"}
	if d2.Report.Verdict != regress.Inconclusive {
		t.Fatalf("the shared-disk run: %v, want inconclusive: %s", d2.Report.Verdict, d2.Report.Summary())
	}
	page := RenderDiff("baseline diff", d1, d2)
	dumpPage(t, "diff", page)
	p := parsePage(t, page)
	for i, d := range []*Diff{d1, d2} {
		id := "cmp" + itoa(i)
		f := p.figures[id+"-forest"]
		if f == nil {
			t.Fatalf("no forest plot %s: %v", id, p.order)
		}
		// One point per finding, each with its reason as a tooltip.
		if got := strings.Count(page[strings.Index(page, `id="`+id+`-forest"`):], "<circle"); got < len(d.Report.Findings) {
			t.Errorf("%s: %d points for %d findings", id, got, len(d.Report.Findings))
		}
		p.want(t, id+"-hist-read", []string{"baseline", "this run"}, []string{"latency (log scale)"})
		p.want(t, id+"-exceed-read", []string{"baseline", "this run"}, []string{"P(clat > x) (log scale)"})
		for k := range 2 {
			p.want(t, id+"-iops-"+itoa(k), []string{"read"}, []string{"time (s)", "throughput (IOPS)"})
			p.want(t, id+"-p99-"+itoa(k), []string{"read"}, []string{"time (s)", "clat p99 (log scale)"})
		}
	}
	for _, s := range []string{"inconclusive", "read.iops", "tolerance", "change against the baseline (%, log scale of the ratio)"} {
		if !strings.Contains(p.text, s) {
			t.Errorf("page does not say %q", s)
		}
	}
	for _, v := range []string{"pass", "inconclusive"} {
		if !strings.Contains(page, `class="pt `+v+`"`) {
			t.Errorf("no %s point in the forest plots", v)
		}
	}
	tidyCheck(t, page)
}

// A baseline of 0 IOPS against a run that did I/O is a change from 0 on
// the page as in every report: no "Inf%" or "NaN%", in the table or the
// tooltips.
func TestDiffPageChangeFromZero(t *testing.T) {
	base := loadBaseline(t, "randread-30s-a.json.gz")
	same := loadBaseline(t, "randread-30s-b.json.gz")
	base.Dirs[0].IOPS = 0
	page := RenderDiff("baseline diff", &Diff{Base: base, Current: same, Report: regress.Compare(base, same, regress.Config{}), Name: "from 0"})
	for _, bad := range []string{"Inf%", "NaN%", "n/a"} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("the page prints %q: %s", bad, page[max(i-200, 0):min(i+50, len(page))])
		}
	}
	if !strings.Contains(page, ">from 0<") {
		t.Errorf("the page does not say the change is from 0")
	}
}

// A tolerance's floor is printed in its metric's unit, as every other
// figure for people: "10% (floor 1µs)", not "(floor 1000)".
func TestTolTextFloorUnit(t *testing.T) {
	for _, tc := range []struct {
		tol  regress.Tolerance
		unit regress.Unit
		want string
	}{
		{regress.Tolerance{Fraction: 0.1, Floor: 1000}, regress.UnitNS, "10% (floor 1µs)"},
		{regress.Tolerance{Fraction: 0.1, Floor: 4096}, regress.UnitBW, "10% (floor 4KiB/s)"},
		{regress.Tolerance{Fraction: 0.2, Floor: 1}, regress.UnitIOPS, "20% (floor 1 IOPS)"},
		{regress.Tolerance{Fraction: 0.05}, regress.UnitNS, "5%"},
	} {
		if got := tolText(tc.tol, tc.unit); got != tc.want {
			t.Errorf("tolText(%+v, %v) = %q, want %q", tc.tol, tc.unit, got, tc.want)
		}
	}
}
