package steady

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheckSeries(t *testing.T) {
	in := "1000\n1000\n1000\n1500\n1000\n1000\n1000\n"
	var events []Event
	d, last, err := CheckSeries(Config{Criteria: All(MustParse("iops:10%")), Window: 3 * time.Second, Continue: true},
		strings.NewReader(in), "in", func(v Verdict) error {
			events = append(events, v.Event)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{NoEvent, NoEvent, Attained, Lost, NoEvent, NoEvent, Regained}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got)\n%s", diff)
	}
	if !last.Attained || last.Sample != 6 || len(d.Losses()) != 1 {
		t.Errorf("last %+v, losses %+v", last, d.Losses())
	}
	// Each value also feeds latency criteria, in nanoseconds.
	_, last, err = CheckSeries(Config{Criteria: All(MustParse("clat_p99_slope:1us")), Window: 3 * time.Second},
		strings.NewReader("100000\n101500\n103000\n"), "in", nil)
	if err != nil || last.Attained || last.Results[0].Slope != 1500 {
		t.Errorf("latency: %v %+v", err, last.Results)
	}
	if _, last, err = CheckSeries(Config{Criteria: All(MustParse("iops:1%")), Window: time.Second}, strings.NewReader(""), "in", nil); err != nil || last.Sample != -1 {
		t.Errorf("empty input: %v %+v", err, last)
	}
	if _, _, err := CheckSeries(Config{}, strings.NewReader("1"), "in", nil); err == nil {
		t.Error("no criteria accepted")
	}
	if _, _, err := CheckSeries(Config{Criteria: All(MustParse("iops:1%")), Window: time.Second}, strings.NewReader("1\nx\n"), "in", nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad input: %v", err)
	}
}
