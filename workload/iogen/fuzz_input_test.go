package iogen

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"stortest.dev/fio"
	"stortest.dev/workload"
	"stortest.dev/workload/fiojob"
	"stortest.dev/workload/validate"
)

// Fuzz targets for the parsers of outside input beyond job files: the
// value syntaxes (sizes, times, distributions, verify patterns), a job
// stored as JSON (in baselines and results), and verified blocks read from
// a device, which may hold anything at all.

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4k", "1m", "0x1000", "512b", "1KiB", "8e", "9223372036854775807", "8p", "1ki", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := fiojob.ParseSize(s)
		if err != nil {
			if !errors.Is(err, workload.ErrInvalid) {
				t.Fatalf("ParseSize(%q): %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if back, err := fiojob.ParseSize(workload.FormatSize(n)); err != nil || back != n {
			t.Fatalf("ParseSize(FormatSize(%d) = %q) = %d, %v", n, workload.FormatSize(n), back, err)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"10", "500ms", "2m", "1h", "1d", "3us", "10sec", "0.5", "106751d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := fiojob.ParseTime(s, time.Second)
		if err != nil {
			if !errors.Is(err, workload.ErrInvalid) {
				t.Fatalf("ParseTime(%q): %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseTime(%q) = %v", s, d)
		}
		if d%time.Microsecond == 0 {
			if back, err := fiojob.ParseTime(workload.FormatTime(d), time.Second); err != nil || back != d {
				t.Fatalf("ParseTime(FormatTime(%v) = %q) = %v, %v", d, workload.FormatTime(d), back, err)
			}
		}
	})
}

func FuzzParseDistribution(f *testing.F) {
	for _, s := range []string{"random", "zipf:1.2", "pareto:0.8:0.1", "normal:10:0.5", "zoned:50/50", "zipf:1", "normal:nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := fio.ParseDistribution(s)
		if err != nil {
			return
		}
		if msg := d.Validate(); msg != "" {
			t.Fatalf("ParseDistribution(%q) accepted an invalid %+v: %s", s, d, msg)
		}
		back, err := fio.ParseDistribution(d.String())
		if err != nil || back != d {
			t.Fatalf("round trip of %q through %q: %+v, %v", s, d.String(), back, err)
		}
	})
}

func FuzzParseVerifyPattern(f *testing.F) {
	for _, s := range []string{"", `0xdeadbeef"xyz"`, "0x1", `"unterminated`, "%o", "12", "0x", strings.Repeat("0xff", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := fio.ParseVerifyPattern(s)
		if err != nil {
			return
		}
		if len(p) > fio.MaxPattern || (s != "" && len(p) == 0) {
			t.Fatalf("ParseVerifyPattern(%q) = %d bytes", s, len(p))
		}
	})
}

// A job read from JSON either fails to decode or to validate, or encodes
// back to the same job.
func FuzzJobJSON(f *testing.F) {
	for _, j := range []workload.Job{
		{Name: "a", Filename: "/dev/null", RW: workload.RandRW, BlockSize: 4096, IODepth: 32, Verify: workload.VerifyCRC32C},
		{Name: "b", RW: workload.Write, BlockSizeSplit: []workload.BlockSizeSplit{{Size: 4096, Percent: 50}, {Size: 65536, Percent: 50}},
			ContinueOnError: workload.ContinueIO, Runtime: time.Minute, TimeBased: true, SS: "iops_slope:0.1%", SSDur: time.Minute},
	} {
		b, err := json.Marshal(j)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x","rw":"trim"}`))
	f.Add([]byte(`{"name":"x","continue_on_error":"sometimes"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var j workload.Job
		if json.Unmarshal(b, &j) != nil || validate.Job(&j) != nil {
			return
		}
		out, err := json.Marshal(j)
		if err != nil {
			t.Fatalf("a valid job does not encode: %v\n%+v", err, j)
		}
		var back workload.Job
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if diff := cmp.Diff(j.Normalized(), back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("JSON round trip (-want +got):\n%s", diff)
		}
	})
}

// Check classifies any bytes a device returns without panicking; it
// accepts only exactly what Fill wrote for that offset and seed.
func FuzzVerifyCheck(f *testing.F) {
	v, err := NewVerifier(workload.VerifyCRC32C, "")
	if err != nil {
		f.Fatal(err)
	}
	good := make([]byte, 512)
	v.Fill(good, 4096, 7)
	f.Add(good, int64(4096), uint64(7), false)
	f.Add(good, int64(8192), uint64(7), false)
	f.Add(good, int64(4096), uint64(6), true)
	f.Add(make([]byte, 512), int64(0), uint64(0), false)
	f.Add(good[:100], int64(4096), uint64(7), false)
	f.Add([]byte("STVB"), int64(0), uint64(0), true)
	sha, err := NewVerifier(workload.VerifySHA256, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, buf []byte, off int64, seed uint64, useSHA bool) {
		vv := v
		if useSHA {
			vv = sha
		}
		err := vv.Check(buf, off, seed)
		if err == nil {
			if len(buf) < workload.VerifyHeaderSize {
				t.Fatalf("Check accepted a %d-byte block", len(buf))
			}
			want := make([]byte, len(buf))
			vv.Fill(want, off, seed)
			if string(want) != string(buf) {
				t.Fatal("Check accepted a block Fill did not write")
			}
			return
		}
		var ve *VerifyError
		if !errors.As(err, &ve) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Check error %T %v is not a *VerifyError wrapping ErrCorrupt", err, err)
		}
		if ve.Offset != off || ve.Len != len(buf) || ve.Kind < CorruptZeroed || ve.Kind > CorruptStale {
			t.Fatalf("VerifyError %+v for a %d-byte block at %d", ve, len(buf), off)
		}
		_ = ve.Error()
	})
}
