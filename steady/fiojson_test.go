package steady

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want string
	}{
		{"zero", 0, "0.000000"},
		{"negative zero", math.Copysign(0, -1), "-0.000000"},
		{"six decimals", 64915.833333333, "64915.833333"},
		{"rounds half up past the tie", 0.0000005000001, "0.000001"},
		{"exact tie rounds to even", 0.0078125, "0.007812"},
		{"large", 167828039.4, "167828039.400000"},
		{"nan from 0/0", fioNaN, "-nan"},
		{"positive nan", math.NaN(), "nan"},
		{"inf", math.Inf(1), "inf"},
		{"-inf", math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatFloat(tt.v); got != tt.want {
				t.Errorf("FormatFloat(%v) = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}

// fio prints the criterion through a float32.
func TestFormatF32(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{15696968.7697, "15696969.000000"},
		{-275.4, "-275.399994"},
		{0.3, "0.300000"},
		{0.001, "0.001000"},
		{167828039.4, "167828032.000000"},
		{fioNaN, "-nan"},
		{math.Inf(1), "inf"},
		{1e39, "inf"}, // beyond float32
	}
	for _, tt := range tests {
		if got := formatF32(tt.v); got != tt.want {
			t.Errorf("formatF32(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestNewFioSteadyState(t *testing.T) {
	tests := []struct {
		name string
		crit string
		y    []uint64
		want FioSteadyState
	}{
		{
			name: "deviation percent", crit: "iops:5%", y: []uint64{2002, 2002, 2001, 2001, 2001},
			want: FioSteadyState{SS: "iops:5.000000%", Duration: 5, Attained: 1, Criterion: "0.029979%", MaxDeviation: 0.6},
		},
		{
			name: "slope absolute keeps max_deviation zero", crit: "bw_slope:20k", y: []uint64{20981081, 20992512, 20987904, 20976112, 20987904},
			want: FioSteadyState{SS: "bw_slope:20480.000000", Duration: 5, Attained: 1, Criterion: "-275.399994", Slope: -275.4},
		},
		{
			name: "nan percent", crit: "iops_slope:1%", y: []uint64{0, 0, 0},
			want: FioSteadyState{SS: "iops_slope:1.000000%", Duration: 3, Criterion: "-nan%", Slope: 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustParse(tt.crit)
			r := Evaluate(c, tt.y)
			got := NewFioSteadyState(c, r, r.Attained, tt.y, tt.y)
			got.Data = FioSteadyStateData{}
			if diff := cmp.Diff(tt.want, got, cmpFloatBits); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// Not evaluated: fio's zeros.
	c := MustParse("iops:5%")
	got := NewFioSteadyState(c, Result{}, false, []uint64{7, 0}, []uint64{9, 0})
	want := FioSteadyState{SS: "iops:5.000000%", Duration: 2, Criterion: "0.000000%",
		Data: FioSteadyStateData{IOPS: []uint64{7, 0}, BW: []uint64{9, 0}, IOPSMean: 3, BWMean: 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("not evaluated (-want +got)\n%s", diff)
	}
}

// cmpFloatBits compares floats by their printed form, which is what fio
// compatibility is about.
var cmpFloatBits = cmp.Comparer(func(a, b float64) bool { return FormatFloat(a) == FormatFloat(b) })

func TestFioSteadyStateJSONRoundTrip(t *testing.T) {
	in := FioSteadyState{SS: "bw:2.000000%", Duration: 3, Attained: 1, Criterion: "0.154631%", MaxDeviation: 64915.833333, Slope: 0,
		Data: FioSteadyStateData{BWMean: 2, IOPSMean: 1, IOPS: []uint64{1, 1, 2}, BW: []uint64{2, 2, 3}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"ss":"bw:2.000000%","duration":3,"attained":1,"criterion":"0.154631%","max_deviation":64915.833333,"slope":0.000000,"data":{"bw_mean":2,"iops_mean":1,"iops":[1,1,2],"bw":[2,2,3]}}`
	if string(b) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", b, want)
	}
	var out FioSteadyState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got)\n%s", diff)
	}
	// Non-finite doubles are not JSON: null, read back as NaN.
	in.Slope = fioNaN
	b, err = json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil || !math.IsNaN(out.Slope) {
		t.Errorf("NaN slope: %v, %v (%s)", out.Slope, err, b)
	}
}
