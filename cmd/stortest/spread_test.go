package main

import "testing"

// TestParseSpread: --run-spread and --min-change read a percentage or a
// fraction; "0" is none (-1) and "" the default (0).
func TestParseSpread(t *testing.T) {
	for s, want := range map[string]float64{"": 0, "0": -1, "0%": -1, "5%": 0.05, "0.1": 0.1} {
		if got, err := parseSpread(s); err != nil || got != want {
			t.Errorf("parseSpread(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"x", "-1%", "inf", "NaN"} {
		_, err := parseSpread(s)
		if want := `"` + s + `" is not a non-negative percentage or fraction`; err == nil || err.Error() != want {
			t.Errorf("parseSpread(%q): %v; want %s", s, err, want)
		}
	}
}
