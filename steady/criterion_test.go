package steady

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Criterion
	}{
		{"iops:5%", Criterion{Metric: IOPS, Method: Deviation, Percent: true, Limit: 5}},
		{"iops:0.5", Criterion{Metric: IOPS, Method: Deviation, Limit: 0.5}},
		{"iops_slope:0.3%", Criterion{Metric: IOPS, Method: Slope, Percent: true, Limit: 0.3}},
		{"iops_slope:12", Criterion{Metric: IOPS, Method: Slope, Limit: 12}},
		{" iops_slope : 0.3 % ", Criterion{Metric: IOPS, Method: Slope, Percent: true, Limit: 0.3}},
		{"bw:2%", Criterion{Metric: BW, Method: Deviation, Percent: true, Limit: 2}},
		{"bw:20m", Criterion{Metric: BW, Method: Deviation, Limit: 20 << 20}},
		{"bw:20M", Criterion{Metric: BW, Method: Deviation, Limit: 20 << 20}},
		{"bw:20mb", Criterion{Metric: BW, Method: Deviation, Limit: 20 << 20}},
		{"bw:3KiB", Criterion{Metric: BW, Method: Deviation, Limit: 3000}}, // fio's kb_base=1024 inverts IEC
		{"bw:4ki", Criterion{Metric: BW, Method: Deviation, Limit: 4096}},  // fio 3.33 reads ki as 1024 (package fio)
		{"bw:1g", Criterion{Metric: BW, Method: Deviation, Limit: 1 << 30}},
		{"bw:2t", Criterion{Metric: BW, Method: Deviation, Limit: 2 << 40}},
		{"bw:1p", Criterion{Metric: BW, Method: Deviation, Limit: 1 << 50}},
		{"bw:1000", Criterion{Metric: BW, Method: Deviation, Limit: 1000}},
		{"bw_slope:20k", Criterion{Metric: BW, Method: Slope, Limit: 20480}},
		{"bw_slope:0.5%", Criterion{Metric: BW, Method: Slope, Percent: true, Limit: 0.5}},
		{"clat_p99:5%", Criterion{Metric: Clat, Percentile: 99, Method: Deviation, Percent: true, Limit: 5}},
		{"clat_p99.9_slope:1%", Criterion{Metric: Clat, Percentile: 99.9, Method: Slope, Percent: true, Limit: 1}},
		{"lat_p50:200us", Criterion{Metric: Lat, Percentile: 50, Method: Deviation, Limit: 200e3}},
		{"lat_p50:200µs", Criterion{Metric: Lat, Percentile: 50, Method: Deviation, Limit: 200e3}},
		{"clat_p99_slope:2.5ms", Criterion{Metric: Clat, Percentile: 99, Method: Slope, Limit: 2.5e6}},
		{"clat_p100:1s", Criterion{Metric: Clat, Percentile: 100, Method: Deviation, Limit: 1e9}},
		{"clat_p1:750ns", Criterion{Metric: Clat, Percentile: 1, Method: Deviation, Limit: 750}},
		{"pts:iops", Criterion{Metric: IOPS, Method: PTS, PTS: PTSParams{Round: time.Minute, Window: 5, MaxRounds: 25, Range: 20, Excursion: 10}}},
		{"pts:bw:30s", Criterion{Metric: BW, Method: PTS, PTS: PTSParams{Round: 30 * time.Second, Window: 5, MaxRounds: 25, Range: 20, Excursion: 10}}},
		{"pts:clat_p99.99:2m", Criterion{Metric: Clat, Percentile: 99.99, Method: PTS, PTS: PTSParams{Round: 2 * time.Minute, Window: 5, MaxRounds: 25, Range: 20, Excursion: 10}}},
		{"iops:0", Criterion{Metric: IOPS, Method: Deviation, Limit: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			// String gives back the same criterion.
			again, err := Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(String() = %q): %v", got.String(), err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("round trip through %q (-want +got)\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{"", "want NAME:LIMIT"},
		{"iops", "want NAME:LIMIT"},
		{"iops:", "missing limit"},
		{"iops:%", "want a number"},
		{"iops:10k", "want a number"}, // fio reads it as 10
		{"iops:-1", ">= 0"},
		{"iops:NaN", "want a number"},
		{"iops:inf%", "want a number"},
		{"bw:1.5m", "fractions are not allowed"}, // fio reads it as 1
		{"bw:20x", "unknown suffix"},
		{"bw:m", "want an integer"},
		{"bw:99999999999999999999", "out of range"},
		{"iopz:5%", "unknown metric"},
		{"clat_p:5%", "percentile"},
		{"clat_p101:5%", "percentile"},
		{"clat_p0:5%", "percentile"},
		{"clat_p99:5", "want a number with a unit"},
		{"clat_p99:5parsecs", "want a number"},
		{"clat_p99:99999999999s", "too large"},
		{"pts:", "unknown metric"},
		{"pts:iops:0s", "at least 1s"},
		{"pts:iops:1500ms", "whole seconds"},
		{"pts:iops:xs", "round"},
		{"pts:foo", "unknown metric"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("%v does not wrap ErrSyntax", err)
			}
			if !strings.Contains(err.Error(), tt.why) || !strings.HasPrefix(err.Error(), "steady: ") {
				t.Errorf("error %q does not start with steady: and say %q", err, tt.why)
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a bad criterion did not panic")
		}
	}()
	MustParse("nonsense")
}

func TestParseSet(t *testing.T) {
	set, err := ParseSet("iops_slope:0.3%, clat_p99:5%\tbw:20m")
	if err != nil {
		t.Fatal(err)
	}
	want := Set{MustParse("iops_slope:0.3%"), MustParse("clat_p99:5%"), MustParse("bw:20m")}
	if diff := cmp.Diff(want, set); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if got := set.String(); got != "iops_slope:0.3%, clat_p99:5%, bw:20971520" {
		t.Errorf("String() = %q", got)
	}
	if _, err := ParseSet(" , "); !errors.Is(err, ErrSyntax) {
		t.Errorf("empty set: %v", err)
	}
	if _, err := ParseSet("iops:5%,bw:x"); !errors.Is(err, ErrSyntax) {
		t.Errorf("bad member: %v", err)
	}
}

func TestCriterionString(t *testing.T) {
	tests := []struct {
		c    Criterion
		want string
	}{
		{MustParse("clat_p99:200us"), "clat_p99:200us"},
		{MustParse("clat_p99:1500us"), "clat_p99:1500us"},
		{MustParse("clat_p99:3ms"), "clat_p99:3ms"},
		{MustParse("lat_p99.9_slope:1.5us"), "lat_p99.9_slope:1500ns"},
		{MustParse("lat_p50:0ns"), "lat_p50:0ns"},
		{MustParse("pts:iops:60s"), "pts:iops"},
		{MustParse("pts:lat_p50:10s"), "pts:lat_p50:10s"},
		{MustParse("iops_slope:0.001%"), "iops_slope:0.001%"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		c    Criterion
	}{
		{"zero value", Criterion{}},
		{"no method", Criterion{Metric: IOPS, Limit: 1}},
		{"negative limit", Criterion{Metric: IOPS, Method: Slope, Limit: -1}},
		{"percentile on iops", Criterion{Metric: IOPS, Method: Slope, Limit: 1, Percentile: 99}},
		{"latency without percentile", Criterion{Metric: Clat, Method: Slope, Limit: 1}},
		{"pts round not whole seconds", Criterion{Metric: IOPS, Method: PTS, PTS: PTSParams{Round: 1500 * time.Millisecond}}},
		{"pts window of one round", Criterion{Metric: IOPS, Method: PTS, PTS: PTSParams{Window: 1}}},
		{"pts cap below window", Criterion{Metric: IOPS, Method: PTS, PTS: PTSParams{MaxRounds: 3}}},
		{"pts negative range", Criterion{Metric: IOPS, Method: PTS, PTS: PTSParams{Range: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); err == nil {
				t.Errorf("Validate(%+v) = nil", tt.c)
			}
		})
	}
}

func TestParseFioDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"30", 30 * time.Second},
		{"30s", 30 * time.Second},
		{"2m", 2 * time.Minute},
		{"1h", time.Hour},
		{"1d", 24 * time.Hour},
		{"1500ms", 1500 * time.Millisecond},
		{"250us", 250 * time.Microsecond},
		{"10S", 10 * time.Second},
		{"0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFioDuration(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ParseFioDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "s", "-5", "1.5s", "3w", "99999999999999d"} {
		if d, err := ParseFioDuration(bad); err == nil {
			t.Errorf("ParseFioDuration(%q) = %v, want an error", bad, d)
		}
	}
}
