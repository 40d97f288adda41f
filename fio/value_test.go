package fio

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	// The valid cases follow what fio 3.33 computes for size= with the
	// default kb_base=1024 (checked with --ioengine=null runs).
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"4096", 4096},
		{"4k", 4096},
		{"4K", 4096},
		{"4kb", 4096},
		{"4KB", 4096},
		{"4ki", 4096}, // fio 3.33: 4096, whatever its documentation says
		{"4Ki", 4096},
		{"4b", 4},
		{"4B", 4},
		{"1m", 1 << 20},
		{"1mi", 1 << 20},
		{"4kib", 4000}, // kb_base=1024 reads the IEC suffixes as powers of 1000
		{"4KiB", 4000},
		{"1MiB", 1000000},
		{"2gib", 2000000000},
		{"2g", 2 << 30},
		{"1t", 1 << 40},
		{"3p", 3 << 50},
		{"0x10", 16},
		{"0X1F", 31},
		{"8191p", 8191 << 50},
		{"9223372036854775807", math.MaxInt64},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseSizeErrors(t *testing.T) {
	for _, tc := range []struct {
		in, why string
	}{
		{"", "whole number"},
		{"k", "whole number"},
		{"-1", "whole number"},
		{" 4k", "whole number"},
		{"4k ", "unknown suffix"},
		{"1.5k", "fractions"},
		{"10%", "percentages"},
		{"4kk", "unknown suffix"},
		{"4s", "unknown suffix"},
		{"1e3", "unknown suffix"},
		{"0x1k", "hexadecimal size takes no suffix"},
		{"0x", "unknown suffix"},
		{"8192p", "out of range"},
		{"9223372036854775807k", "out of range"},
		{"9223372036855pib", "out of range"},
		{"9223372036854775808", "out of range"},
		{"99999999999999999999999", "out of range"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if err == nil {
				t.Fatalf("ParseSize(%q) = %d, want an error", tc.in, got)
			}
			var ve *ValueError
			if !strings.Contains(err.Error(), tc.why) || !errors.As(err, &ve) || ve.Kind != "size" {
				t.Errorf("ParseSize(%q) error %q: want a size ValueError that mentions %q", tc.in, err, tc.why)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0"}, {1, "1"}, {512, "512"}, {1024, "1k"}, {1536, "1536"}, {4096, "4k"},
		{1 << 20, "1m"}, {3 << 30, "3g"}, {1 << 40, "1t"}, {5 << 50, "5p"}, {1<<20 + 1024, "1025k"},
	} {
		if got := FormatSize(tc.in); got != tc.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := ParseSize(FormatSize(tc.in)); err != nil || back != tc.in {
			t.Errorf("ParseSize(FormatSize(%d)) = %d, %v", tc.in, back, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		unit time.Duration
		want time.Duration
	}{
		{"10", time.Second, 10 * time.Second},
		{"10", time.Millisecond, 10 * time.Millisecond},
		{"0", time.Second, 0},
		{"300ms", time.Second, 300 * time.Millisecond},
		{"300MS", time.Second, 300 * time.Millisecond},
		{"300msec", time.Second, 300 * time.Millisecond},
		{"250us", time.Second, 250 * time.Microsecond},
		{"250usec", time.Second, 250 * time.Microsecond},
		{"1S", time.Second, time.Second},
		{"2m", time.Second, 2 * time.Minute},
		{"3h", time.Second, 3 * time.Hour},
		{"1d", time.Second, 24 * time.Hour},
		{"1D", time.Second, 24 * time.Hour},
	} {
		t.Run(tc.in+"/"+tc.unit.String(), func(t *testing.T) {
			got, err := ParseTime(tc.in, tc.unit)
			if err != nil || got != tc.want {
				t.Fatalf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	for _, in := range []string{"", "s", "0.3", "1.5s", "10sec", "10ns", "10x", "0x10", "-1", "106752d", "99999999999999999999"} {
		t.Run("bad/"+in, func(t *testing.T) {
			if got, err := ParseTime(in, time.Second); err == nil {
				t.Fatalf("ParseTime(%q) = %v, want an error", in, got)
			}
		})
	}
}

func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0"}, {time.Microsecond, "1us"}, {1500 * time.Microsecond, "1500us"}, {time.Millisecond, "1ms"},
		{90 * time.Second, "90s"}, {2 * time.Minute, "2m"}, {61 * time.Minute, "61m"}, {2 * time.Hour, "2h"},
		{48 * time.Hour, "2d"},
	} {
		if got := FormatTime(tc.in); got != tc.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := ParseTime(FormatTime(tc.in), time.Second); err != nil || back != tc.in {
			t.Errorf("ParseTime(FormatTime(%v)) = %v, %v", tc.in, back, err)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{
		"1": true, "true": true, "TRUE": true, "yes": true, "On": true,
		"0": false, "false": false, "No": false, "off": false,
	} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2", "y", "enable"} {
		if _, err := ParseBool(in); err == nil {
			t.Errorf("ParseBool(%q): want an error", in)
		}
	}
}

// TestParseSizePrefix: what fio 3.33 reads of sizes with trailing text
// (checked with its write_iolog: bsrange=512/25:4k issues 512 to 4096,
// bs=4kx issues 4096).
func TestParseSizePrefix(t *testing.T) {
	for _, tc := range []struct {
		in, rest string
		want     int64
	}{
		{"4k", "", 4096}, {"512/25", "/25", 512}, {"4kx", "x", 4096}, {"1k:25:2k", ":25:2k", 1024},
		{"4KiB", "", 4000}, {"4kib/3", "/3", 4000}, {"0x10z", "z", 16}, {"64", "", 64},
	} {
		n, rest, err := ParseSizePrefix(tc.in)
		if err != nil || n != tc.want || rest != tc.rest {
			t.Errorf("ParseSizePrefix(%q) = %d, %q, %v; want %d, %q", tc.in, n, rest, err, tc.want, tc.rest)
		}
	}
	for _, bad := range []string{"", "x4k", "1.5k", "10%", "99999999999999999999"} {
		if n, rest, err := ParseSizePrefix(bad); err == nil {
			t.Errorf("ParseSizePrefix(%q) = %d, %q, want an error", bad, n, rest)
		}
	}
}
