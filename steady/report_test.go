package steady

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReportJSON(t *testing.T) {
	d := newDetector(t, Config{Criteria: MustParseSet("iops:5%, clat_p99:10%"), Window: 3 * time.Second, Ramp: time.Second, Continue: true})
	us := time.Microsecond
	for i, v := range []uint64{10, 1000, 1000, 1000, 2000, 1000, 1000, 1000} {
		l := 100 * us
		if i == 6 {
			l = NoLatency
		}
		d.Add(Sample{IOPS: v, BW: v * 4096, Lat: []time.Duration{l}})
	}
	b, err := json.Marshal(d.Report())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SteadyState map[string]any `json:"steadystate"`
		Stortest    Extension      `json:"stortest_steadystate"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	// fio's keys only, in fio's formatting.
	for _, k := range []string{"ss", "duration", "attained", "criterion", "max_deviation", "slope", "data"} {
		if _, ok := got.SteadyState[k]; !ok {
			t.Errorf("steadystate has no %q: %s", k, b)
		}
	}
	if !strings.Contains(string(b), `"ss":"iops:5.000000%","duration":3,"attained":1,"criterion":"0.000000%","max_deviation":0.000000,"slope":0.000000`) {
		t.Errorf("fio object not in fio's formatting: %s", b)
	}
	e := got.Stortest
	if e.Window != 3 || e.RampMs != 1000 || e.Samples != 8 || e.AttainedSample != 3 || e.AttainedMs != 4000 ||
		e.WindowFirst != 5 || e.WindowLast != 7 || e.Attained {
		t.Errorf("extension %+v", e)
	}
	if len(e.Losses) != 1 || e.Losses[0].StartSample != 4 || e.Losses[0].EndSample != -1 || e.Losses[0].Criterion != "iops:5%" {
		t.Errorf("losses %+v", e.Losses)
	}
	if diff := cmp.Diff([]LatencyWindow{{Name: "clat_p99", Ns: []int64{100000, -1, 100000}}}, e.Lat); diff != "" {
		t.Errorf("lat (-want +got)\n%s", diff)
	}
	if len(e.Criteria) != 2 || e.Criteria[1].Missing != 1 || e.Criteria[1].Attained {
		t.Errorf("criteria %+v", e.Criteria)
	}
}

func TestVerdictJSON(t *testing.T) {
	d := newDetector(t, Config{Criteria: All(MustParse("iops:5%")), Window: 2 * time.Second})
	d.Add(Sample{IOPS: 0})
	v := d.Add(Sample{IOPS: 0}) // 0/0: NaN criterion, null in JSON
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	rs := m["results"].([]any)
	if r := rs[0].(map[string]any); r["value"] != nil || r["attained"] != false || r["criterion"] != "iops:5%" {
		t.Errorf("result %v", r)
	}
	if m["sample"] != 1.0 || m["elapsed_ms"] != 2000.0 || m["event"] != "none" || !strings.Contains(m["reason"].(string), "not steady") {
		t.Errorf("verdict %s", b)
	}
}
