package fio

import "testing"

// zipf, pareto and normal without a value take fio 3.33's defaults:
// zipf 1.1, pareto 0.2, and for normal fio's mean of 12 uniform draws,
// whose deviation is 1/12 of the range.
func TestParseDistributionBare(t *testing.T) {
	for in, want := range map[string]Distribution{
		"zipf":   {Kind: DistZipf, Param: 1.1},
		"pareto": {Kind: DistPareto, Param: 0.2},
		"normal": {Kind: DistNormal, Param: 100.0 / 12},
	} {
		d, err := ParseDistribution(in)
		if err != nil || d != want {
			t.Errorf("ParseDistribution(%q) = %+v, %v; want %+v", in, d, err, want)
		}
	}
}
