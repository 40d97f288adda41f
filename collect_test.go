package stortest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"stortest.dev/workload"
)

// TestSettle: a test that fails after its runs for a reason no check
// recorded still shows as failed in the report; one skipped after its
// runs shows as skipped; a passing test's runs stay clean.
func TestSettle(t *testing.T) {
	job := workload.Job{Name: "short", RW: workload.Read, Size: 1 << 20}
	for _, tc := range []struct {
		name        string
		after       func(tb testing.TB, r *Result)
		wantFail    []string
		wantSkipped bool
	}{
		{"passed", func(testing.TB, *Result) {}, nil, false},
		{"user error", func(tb testing.TB, _ *Result) { tb.Errorf("something else broke") },
			[]string{"TestSettle/user_error failed (see the go test output)"}, false},
		{"check failed", func(tb testing.TB, r *Result) { r.CheckIOPS(tb, 1e12) }, []string{"short: iops"}, false},
		{"skipped", func(tb testing.TB, _ *Result) { tb.Skip("not today") }, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			var r *Result
			f.run(func(tb testing.TB) {
				r = Run(tb, File(tb, 1<<20), job)
				tc.after(tb, r)
			})
			f.finish()
			if r.rec.run.Result != nil || r.rec.kase == nil {
				t.Errorf("the record still holds the run after the test: %+v", r.rec)
			}
			recs := casesOf(t, t.Name())
			if len(recs) != 1 {
				t.Fatalf("%d testcases", len(recs))
			}
			var got []string
			for _, fl := range recs[0].Failures {
				got = append(got, fl.Message)
			}
			if len(got) != len(tc.wantFail) {
				t.Fatalf("failures %q, want %q", got, tc.wantFail)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.wantFail[i]) {
					t.Errorf("failure %q, want %q", got[i], tc.wantFail[i])
				}
			}
			if (recs[0].Skipped != "") != tc.wantSkipped {
				t.Errorf("skipped %q", recs[0].Skipped)
			}
		})
	}
}

// TestFailureAfterSettle: a check that fails after its test ended (from
// a goroutine the test left running) still reaches the testcase.
func TestFailureAfterSettle(t *testing.T) {
	f := newFake(t)
	var r *Result
	f.run(func(tb testing.TB) {
		r = Run(tb, File(tb, 1<<20), workload.Job{Name: "late", RW: workload.Read, Size: 1 << 20})
	})
	f.finish()
	r.CheckIOPS(newFake(t), 1e12)
	cs := casesOf(t, t.Name())
	if len(cs) != 1 || len(cs[0].Failures) != 1 || !strings.HasPrefix(cs[0].Failures[0].Message, "late: iops ") {
		t.Errorf("testcases %+v", cs)
	}
}

// Under go test -count=N a test runs N times in one binary, each round
// with a new testing.T: a job's second round is numbered as a second run
// in one round is, so that its testcase and artifacts do not collide
// with the first's (the report refuses two attachments of one class with
// one base name).
func TestNamesAcrossCountRounds(t *testing.T) {
	name := t.Name() + "/round"
	first, second := &testState{name: name}, &testState{name: name}
	base, kase := first.names("rand read")
	assert.Equal(t, []string{"rand_read", "rand read"}, []string{base, kase})
	base, kase = second.names("rand read")
	assert.Equal(t, []string{"rand_read.2", "rand read#2"}, []string{base, kase})
	base, kase = (&testState{name: name + "-other"}).names("rand read")
	assert.Equal(t, []string{"rand_read", "rand read"}, []string{base, kase}, "another test's runs do not count")
}
