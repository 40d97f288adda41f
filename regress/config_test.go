package regress

import (
	"errors"
	"math"
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

// Tolerance.Equal agrees with go-cmp's EquateApprox on every case.
func TestToleranceEqual(t *testing.T) {
	for _, tc := range []struct {
		name string
		tol  Tolerance
		x, y float64
		want bool
	}{
		{"equal", Tolerance{}, 5, 5, true},
		{"zero-tolerance", Tolerance{}, 5, 5.0001, false},
		{"ten-pct-up", Tolerance{Fraction: 0.1}, 100, 110, true},
		{"ten-pct-down", Tolerance{Fraction: 0.1}, 110, 100, true},
		{"fraction-of-smaller", Tolerance{Fraction: 0.1}, 100, 110.5, false},
		{"fraction-of-smaller-down", Tolerance{Fraction: 0.1}, 100, 90.5, false},
		{"floor-wins", Tolerance{Fraction: 0.1, Floor: 1000}, 40, 900, true},
		{"floor-exceeded", Tolerance{Fraction: 0.1, Floor: 1000}, 40, 1100, false},
		{"negative", Tolerance{Fraction: 0.1}, -100, -109, true},
		{"nan", Tolerance{Fraction: 1}, math.NaN(), 1, false},
		{"inf", Tolerance{Fraction: 0.1}, math.Inf(1), math.Inf(1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.tol.Equal(tc.x, tc.y))
			require.Equal(t, tc.tol.Equal(tc.x, tc.y), tc.tol.Equal(tc.y, tc.x), "symmetric")
			require.Equal(t, cmp.Equal(tc.x, tc.y, cmpopts.EquateApprox(tc.tol.Fraction, tc.tol.Floor)), tc.tol.Equal(tc.x, tc.y), "EquateApprox")
		})
	}
}

func TestParseRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Rule
		err  string
	}{
		{"empty", "", nil, ""},
		{"percent", "*.iops=5%", []Rule{{Metric: "*.iops", Tolerance: Tolerance{Fraction: 0.05}}}, ""},
		{"fraction-and-time-floor", "read.clat.p99=0.15:2us", []Rule{{Metric: "read.clat.p99", Tolerance: Tolerance{Fraction: 0.15, Floor: 2000}}}, ""},
		{"floors", "a=1%:1.5ms, b=2%:4KiB,c=3%:2k", []Rule{
			{Metric: "a", Tolerance: Tolerance{Fraction: 0.01, Floor: 1.5e6}},
			{Metric: "b", Tolerance: Tolerance{Fraction: 0.02, Floor: 4096}},
			{Metric: "c", Tolerance: Tolerance{Fraction: 0.03, Floor: 2000}}}, ""},
		{"off", "*.clat.p99.99=off,*.lat.p99=10%", []Rule{{Metric: "*.clat.p99.99", Off: true}, {Metric: "*.lat.p99", Tolerance: Tolerance{Fraction: 0.1}}}, ""},
		{"no-equals", "read.iops", nil, "want PATTERN=FRACTION"},
		{"bad-fraction", "x=ten%", nil, "not a non-negative number"},
		{"negative", "x=-5%", nil, "not a non-negative number"},
		{"bad-floor", "x=5%:fast", nil, "floor"},
		{"bad-pattern", "[=5%", nil, "pattern"},
		{"infinite-floor", "x=5%:1e308GiB", nil, "floor"},
		{"nan", "x=NaN%", nil, "not a non-negative number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRules(tc.in)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrBadRule)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigRule(t *testing.T) {
	var c Config
	c.Set("*.p99", Tolerance{Fraction: 0.3})
	c.Disable("write.*")
	for _, tc := range []struct {
		metric string
		off    bool
		tol    Tolerance
	}{
		{"read.iops", false, Tolerance{Fraction: 0.1, Floor: 1}},
		{"read.bw", false, Tolerance{Fraction: 0.1, Floor: 4096}},
		{"read.clat.p99", false, Tolerance{Fraction: 0.3}},
		{"read.lat.p99", false, Tolerance{Fraction: 0.3}},
		{"read.clat.p99.9", false, Tolerance{Fraction: 0.2, Floor: 1000}},
		{"read.clat.p90", true, Tolerance{}},
		{"read.clat.mean", false, Tolerance{Fraction: 0.1, Floor: 1000}},
		{"read.lat.mean", true, Tolerance{}},
		{"write.iops", true, Tolerance{}},
	} {
		t.Run(tc.metric, func(t *testing.T) {
			r := c.rule(tc.metric)
			require.Equal(t, tc.off, r.Off)
			if !tc.off {
				require.Equal(t, tc.tol, r.Tolerance)
			}
		})
	}
	d := Config{}.withDefaults()
	require.Equal(t, DefaultConfig(), d)
	require.Equal(t, "10% or 1µs", Tolerance{Fraction: 0.1, Floor: 1000}.format(UnitNS))
	require.Equal(t, "12.5%", Tolerance{Fraction: 0.125}.String())
}

func TestVerdict(t *testing.T) {
	for _, v := range []Verdict{Pass, Improvement, Inconclusive, Regression} {
		b, err := v.MarshalText()
		require.NoError(t, err)
		var back Verdict
		require.NoError(t, back.UnmarshalText(b))
		require.Equal(t, v, back)
	}
	require.True(t, Improvement.OK())
	require.False(t, Inconclusive.OK())
	require.Equal(t, "Verdict(9)", Verdict(9).String())
	var v Verdict
	require.Error(t, v.UnmarshalText([]byte("maybe")))
	require.Equal(t, Regression, Overall(Report{Verdict: Pass}, Report{Verdict: Regression}, Report{Verdict: Inconclusive}))
	require.Equal(t, Pass, Overall())
}

// FuzzParseRules: any flag value gives rules or ErrBadRule, never a
// panic, and the rules it gives have valid patterns and tolerances.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{"*.iops=5%", "read.clat.p99=15%:2us,*.clat.p99.99=off", "a=1%:1.5ms, b=2%:4KiB", "x=", "[=1", "=,=,", "y=1e308%:1e308GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rules, err := ParseRules(s)
		if err != nil {
			if !errors.Is(err, ErrBadRule) {
				t.Fatalf("error %v is not ErrBadRule", err)
			}
			return
		}
		for _, r := range rules {
			if _, err := path.Match(r.Metric, "read.iops"); err != nil {
				t.Fatalf("rule %+v: bad pattern", r)
			}
			tol := r.Tolerance
			if !(tol.Fraction >= 0) || !(tol.Floor >= 0) || math.IsInf(tol.Fraction, 0) || math.IsInf(tol.Floor, 0) {
				t.Fatalf("rule %+v: bad tolerance", r)
			}
		}
	})
}

func TestCompareNil(t *testing.T) {
	r := Compare(nil, nil, Config{})
	require.Equal(t, Inconclusive, r.Verdict)
	require.Contains(t, r.Findings[0].Reason, "a baseline is missing")
}
