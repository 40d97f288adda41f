package stortest

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/report"
	"stortest.dev/workload"
)

// outcome is what a check did to the (fake) test.
type outcome struct {
	ok       bool
	errors   []string
	stopped  bool
	recorded []string // failure messages in the JUnit record
}

// checkOn runs a check on a fresh synthetic result, modified first.
func checkOn(t *testing.T, modify func(*Result), check func(r *Result, tb testing.TB) bool) outcome {
	t.Helper()
	r := syntheticResult()
	if modify != nil {
		modify(r)
	}
	var o outcome
	var f *fakeTB
	o.ok, o.stopped, f, o.recorded = runCheck(t, r, check)
	o.errors = f.errors
	return o
}

// runCheck runs check on r under a fake test and returns what check
// returned, whether it stopped the test, the fake, and the failure
// messages in the JUnit record; a check that records errors fails t.
func runCheck(t *testing.T, r *Result, check func(r *Result, tb testing.TB) bool) (ok, stopped bool, f *fakeTB, recorded []string) {
	t.Helper()
	f = newFake(t)
	returned := false
	f.run(func(tb testing.TB) {
		ok = check(r, tb)
		returned = true
	})
	for _, fl := range r.rec.run.Failures {
		recorded = append(recorded, fl.Message)
	}
	if len(r.rec.run.Errors) > 0 {
		t.Errorf("checks recorded errors: %v", r.rec.run.Errors)
	}
	return ok, !returned, f, recorded
}

// firstLines keeps the first line of each message (the detail follows).
func firstLines(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		first, _, _ := strings.Cut(m, "\n")
		out = append(out, first)
	}
	return out
}

func TestCheckPercentile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		l      Latency
		p      float64
		limit  time.Duration
		modify func(*Result)
		want   []string // one-line failures; none means the check holds
	}{
		{name: "read over", l: Clat.Read(), p: 99.9, limit: 200 * time.Microsecond,
			want: []string{"mix: clat p99.9 read 301.06µs > limit 200µs"}},
		{name: "read under", l: Clat.Read(), p: 99.9, limit: 302 * time.Microsecond},
		{name: "limit is inclusive", l: Clat.Read(), p: 99.9, limit: 301056 * time.Nanosecond},
		{name: "p50 is the lower half", l: Clat.Read(), p: 50, limit: 100 * time.Microsecond},
		{name: "every direction, one over", l: Clat, p: 99, limit: 100 * time.Microsecond,
			want: []string{"mix: clat p99 read 301.06µs > limit 100µs"}},
		{name: "every direction, both over", l: Lat, p: 99, limit: 10 * time.Microsecond,
			want: []string{"mix: lat p99 read 301.06µs > limit 10µs", "mix: lat p99 write 51.97µs > limit 10µs"}},
		{name: "write", l: Clat.Write(), p: 99, limit: 40 * time.Microsecond,
			want: []string{"mix: clat p99 write 49.92µs > limit 40µs"}},
		{name: "direction without I/O", l: Clat.Trim(), p: 99, limit: time.Second,
			want: []string{"mix: clat p99 trim: no trim I/O to measure"}},
		{name: "no I/O at all", l: Clat, p: 99, limit: time.Second,
			modify: func(r *Result) {
				r.Jobs[0].Dirs[workload.DirRead].IOs, r.Jobs[0].Dirs[workload.DirWrite].IOs = 0, 0
			},
			want: []string{"mix: clat p99: no I/O to measure"}},
		{name: "slat of a sync engine", l: Slat, p: 99, limit: time.Second,
			want: []string{
				"mix: slat p99 read: no samples (the psync engine records no submission latency; as in fio, only asynchronous engines do)",
				"mix: slat p99 write: no samples (the psync engine records no submission latency; as in fio, only asynchronous engines do)",
			}},
		{name: "percentile 0", l: Clat, p: 0, limit: time.Second, want: []string{"mix: clat p0: the percentile is outside (0, 100]"}},
		{name: "percentile above 100", l: Clat, p: 100.5, limit: time.Second, want: []string{"mix: clat p100.5: the percentile is outside (0, 100]"}},
		{name: "milliseconds", l: Clat.Read(), p: 99.9, limit: 2 * time.Millisecond,
			modify: func(r *Result) {
				for range 10 {
					r.Jobs[0].Dirs[workload.DirRead].Clat.Add(2_410_000)
				}
			},
			want: []string{"mix: clat p99.9 read 2.41ms > limit 2ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool {
				return r.CheckPercentile(tb, tc.l, tc.p, tc.limit)
			})
			if diff := cmp.Diff(tc.want, firstLines(o.errors)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, o.recorded); diff != "" {
				t.Errorf("JUnit failures (-want +got):\n%s", diff)
			}
			if o.ok != (len(tc.want) == 0) || o.stopped {
				t.Errorf("Check returned %v, stopped %v", o.ok, o.stopped)
			}

			// The Require form reports the same, then stops.
			o = checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool {
				r.RequirePercentile(tb, tc.l, tc.p, tc.limit)
				return true
			})
			if diff := cmp.Diff(tc.want, firstLines(o.errors)); diff != "" {
				t.Errorf("Require errors (-want +got):\n%s", diff)
			}
			if o.stopped != (len(tc.want) > 0) {
				t.Errorf("Require stopped = %v with %d failures", o.stopped, len(tc.want))
			}
		})
	}
}

// TestCheckPercentileDetail: the failure's detail describes the whole
// distribution, for the JUnit failure text and the test log.
func TestCheckPercentileDetail(t *testing.T) {
	r := syntheticResult()
	f := newFake(t)
	f.run(func(tb testing.TB) { r.CheckPercentile(tb, Clat.Read(), 99.9, 200*time.Microsecond) })
	want := "clat read: 2000 samples, min 100µs, mean 200µs, max 300µs; p50 99.84µs p90 301.06µs p99 301.06µs p99.9 301.06µs p99.99 301.06µs"
	if len(r.rec.run.Failures) != 1 || r.rec.run.Failures[0].Detail != want {
		t.Errorf("detail %+v, want %q", r.rec.run.Failures, want)
	}
	if len(f.errors) != 1 || !strings.HasSuffix(f.errors[0], "\n"+want) {
		t.Errorf("logged %q", f.errors)
	}
	if r.rec.run.Failures[0].Type != "limit" {
		t.Errorf("type %q", r.rec.run.Failures[0].Type)
	}
}

func TestCheckFloors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(r *Result, tb testing.TB) bool
		want  []string
	}{
		{"iops read holds", func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1000, workload.DirRead) }, nil},
		{"iops read", func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1001, workload.DirRead) },
			[]string{"mix: iops read 1000 < floor 1001"}},
		{"iops all summed", func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 1300) },
			[]string{"mix: iops 1.25k < floor 1.3k"}},
		{"iops formatted as baselines does", func(r *Result, tb testing.TB) bool { return r.CheckIOPS(tb, 10_000_000) },
			[]string{"mix: iops 1.25k < floor 10M"}},
		{"bw rounded alike", func(r *Result, tb testing.TB) bool { return r.CheckBW(tb, 4096*1250+100) },
			[]string{"mix: bw 5120000B/s < floor 5120100B/s"}},
		{"iops two directions", func(r *Result, tb testing.TB) bool {
			return r.CheckIOPS(tb, 2000, workload.DirRead, workload.DirWrite)
		}, []string{"mix: iops read+write 1.25k < floor 2k"}},
		{"bw write", func(r *Result, tb testing.TB) bool { return r.CheckBW(tb, 1<<20, workload.DirWrite) },
			[]string{"mix: bw write 1000KiB/s < floor 1MiB/s"}},
		{"bw all holds", func(r *Result, tb testing.TB) bool { return r.CheckBW(tb, 5_000_000) }, nil},
		{"bw all", func(r *Result, tb testing.TB) bool { return r.CheckBW(tb, 40<<20) },
			[]string{"mix: bw 4.88MiB/s < floor 40MiB/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkOn(t, nil, tc.check)
			if diff := cmp.Diff(tc.want, o.errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, o.recorded); diff != "" {
				t.Errorf("JUnit failures (-want +got):\n%s", diff)
			}
			if o.ok != (tc.want == nil) || o.stopped {
				t.Errorf("returned %v, stopped %v", o.ok, o.stopped)
			}
		})
	}
	for _, req := range []struct {
		name string
		call func(r *Result, tb testing.TB)
	}{
		{"RequireIOPS", func(r *Result, tb testing.TB) { r.RequireIOPS(tb, 1e9) }},
		{"RequireBW", func(r *Result, tb testing.TB) { r.RequireBW(tb, 1e12, workload.DirRead) }},
	} {
		t.Run(req.name, func(t *testing.T) {
			o := checkOn(t, nil, func(r *Result, tb testing.TB) bool { req.call(r, tb); return true })
			if !o.stopped || len(o.errors) != 1 {
				t.Errorf("stopped %v, errors %q", o.stopped, o.errors)
			}
		})
	}
}

func TestCheckNoErrors(t *testing.T) {
	failing := func(r *Result) {
		j := r.Jobs[0]
		j.Dirs[workload.DirRead].Errors = 3
		j.ErrnoCounts[int(syscall.EIO)] = 2
		j.ErrnoCounts[int(syscall.ENOSPC)] = 1
		j.FirstErrors = []workload.IOError{
			{Op: "read", Offset: 8192, Len: 4096, Errno: int(syscall.EIO), Err: syscall.EIO},
			{Op: "write", Offset: 0, Len: 4096, Errno: int(syscall.ENOSPC), Err: syscall.ENOSPC},
		}
	}
	o := checkOn(t, nil, func(r *Result, tb testing.TB) bool { return r.CheckNoErrors(tb) })
	if !o.ok || len(o.errors) != 0 {
		t.Errorf("a clean run: %v %q", o.ok, o.errors)
	}
	o = checkOn(t, failing, func(r *Result, tb testing.TB) bool { return r.CheckNoErrors(tb) })
	want := "mix: 3 failed I/Os (EIO x2, ENOSPC x1); first: read of 4096 bytes at offset 8192: input/output error"
	if diff := cmp.Diff([]string{want}, o.recorded); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantLog := want + "\nread of 4096 bytes at offset 8192: input/output error\nwrite of 4096 bytes at offset 0: no space left on device"
	if diff := cmp.Diff([]string{wantLog}, o.errors); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	o = checkOn(t, func(r *Result) { r.Jobs[0].Sync.Errors = 1 }, func(r *Result, tb testing.TB) bool {
		r.RequireNoErrors(tb)
		return true
	})
	if !o.stopped || len(o.recorded) != 1 || !strings.HasPrefix(o.recorded[0], "mix: 1 failed I/Os") {
		t.Errorf("a failed fsync: stopped %v, %q", o.stopped, o.recorded)
	}
}

func TestCheckVerify(t *testing.T) {
	withVerify := func(checked, bad uint64, first ...error) func(*Result) {
		return func(r *Result) {
			r.Job.Verify = workload.VerifyCRC32C
			r.Jobs[0].Verify = workload.VerifyStats{Checked: checked, Mismatches: bad, First: first}
		}
	}
	for _, tc := range []struct {
		name   string
		modify func(*Result)
		want   []string
	}{
		{"verify off", nil, []string{"mix: verify is off: set Job.Verify to check the data"}},
		{"clean", withVerify(1024, 0), nil},
		{"nothing read back", withVerify(0, 0), []string{"mix: verify: no block was read back (did the run end before its verify pass?)"}},
		{"mismatches", withVerify(1024, 2, errString("block at offset 4096: data checksum mismatch")),
			[]string{"mix: verify: 2 of 1024 blocks read back do not match what was written; first: block at offset 4096: data checksum mismatch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool { return r.CheckVerify(tb) })
			if diff := cmp.Diff(tc.want, o.recorded); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if o.ok != (tc.want == nil) {
				t.Errorf("returned %v", o.ok)
			}
			o = checkOn(t, tc.modify, func(r *Result, tb testing.TB) bool { r.RequireVerify(tb); return true })
			if o.stopped != (tc.want != nil) {
				t.Errorf("Require stopped %v", o.stopped)
			}
		})
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestFailureTypes: each check labels its JUnit failures, so CI can tell
// a slow device from a broken test.
func TestFailureTypes(t *testing.T) {
	r := syntheticResult()
	f := newFake(t)
	f.run(func(tb testing.TB) {
		r.CheckPercentile(tb, Clat, 99, time.Microsecond)
		r.CheckVerify(tb)
		r.CheckSteady(tb)
	})
	var got []string
	for _, fl := range r.rec.run.Failures {
		got = append(got, fl.Type)
	}
	if diff := cmp.Diff([]string{"limit", "limit", "usage", "usage"}, got); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	var _ report.Failure = r.rec.run.Failures[0]
}
