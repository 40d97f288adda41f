package stortest

import (
	"testing"
	"time"
)

func TestFmtLatency(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ns"},
		{812, "812ns"},
		{999, "999ns"},
		{1000, "1µs"},
		{31_270, "31.3µs"},
		{99_840, "99.8µs"},
		{301_056, "301µs"},
		{999_999, "1000µs"},
		{2_411_520, "2.41ms"},
		{2 * time.Millisecond, "2ms"},
		{1500 * time.Millisecond, "1.5s"},
		{36 * time.Minute, "2160s"},
		{-2_411_520, "-2.41ms"},
	} {
		if got := fmtLatency(tc.d); got != tc.want {
			t.Errorf("fmtLatency(%d) = %q, want %q", int64(tc.d), got, tc.want)
		}
	}
}

func TestFmtCountBytes(t *testing.T) {
	for _, tc := range []struct {
		v           float64
		count, size string
	}{
		{0, "0", "0B"},
		{0.5, "0.5", "0.5B"},
		{812, "812", "812B"},
		{1024, "1.02k", "1KiB"},
		{41873, "41.9k", "40.9KiB"},
		{12e6, "12M", "11.4MiB"},
		{3.5e9, "3500M", "3.26GiB"},
	} {
		if got := fmtCount(tc.v); got != tc.count {
			t.Errorf("fmtCount(%v) = %q, want %q", tc.v, got, tc.count)
		}
		if got := fmtBytes(tc.v); got != tc.size {
			t.Errorf("fmtBytes(%v) = %q, want %q", tc.v, got, tc.size)
		}
	}
}
