package history

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"stortest.dev/baselines"

	"stortest.dev/regress"
)

// Acceptance: 60 runs, p99 +20% from run 40 on, where the firmware went
// from 1.0 to 1.1, with 5% noise: the change point is at run 40 (±1),
// named with the firmware change, and it is the latest segment's
// regression. Twenty histories, so one lucky seed cannot pass it.
func TestChangesFindsFirmwareStep(t *testing.T) {
	extra := 0
	for seed := range uint64(20) {
		hist := simHistory(seed, 60, 40, 1.20, 0.05)
		rep, err := Changes(entries(hist), Config{Metrics: []string{"read.clat.p99"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Series) != 1 || len(rep.Series[0].Metrics) != 1 {
			t.Fatalf("seed %d: report %+v: want one series with one metric", seed, rep)
		}
		m := rep.Series[0].Metrics[0]
		var found *Change
		for i := range m.Changes {
			if c := &m.Changes[i]; c.Run >= 39 && c.Run <= 41 {
				found = c
			}
		}
		if found == nil {
			t.Errorf("seed %d: no change point at run 40±1: %+v", seed, m.Changes)
			continue
		}
		extra += len(m.Changes) - 1
		if got := found.what(); !strings.Contains(got, "firmware 1.0 -> 1.1") {
			t.Errorf("seed %d: change at run %d names %q, want the firmware change", seed, found.Run, got)
		}
		if found.Ratio < 1.15 || found.Ratio > 1.25 || !(found.Interval.Low < found.Ratio && found.Ratio < found.Interval.High) {
			t.Errorf("seed %d: ratio %v in %v, want about 1.20 inside its interval", seed, found.Ratio, found.Interval)
		}
		if m.Latest != regress.Regression || rep.Verdict() != regress.Regression {
			t.Errorf("seed %d: latest %v, report %v: want regression", seed, m.Latest, rep.Verdict())
		}
		if seed == 0 {
			t.Logf("seed 0: %s", found.Line(m))
		}
	}
	if extra > 1 {
		t.Errorf("%d change points besides the step in 20 histories, want at most 1", extra)
	}
}

// Acceptance: a history without a step reports no change point in at
// least 95 of 100 seeds (read clat p99, as `history changes --metric
// read.clat.p99` searches). All eight read metrics are searched too, and
// the share of histories with any change logged.
func TestChangesNoStepFalseAlarms(t *testing.T) {
	quiet, quietAll := 0, 0
	for seed := range uint64(100) {
		es := entries(simHistory(1000+seed, 60, 0, 1, 0.05))
		rep, err := Changes(es, Config{Metrics: []string{"read.clat.p99"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Series[0].Metrics[0].Changes) == 0 {
			quiet++
		}
		if rep.Verdict() == regress.Regression {
			t.Errorf("seed %d: an unchanged history's latest segment regressed", seed)
		}
		all, err := Changes(es, Config{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range all.Series[0].Metrics {
			n += len(m.Changes)
		}
		if n == 0 {
			quietAll++
		}
	}
	t.Logf("no change point: read.clat.p99 in %d of 100 histories, all 8 read metrics in %d of 100", quiet, quietAll)
	if quiet < 95 {
		t.Errorf("read.clat.p99 reported no change in %d of 100 unchanged histories, want at least 95", quiet)
	}
	// Searching eight metrics holds the family-wise rate (Bonferroni),
	// not eight times it.
	if quietAll < 95 {
		t.Errorf("all 8 read metrics reported no change in %d of 100 unchanged histories, want at least 95", quietAll)
	}
}

// Alpha is divided among the metrics searched unless PerMetric.
func TestChangesFamilyWiseAlpha(t *testing.T) {
	es := entries(simHistory(3, 60, 0, 1, 0.05))
	for _, c := range []struct {
		cfg  Config
		want float64
	}{
		{Config{Metrics: []string{"read.clat.p99"}}, DefaultAlpha},
		{Config{Metrics: []string{"read.clat.p99", "read.iops"}}, DefaultAlpha / 2},
		{Config{Metrics: []string{"read.clat.p99", "read.iops"}, PerMetric: true}, DefaultAlpha},
	} {
		rep, err := Changes(es, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Series[0].Metrics {
			if m.Alpha != c.want {
				t.Errorf("%v per-metric %v: %s alpha %v, want %v", c.cfg.Metrics, c.cfg.PerMetric, m.Metric, m.Alpha, c.want)
			}
		}
	}
}

// An improvement is a change point, not a regression; a change within
// the tolerance is a pass; an unjudged metric has no verdict.
func TestChangesVerdicts(t *testing.T) {
	cases := []struct {
		name   string
		factor float64
		rules  string
		want   regress.Verdict
		judged bool
	}{
		{"faster", 0.7, "", regress.Improvement, true},
		{"slower", 1.5, "", regress.Regression, true},
		{"within tolerance", 1.08, "*.clat.p99=10%", regress.Pass, true},
		{"off", 1.5, "*.clat.p99=off", regress.Pass, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules, err := regress.ParseRules(c.rules)
			if err != nil {
				t.Fatal(err)
			}
			es := entries(simHistory(7, 60, 30, c.factor, 0.01))
			rep, err := Changes(es, Config{Metrics: []string{"read.clat.p99"}, Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			m := rep.Series[0].Metrics[0]
			if len(m.Changes) != 1 || m.Changes[0].Run != 30 {
				t.Fatalf("changes %+v, want one at run 30", m.Changes)
			}
			if m.Latest != c.want || m.Judged != c.judged {
				t.Errorf("latest %v judged %v, want %v %v", m.Latest, m.Judged, c.want, c.judged)
			}
		})
	}
}

func TestReportFormats(t *testing.T) {
	es := entries(simHistory(3, 60, 40, 1.2, 0.05))
	rep, err := Changes(es, Config{Metrics: []string{"read.clat.p99", "read.iops"}})
	if err != nil {
		t.Fatal(err)
	}
	var md, js, txt bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| read.clat.p99 | 40 |", "firmware 1.0 -> 1.1", "**Latest segment regressed:**", "TestRandRead/randread-4k@node1"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(txt.String(), "LATEST SEGMENT REGRESSED: read.clat.p99: +") {
		t.Errorf("text:\n%s", txt.String())
	}
	var back struct {
		Verdict string `json:"verdict"`
		Series  []struct {
			Metrics []struct {
				Metric  string `json:"metric"`
				Latest  string `json:"latest"`
				Changes []struct {
					Run         int `json:"run"`
					Fingerprint []struct{ Field, Old, New string }
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"series"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if back.Verdict != "regression" || len(back.Series) != 1 {
		t.Fatalf("json: %s", js.String())
	}
	for _, m := range back.Series[0].Metrics {
		if m.Metric == "read.clat.p99" && (m.Latest != "regression" || len(m.Changes) == 0 || m.Changes[0].Fingerprint[0].New != "1.1") {
			t.Errorf("json p99: %+v", m)
		}
	}
	t.Logf("markdown:\n%s", md.String())
}

// On a long history a small shift is significant; MinChange keeps what
// is too small to matter out.
func TestChangesMinChange(t *testing.T) {
	es := entries(simHistory(21, 2000, 1000, 1.03, 0.01))
	all, err := Changes(es, Config{Metrics: []string{"read.clat.p99"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := all.Series[0].Metrics[0].Changes; len(c) != 1 || c[0].Run < 999 || c[0].Run > 1001 {
		t.Fatalf("changes %+v, want the 3%% step at run 1000", c)
	}
	big, err := Changes(es, Config{Metrics: []string{"read.clat.p99"}, MinChange: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if c := big.Series[0].Metrics[0].Changes; len(c) != 0 {
		t.Errorf("changes %+v with MinChange 5%%, want none", c)
	}
}

// The same baseline added 60 or 400 times is a history without a
// change: every metric of every run is the same value, and none may
// report a change point (it reported read.clat.mean changing by +0.0%
// with p 4.6e-09, and at 400 runs p down to 8.9e-58).
func TestChangesIdenticalRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{60, 400} {
		for trial := range 5 {
			b := simRun(r, 1, 400e3*(1+0.1*r.NormFloat64()), 0.05, "1.0")
			bs := make([]*baselines.Baseline, n)
			for i := range bs {
				bs[i] = b
			}
			rep, err := Changes(entries(bs), Config{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range rep.Series[0].Metrics {
				for _, c := range m.Changes {
					t.Errorf("%d identical runs, trial %d: %s", n, trial, c.Line(m))
				}
			}
		}
	}
}
