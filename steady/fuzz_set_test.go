package steady

import (
	"testing"
	"time"
)

// The command line's criteria set (stortest steady --criteria) and fio's
// duration syntax (--window, --ramp) are outside input too.

func FuzzParseSet(f *testing.F) {
	for _, s := range []string{"iops_slope:0.3%", "iops:2%,clat_p99_slope:1%", "bw_slope:10", "", ",", "iops_slope:0.3%,iops_slope:0.3%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseSet(s)
		if err != nil {
			return
		}
		back, err := ParseSet(set.String())
		if err != nil {
			t.Fatalf("ParseSet(%q) = %v, whose String %q fails: %v", s, set, set.String(), err)
		}
		if back.String() != set.String() {
			t.Fatalf("round trip of %q: %q then %q", s, set.String(), back.String())
		}
	})
}

func FuzzParseFioDuration(f *testing.F) {
	for _, s := range []string{"30", "30s", "1m", "500ms", "2h", "-1", "1.5", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseFioDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseFioDuration(%q) = %v", s, d)
		}
		_ = time.Duration(d)
	})
}
