package human

import (
	"math"
	"testing"
	"time"
)

// The edges of each rule: negatives, rounding up into the next unit, the
// largest unit, what is not a number.
func TestEdges(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Latency(-66050), "-66.05µs"},
		{Latency(0), "0ns"},
		{Latency(999.6), "1µs"},
		{Latency(812.4), "812ns"},
		{Latency(999_995_000), "1s"},
		{Latency(math.NaN()), "NaN"},
		{Bytes(0.5), "0.5B"},
		{Bytes(1023.96), "1KiB"},
		{Bytes(-2048), "-2KiB"},
		{Bytes(3 << 50), "3PiB"},
		{Bytes(5000 * (1 << 50)), "5000PiB"},
		{BW(math.Inf(1)), "+Inf/s"},
		{Count(1.234), "1.23"},
		{Count(-41_900), "-41.9k"},
		{Count(999_600), "1M"},
		{Count(-0.001), "0"},
		{Count(math.Inf(-1)), "-Inf"},
		{Duration(999), "999ns"},
		{Duration(1000), "1µs"},
		{Duration(31_270), "31.27µs"},
		{Duration(301_056), "301.06µs"},
		{Duration(2 * time.Millisecond), "2ms"},
		{Duration(36 * time.Minute), "2160s"},
		{Duration(-2_411_520), "-2.41ms"},
		{Count(1024), "1.02k"},
		{Count(12e6), "12M"},
		{Count(3.5e9), "3.5G"},
		{Bytes(1023.4 * 1024), "1023KiB"}, {Bytes(1023.5 * 1024), "1MiB"},
		{Bytes(12e6), "11.44MiB"},
		{Bytes(3.5e9), "3.26GiB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
